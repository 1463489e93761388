package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// controlsLine is the line of the live traffic controls on screen.
func controlsLine(t *testing.T, m *Model) string {
	t.Helper()
	for _, l := range strings.Split(screen(m), "\n") {
		if strings.Contains(l, "c: client ") {
			return l
		}
	}
	t.Fatalf("no controls line on screen:\n%s", screen(m))
	return ""
}

// controlsLine80 is the short line of the live traffic controls on a narrow
// screen.
func controlsLine80(t *testing.T, m *Model) string {
	t.Helper()
	for _, l := range strings.Split(screen(m), "\n") {
		if strings.HasPrefix(l, "c ") || strings.HasPrefix(l, "x/X ") {
			return strings.TrimRight(l, " ")
		}
	}
	t.Fatalf("no controls line on screen:\n%s", screen(m))
	return ""
}

// > on a client without a rate names its pattern as a scenario file writes it,
// never the Go value of its bursts.
func TestRateKeyOnAPatternWithoutRateNamesIt(t *testing.T) {
	m := newModel(t, "nginx-burst") // one client, "browser", pattern = "bursts"
	frame(m)
	press(m, ">")
	want := `client browser has pattern = "bursts", which has no rate to change; c picks another`
	if m.status != want || !m.statusBad {
		t.Errorf("> on browser: status %q (bad %v), want %q", m.status, m.statusBad, want)
	}
	if strings.ContainsAny(m.status, "{}[]") {
		t.Errorf("the status shows a Go value: %q", m.status)
	}
}

// After going back in time the controls line shows the values in force at the
// new time — the inputs recorded later have not happened there — and the count
// says how many are recorded in all and how many are later; playing on past
// them replays them, and the line follows.
func TestControlsLineFollowsTheTimeShown(t *testing.T) {
	m := newModel(t, "nginx-burst") // browser's retry: fixed; a backend
	press(m, "space")
	seekTo(m, 12900*time.Millisecond)
	press(m, "R")
	press(m, "G")
	for i, step := range []struct {
		do    func()
		want  []string
		never []string
	}{
		{func() {}, []string{"R retry none", "G glitch on", "2 inputs recorded (S saves)"}, []string{"later than now"}},
		{func() { goTo(m, "2s") }, []string{"R retry fixed", "G glitch off", "2 inputs recorded in all, 2 later than now"}, []string{"glitch on"}},
		{func() { goTo(m, "13s") }, []string{"R retry none", "G glitch on", "2 inputs recorded (S saves)"}, nil},
		{func() { goTo(m, "12.8s") }, []string{"R retry fixed", "G glitch off", "2 later than now"}, nil},
		{func() { // playing on replays them
			press(m, "space")
			for i := 0; m.runner.now() < 13*time.Second && i < 1000; i++ {
				frame(m)
			}
		}, []string{"R retry none", "G glitch on", "2 inputs recorded (S saves)"}, nil},
	} {
		step.do()
		line := controlsLine(t, m)
		for _, w := range step.want {
			if !strings.Contains(line, w) {
				t.Errorf("step %d: at %v the controls line lacks %q: %q", i, m.runner.now(), w, line)
			}
		}
		for _, w := range step.never {
			if strings.Contains(line, w) {
				t.Errorf("step %d: at %v the controls line says %q: %q", i, m.runner.now(), w, line)
			}
		}
	}
	// at 2 s the status says the later inputs replay as the run plays on
	goTo(m, "2s")
	if !strings.Contains(m.status, "the 2 inputs recorded later replay as the run plays on") {
		t.Errorf("status after going back before the inputs: %q", m.status)
	}
	// at 80×24 a short form keeps every value and the count
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if line, want := controlsLine80(t, m), "c browser no rate · R fixed · F as-configured · G off · 2 inputs, 2 after now"; line != want {
		t.Errorf("at 80×24 at 2 s the controls line is %q, want %q", line, want)
	}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	// a key pressed at 2 s changes the value in force there, from there: G turns
	// the glitch on (it was off at 2 s), and the later inputs are discarded
	press(m, "G")
	for i := 0; m.runner.seeking && i < 10_000; i++ {
		frame(m)
	}
	if line := controlsLine(t, m); !strings.Contains(line, "G glitch on") || !strings.Contains(line, "1 inputs recorded (S saves)") {
		t.Errorf("after G at 2 s: %q", line)
	}
}

// [ ] and { } pass through the scenario's own burst and rate, so the opposite
// key comes back to it and "(adjusted)" goes.
func TestPolicyKeysComeBackToTheScenariosOwn(t *testing.T) {
	m := newModel(t, "nginx-burst") // 10 per 1s, burst 11
	frame(m)
	for i, step := range []struct {
		key          string
		limit, burst int64
		adjusted     bool
	}{
		{"]", 10, 15, true},
		{"[", 10, 11, false},
		{"[", 10, 10, true},
		{"[", 10, 8, true},
		{"]", 10, 10, true},
		{"]", 10, 11, false},
		{"{", 8, 11, true},
		{"}", 10, 11, false},
		{"}", 15, 11, true},
		{"{", 10, 11, false},
	} {
		press(m, step.key)
		p := m.runner.cfg.Tiers[0].Policy
		header := strings.Split(screen(m), "\n")[1]
		if p.Limit != step.limit || p.Burst != step.burst {
			t.Errorf("step %d: %s gave limit %d, burst %d; want %d, %d", i, step.key, p.Limit, p.Burst, step.limit, step.burst)
		}
		if got := strings.Contains(header, "(adjusted)"); got != step.adjusted {
			t.Errorf("step %d: %s: the header says adjusted %v, want %v: %q", i, step.key, got, step.adjusted, header)
		}
		if got := strings.Contains(m.status, "the scenario's own"); got == step.adjusted {
			t.Errorf("step %d: %s: status %q", i, step.key, m.status)
		}
	}
}

// Once the run has ended an input acts on nothing: the status line says so
// and what to do (go back, or r to restart with the inputs recorded), and the
// input is not recorded; r restarts the run.
func TestControlsAfterTheEnd(t *testing.T) {
	m := newModel(t, "nginx-burst")
	seekTo(m, 12900*time.Millisecond)
	press(m, "R") // recorded: a restart replays it
	m.runner.paused = false
	m.runner.generation++
	playToEnd(m)
	before := controlsLine(t, m)
	for i, k := range []string{"R", "G", "F", ">", "<", "x", "X"} {
		press(m, k)
		if all := len(m.runner.recorded); all != 1 {
			t.Errorf("step %d: %s after the end: %d inputs recorded, want the 1 made before", i, k, all)
		}
		if !strings.Contains(m.status, k+" changes nothing now: the run has ended; ← or g goes back to an earlier time to make a change there, r restarts the run, replaying the input recorded") {
			t.Errorf("step %d: %s after the end: status %q", i, k, m.status)
		}
		if line := controlsLine(t, m); line != before {
			t.Errorf("step %d: %s after the end changed the controls line:\n%s\n%s", i, k, before, line)
		}
	}
	press(m, "c")
	if !strings.Contains(m.status, "client browser picked, but the run has ended") {
		t.Errorf("c after the end: status %q", m.status)
	}
	press(m, "r")
	if m.runner.done() || m.runner.now() != 0 || len(m.runner.recorded) != 1 {
		t.Errorf("r after the end: at %v, done %v, %d recorded; want the start, the 1 input kept", m.runner.now(), m.runner.done(), len(m.runner.recorded))
	}
}
