package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/present"
	"ratelab/scenarios"
	"ratelab/sim"
)

// goTo seeks the model to t through the go-to prompt, running frames until there.
func goTo(m *Model, t string) {
	press(m, "g")
	for _, r := range t {
		press(m, string(r))
	}
	press(m, "enter")
	for i := 0; m.runner.seeking && i < 10_000; i++ {
		frame(m)
	}
}

// lastAllowed is each lane's latest decision.
func lastAllowed(m *Model) map[string]bool {
	out := map[string]bool{}
	for i, l := range m.runner.snap.Lanes {
		if l.HasLast {
			out[m.runner.cfg.Lanes[i].Name] = l.Last.Decision.Allowed
		}
	}
	return out
}

// The sandbox, driven by the keys its lesson gives, as a student would: pause,
// g 0.999s, X ten times — 100 requests at 0.999 s against 100 per second, all
// accepted by every lane —, then g 1s and x: the 101st, at 1.000 s, is refused
// by every lane but the fixed window, whose new window has just begun. So the
// fixed window accepts 101 and every other lane 100, as the lesson says.
func TestSandboxStepTable(t *testing.T) {
	m := newModel(t, "sandbox")
	lesson := strings.Join(strings.Fields(m.runner.cfg.Lesson), " ")
	for _, says := range []string{"pause (space)", "g 0.999s and enter, then X ten times sends 100 requests at 0.999 s", "g 1s, enter and x sends the 101st at 1.000 s", "the fixed window accepts 101, every other lane 100"} {
		if !strings.Contains(lesson, says) {
			t.Fatalf("the lesson no longer says %q; this test follows its steps:\n%s", says, lesson)
		}
	}
	press(m, "space")
	for _, step := range []struct {
		at      string
		key     string
		presses int
		want    map[string]bool
	}{
		{"0.999s", "X", 10, map[string]bool{"fixed-window": true, "sliding-log": true, "sliding-counter": true, "leaky-bucket": true, "token-bucket": true, "gcra": true, "x-time-rate": true}},
		{"1s", "x", 1, map[string]bool{"fixed-window": true, "sliding-log": false, "sliding-counter": false, "leaky-bucket": false, "token-bucket": false, "gcra": false, "x-time-rate": false}},
	} {
		goTo(m, step.at)
		for i := 0; i < step.presses; i++ {
			press(m, step.key)
		}
		got := lastAllowed(m)
		for lane, want := range step.want {
			if got[lane] != want {
				t.Errorf("after %s %d times at %s, %s allowed the last: %v, want %v", step.key, step.presses, step.at, lane, got[lane], want)
			}
		}
	}
	if now := m.runner.now(); now > time.Second+time.Millisecond {
		t.Errorf("the steps left the run at %v, not at 1.000 s", now)
	}
	for _, met := range m.runner.snap.Metrics {
		want := int64(100)
		if met.Lane == "fixed-window" {
			want = 101
		}
		if met.Offered != 101 || met.Accepted != want {
			t.Errorf("%s: %d offered, %d accepted; want the 101 sent, %d accepted", met.Lane, met.Offered, met.Accepted, want)
		}
	}
	if s := screen(m); !strings.Contains(s, "for user-0: 429 denied") && !strings.Contains(s, "for user-0: 200 allowed") {
		t.Errorf("the focused lane's answer is not on screen:\n%s", s)
	}
	// k sends for the next key: its own state, so every lane accepts
	press(m, "k")
	press(m, "X")
	for lane, allowed := range lastAllowed(m) {
		if !allowed {
			t.Errorf("%s refused user-1's first requests", lane)
		}
	}
}

