package ui

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// newWallModel is the UI on scenario with its frames on the wall clock, as the
// program runs it (not ManualFrames), at 160×48.
func newWallModel(t testing.TB, scenario string) *Model {
	t.Helper()
	m, err := New(Options{Catalogue: catalogue(t), Scenario: scenario, ExportDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	return m
}

// Paused, the UI asks for nothing more: the space that pauses returns no
// command, the frame out when it was pressed lands and schedules no next frame
// and no timer, and a frame tick of before the pause does nothing. Steps of
// Update at fixed points, on a model whose frames are the wall clock's.
func TestPausedSchedulesNothing(t *testing.T) {
	m := newWallModel(t, "retry-storm")
	await(m) // the run's start
	_, out := m.Update(FrameMsg{Generation: m.runner.generation})
	if out == nil {
		t.Fatal("step 1: a frame while playing submitted no advance")
	}
	stale := FrameMsg{Generation: m.runner.generation}
	if _, cmd := m.Update(keyPress("space")); cmd != nil || !m.runner.paused {
		t.Errorf("step 2: space: paused=%v, command %s; want paused and no command", m.runner.paused, describe(cmd))
	}
	landed := out() // the frame submitted before the pause
	if _, ok := landed.(jobDone); !ok {
		t.Fatalf("step 3: the frame out brought %T, want its result (jobDone)", landed)
	}
	if _, cmd := m.Update(landed); cmd != nil {
		t.Errorf("step 3: the frame out landed after the pause and returned %s; want no command (no next frame, no timer)", describe(cmd))
	}
	if m.runner.now() != Frame {
		t.Errorf("step 3: the frame out brought the run to %v, want %v", m.runner.now(), Frame)
	}
	if _, cmd := m.Update(stale); cmd != nil {
		t.Errorf("step 4: a frame tick of before the pause returned %s; want none", describe(cmd))
	}
	// and space again plays: the promise is not kept by never scheduling at all
	if _, cmd := m.Update(keyPress("space")); cmd == nil {
		t.Errorf("step 5: space to resume returned no command; want the next frame")
	}
}

// describe names what a command sends within 50 ms, or says it waits longer (a
// timer).
func describe(cmd tea.Cmd) string {
	if cmd == nil {
		return "none"
	}
	got := make(chan tea.Msg, 1)
	go func() { got <- cmd() }()
	select {
	case msg := <-got:
		return fmt.Sprintf("one sending %T", msg)
	case <-time.After(50 * time.Millisecond):
		return "one still waiting after 50 ms (a timer)"
	}
}

// counting is a model that counts the messages Update takes and the screens View
// draws, for TestPausedProgramSleeps.
type counting struct {
	*Model
	mu    sync.Mutex
	msgs  []string // the type of each message taken
	views int
}

func (c *counting) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	c.mu.Lock()
	c.msgs = append(c.msgs, fmt.Sprintf("%T", msg))
	c.mu.Unlock()
	_, cmd := c.Model.Update(msg)
	return c, cmd
}

func (c *counting) View() tea.View {
	c.mu.Lock()
	c.views++
	c.mu.Unlock()
	return c.Model.View()
}

// counts are the messages taken so far and the views drawn.
func (c *counting) counts() ([]string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.msgs), c.views
}

// The real program, paused, takes no message and draws no screen: no frame tick,
// no stall check, nothing until a key. It plays at 1× on the wall clock and is
// paused; over the next stallAfter and a half the messages allowed are those
// of what was under way at the pause (the frame out's result, the tick already
// set for the next frame) and their screens. A timer per
// frame that fires a second later, or a frame chain that goes on paused, fails
// it. Playing again, the same count sees frames: it is not blind.
func TestPausedProgramSleeps(t *testing.T) {
	if testing.Short() {
		t.Skip("waits on the wall clock for seconds")
	}
	c := &counting{Model: newWallModel(t, "retry-storm")}
	tm := teatest.NewTestModel(t, c, teatest.WithInitialTermSize(160, 48))
	frames := func() int {
		msgs, _ := c.counts()
		n := 0
		for _, m := range msgs {
			if m == "ui.FrameMsg" {
				n++
			}
		}
		return n
	}
	waitUntil(t, 5*time.Second, "ten frames at 1×", func() bool { return frames() >= 10 })
	tm.Send(tea.KeyPressMsg(tea.Key{Code: tea.KeySpace, Text: " "}))
	waitUntil(t, 5*time.Second, "the space", func() bool {
		msgs, _ := c.counts()
		return slices.Contains(msgs, "tea.KeyPressMsg")
	})
	// the space's own screen: the renderer asks for it within a frame of the
	// key (WithFPS), after the key is counted; it is not one the pause makes
	time.Sleep(3 * Frame)
	msgs0, views0 := c.counts()
	window := stallAfter + 500*time.Millisecond
	time.Sleep(window)
	msgs1, views1 := c.counts()
	extra := msgs1[len(msgs0):]
	// what was under way at the pause: the frame out (its result), or the tick
	// already set for the next frame (dropped as stale: tea.Tick cannot be
	// called back), one each at most
	for _, under := range []string{"ui.jobDone", "ui.FrameMsg"} {
		if i := slices.Index(extra, under); i >= 0 {
			extra = slices.Delete(slices.Clone(extra), i, i+1)
			views1--
		}
	}
	if len(extra) > 0 || views1 > views0 {
		t.Errorf("paused, over %v the program took %d messages %v besides what was under way at the pause, and was asked for %d screens besides theirs; want none", window, len(extra), extra, views1-views0)
	}
	before := frames()
	tm.Send(tea.KeyPressMsg(tea.Key{Code: tea.KeySpace, Text: " "}))
	waitUntil(t, 5*time.Second, "frames after resuming", func() bool { return frames() >= before+5 })
	tm.Send(tea.KeyPressMsg(tea.Key{Code: 'q', Text: "q"}))
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// waitUntil polls ok until it holds, failing the test after limit.
func waitUntil(t *testing.T, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", limit, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// BenchmarkPlay1x plays retry-storm at 1× in the real program — frames on the
// wall clock, Bubble Tea's renderer writing the screens (256 colours, as in
// tmux) to nowhere, at ProgramOptions' rate — for b.N seconds of wall time, and
// reports the process's CPU time per second of virtual time played
// (cpu-ms/s-played: 80 is 8% of a core at 1×). The question at 40 s pauses the
// run, so -benchtime stays under 40x (the default runs a few seconds).
func BenchmarkPlay1x(b *testing.B) {
	m, err := New(Options{Catalogue: catalogue(b), Scenario: "retry-storm", ExportDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	opts := append(ProgramOptions(), tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutSignals(),
		tea.WithWindowSize(160, 48), tea.WithEnvironment([]string{"TERM=tmux-256color", "CLICOLOR_FORCE=1"}))
	p := tea.NewProgram(m, opts...)
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	time.Sleep(500 * time.Millisecond) // started, first frames drawn (not counted)
	p.Quit()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	from := m.runner.now()

	p = tea.NewProgram(m, opts...) // the same model, going on from where it is
	go func() { _, err := p.Run(); done <- err }()
	start := cpuTime()
	b.ResetTimer()
	for range b.N {
		time.Sleep(time.Second)
	}
	cpu := cpuTime() - start
	b.StopTimer()
	p.Quit()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	played := m.runner.now() - from
	if played <= 0 {
		b.Fatalf("the run did not advance (at %v)", m.runner.now())
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/played.Seconds(), "cpu-ms/s-played")
	b.ReportMetric(played.Seconds()/b.Elapsed().Seconds(), "speed")
}
