package ui

import (
	"bytes"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// runProgram starts the UI as a real Bubble Tea program on a 160×48 virtual
// terminal, with frames sent by the test rather than a clock.
func runProgram(t *testing.T, scenario string) *teatest.TestModel {
	t.Helper()
	m, err := New(Options{Catalogue: catalogue(t), Scenario: scenario, ExportDir: t.TempDir(), ManualFrames: true})
	if err != nil {
		t.Fatal(err)
	}
	return teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 48))
}

func TestFirstPaint(t *testing.T) {
	tm := runProgram(t, "boundary-burst")
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		// the title's numbers are hidden until its question at 1.002 s is answered
		return bytes.Contains(b, []byte("Boundary burst: … requests in … ms")) &&
			bytes.Contains(b, []byte("x-time-rate")) && bytes.Contains(b, []byte("space pause/resume"))
	}, teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyPressMsg(tea.Key{Code: 'q', Text: "q"}))
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// TestGoldenAfterKeys: 1.5 s of frames at 1× — stopping at the lesson's
// question at 1.002 s, answered —, focus the token bucket, then the final
// screen, byte for byte. Rewrite with go test ./ui -run Golden -update.
// The frames advance the run in the background (engine.go) and q quits at once:
// the final model applies what the frames did (await) before it is drawn.
func TestGoldenAfterKeys(t *testing.T) {
	tm := runProgram(t, "boundary-burst")
	for i := 0; i < 30; i++ { // each stops at the question, at 1.002 s
		tm.Send(FrameMsg{Generation: 1})
	}
	waitForText(t, tm, "Predict, then see")
	for _, k := range "200" {
		tm.Send(tea.KeyPressMsg(tea.Key{Code: k, Text: string(k)}))
	}
	tm.Send(tea.KeyPressMsg(tea.Key{Code: tea.KeyEnter}))
	waitForText(t, tm, "Right: 200")
	tm.Send(tea.KeyPressMsg(tea.Key{Code: 'x', Text: "x"})) // any key goes on
	// the question paused the run (generation 2); going on resumed it (3)
	for i := 0; i < 10; i++ {
		tm.Send(FrameMsg{Generation: 3})
	}
	for i := 0; i < 4; i++ {
		tm.Send(tea.KeyPressMsg(tea.Key{Code: tea.KeyTab}))
	}
	tm.Send(tea.KeyPressMsg(tea.Key{Code: tea.KeySpace, Text: " "}))
	tm.Send(tea.KeyPressMsg(tea.Key{Code: 'q', Text: "q"}))
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	await(final)
	golden.RequireEqual(t, []byte(final.View().Content))

	tm = runProgram(t, "thundering-herd")
	for i := 0; i < 150; i++ { // each stops at the question, at 6.02 s
		tm.Send(FrameMsg{Generation: 1})
	}
	waitForText(t, tm, "Predict, then see")
	tm.Send(tea.KeyPressMsg(tea.Key{Code: tea.KeyEscape})) // skipped: the run goes on
	// 7.52 s: the herds at 6 s and 7 s
	for i := 0; i < 30; i++ {
		tm.Send(FrameMsg{Generation: 3})
	}
	tm.Send(tea.KeyPressMsg(tea.Key{Code: tea.KeyEnter}))
	tm.Send(tea.KeyPressMsg(tea.Key{Code: 'q', Text: "q"}))
	final = tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	await(final)
	t.Run("zoom", func(t *testing.T) { golden.RequireEqual(t, []byte(final.View().Content)) })
}

// waitForText waits until the program has drawn text.
func waitForText(t *testing.T, tm *teatest.TestModel, text string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(text)) }, teatest.WithDuration(5*time.Second))
}