// A session — requests by hand, a rate, a retry policy, the clock fix, inputs made
// after going back in time — saved with S and replayed headless from the file gives
// the exported CSV, byte for byte.
func TestRecordedSessionReplaysExactly(t *testing.T) {
	m := newModel(t, "sandbox")
	dir := m.opts.ExportDir
	press(m, "space")
	goTo(m, "0.5s")
	press(m, "X")
	press(m, "k")
	press(m, "x")
	press(m, ">") // the hand client sends at 1/s from here
	press(m, ">")
	press(m, "R")
	press(m, "F")
	goTo(m, "2s")
	press(m, "X")
	goTo(m, "1.5s")                                             // back: the replay includes what was recorded
	if got := m.runner.snap.Metrics[0].Offered; got != 10+1+1 { // at 0.5 s, and the 1.5/s client's first, at 1.167 s
		t.Errorf("offered by 1.5 s after going back: %d, want 12", got)
	}
	press(m, "x") // a new input after going back discards the later ones
	for i := 0; m.runner.seeking && i < 10_000; i++ {
		frame(m)
	}
	if !strings.Contains(m.status, "discarded the input recorded after 1.500s") {
		t.Errorf("status after an input in the past: %q", m.status)
	}
	goTo(m, "4s")
	press(m, "S")
	if m.statusBad || !strings.Contains(m.status, "saved the session") {
		t.Fatalf("save: %q", m.status)
	}
	exported := exportNow(t, m)

	c, err := scenarios.Load(filepath.Join(dir, "sandbox-session.toml"))
	if err != nil {
		data, _ := os.ReadFile(filepath.Join(dir, "sandbox-session.toml"))
		t.Fatalf("the saved session does not load: %v\n%s", err, data)
	}
	cfg, err := c.Compile("sandbox-session", scenarios.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Inputs) != len(m.runner.cfgWithInputs().Inputs) {
		t.Errorf("the file holds %d inputs, the session %d", len(cfg.Inputs), len(m.runner.cfgWithInputs().Inputs))
	}
	replayed := rowsUpTo(t, cfg, 4*time.Second)
	if replayed != exported {
		t.Errorf("the saved session replays differently from the export:\n%s", firstDiff(replayed, exported))
	}
}

// exportNow exports the run so far and returns the request CSV written.
func exportNow(t *testing.T, m *Model) string {
	t.Helper()
	m.export.busy = false
	cmd := m.export.start(m.runner.cfgWithInputs(), m.runner.now(), false, m.runner.session)
	m.Update(cmd())
	if m.statusBad {
		t.Fatalf("export: %s", m.status)
	}
	data, err := os.ReadFile(filepath.Join(m.opts.ExportDir, "sandbox-seed1-requests.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// rowsUpTo runs cfg to upTo headless and returns its request CSV.
func rowsUpTo(t *testing.T, cfg *sim.Config, upTo time.Duration) string {
	t.Helper()
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b strings.Builder
	w, _ := present.NewRequestWriter(&b, cfg)
	r.OnRows(w.Write)
	if err := r.AdvanceTo(upTo); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return b.String()
}

func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < min(len(la), len(lb)); i++ {
		if la[i] != lb[i] {
			return la[i] + "\n" + lb[i]
		}
	}
	return "lengths differ"
}

var _ = tea.Quit

// The rate keys stop where the client would send more than a run replays: a
// rate the compiler would refuse in the saved session is refused here, and the
// run never has to make it.
func TestRateKeyStopsAtTheLoadCap(t *testing.T) {
	m := newModel(t, "sandbox")
	for range 80 {
		press(m, ">")
	}
	if !strings.Contains(m.status, "ratelab replays at most 100000000") {
		t.Errorf("after 80 presses of >, the status says %q, want the cap", m.status)
	}
	cfg := m.runner.cfgWithInputs()
	for _, in := range cfg.Inputs {
		if in.Kind == sim.InputRate {
			if n := scenarios.RateOffer(&cfg.Clients[in.Client], in.At, in.Rate); n > scenarios.MaxOffered {
				t.Errorf("a rate of %g/s was recorded: %.3g requests, past the cap", in.Rate, n)
			}
		}
	}
}
