package ui

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/algorithms"
	"ratelab/internal/format"
	"ratelab/internal/printable"
	"ratelab/scenarios"
	"ratelab/traces"
)

// evilKey is a key a log could hold: a terminal escape that clears the screen.
const evilKey = "evil\x1b[2J"

// traceModel opens a trace replay of a minute on a 160×48 screen: a heavy key
// sending 20 a second, a typical one and another sending one every 2 s, one
// sending two at once every 2 s,
// through a recommended lane and another, with the heavy key watched.
func traceModel(t *testing.T) *Model {
	t.Helper()
	var log strings.Builder
	log.WriteString("time_ms,key\n")
	for ms := 0; ms < 60_000; ms += 50 {
		fmt.Fprintf(&log, "%d,heavy\n", ms)
		if ms%2000 == 0 {
			fmt.Fprintf(&log, "%d,typical\n%d,other\n%d,other\n%d,%s\n", ms, ms+1, ms+1, ms+2, evilKey)
		}
	}
	p := algorithms.Policy{Limit: 5, Period: time.Second, Burst: 5}
	tb := scenarios.TraceLimit{Algorithm: algorithms.TokenBucketName, Policy: p}
	r := scenarios.TraceReplay{Title: "log", Seed: 1, WatchKey: "heavy", HeavyKeys: []string{"heavy"}, TypicalKey: "typical", Policy: tb,
		Lanes: []scenarios.TraceLane{{Name: "recommended: token-bucket 5/s burst 5", Limits: []scenarios.TraceLimit{tb}},
			{Name: "token-bucket 1/s burst 1", Limits: []scenarios.TraceLimit{{Algorithm: algorithms.TokenBucketName, Policy: algorithms.Policy{Limit: 1, Period: time.Second, Burst: 1}}}}},
		Log: scenarios.TraceLog{File: "log.csv", Format: traces.FormatCSV}}
	text, err := r.Text()
	if err != nil {
		t.Fatal(err)
	}
	c, err := scenarios.Parse(scenarios.FSSource(fstest.MapFS{"log.csv": {Data: []byte(log.String())}}, "replay.toml"), text)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Catalogue: c, Scenario: "trace", ExportDir: t.TempDir(), ManualFrames: true})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	await(m)
	return m
}

// A trace replay's table shows what tune judges a lane by — the share of the
// ordinary keys' requests denied and of the heavy hitters' admitted, from the
// run's counts — in place of peak/limit; the recommended lane's panel says it
// is, and its verdict says tune recommends it.
func TestTraceLanesShowOrdinaryAndHeavy(t *testing.T) {
	m := traceModel(t)
	seekTo(m, 30*time.Second)
	sc := screen(m)
	if !strings.Contains(sc, "ordinary denied") || !strings.Contains(sc, "heavy admitted") || strings.Contains(sc, "peak/limit") {
		t.Fatalf("the table's columns: want ordinary denied and heavy admitted, not peak/limit:\n%s", sc)
	}
	for i, met := range m.runner.snap.Metrics {
		o, h := float64(met.OrdinaryDenied)/float64(met.OrdinaryAttempts), float64(met.HeavyAccepted)/float64(met.HeavyAttempts)
		row := regexpCells(sc, met.Lane)
		if met.OrdinaryAttempts == 0 || met.HeavyAttempts == 0 || !strings.HasPrefix(row, format.Percent(o)+" "+format.Percent(h)+" ") {
			t.Errorf("lane %d %q: the row reads %q; want %s and %s first (counts %+v)", i, met.Lane, row, format.Percent(o), format.Percent(h), met)
		}
	}
	if m := m.runner.snap.Metrics; m[1].OrdinaryDenied == 0 || m[0].OrdinaryDenied != 0 {
		t.Errorf("ordinary keys denied %d by 5/s and %d by 1/s: want none by the first, some by the second", m[0].OrdinaryDenied, m[1].OrdinaryDenied)
	}
	for _, want := range []string{"│ recommended: token-bucket 5/s burst 5 ", "tokens left for heavy (heavy)", "recommended by ratelab tune for its goal: denied ordinary keys 0% of their requests"} {
		if !strings.Contains(sc, want) {
			t.Errorf("the screen lacks %q:\n%s", want, sc)
		}
	}
}

// regexpCells is the cells after the lane's name in its table row, spaces
// collapsed, with a space after the last.
func regexpCells(sc, lane string) string {
	for _, line := range strings.Split(sc, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), lane+" "); ok && !strings.Contains(rest, ":") {
			return strings.Join(strings.Fields(rest), " ") + " "
		}
	}
	return ""
}

// W chooses the watched key: ↓ offers the heaviest then the typical key, tab
// completes a typed name, any key can be typed by its escaped name; the run is
// replayed to the time shown with the new key's levels, and an unknown name
// is refused, naming it.
func TestWatchAnotherKey(t *testing.T) {
	m := traceModel(t)
	seekTo(m, 20*time.Second)
	at := m.runner.now()
	heavy := m.runner.cfg.WatchKey

	press(m, "W")
	press(m, "down")
	if v := m.watch.input.Value(); v != "heavy" {
		t.Fatalf("W ↓ offers %q; want the heaviest key", v)
	}
	press(m, "down")
	if v := m.watch.input.Value(); v != "typical" {
		t.Fatalf("W ↓ ↓ offers %q; want the typical key", v)
	}
	press(m, "enter")
	for i := 0; m.runner.seeking && i < 10_000; i++ {
		frame(m)
	}
	cfg := m.runner.cfg
	if k := cfg.WatchKey; cfg.Keys[k].Name != "typical" || m.runner.now() != at || k == heavy {
		t.Fatalf("after W ↓ ↓ enter: watching %q at %v; want typical at %v", cfg.Keys[k].Name, m.runner.now(), at)
	}
	if sc := screen(m); !strings.Contains(sc, "tokens left for typical (typical)") {
		t.Errorf("the panels do not say the typical key is watched:\n%s", sc)
	}
	var level float64
	for _, s := range m.runner.snap.Lanes[1].Series { // 1/s burst 1 for a key sending one every 2 s: full at the column's emptiest
		level = max(level, s.Level)
	}
	if level == 0 {
		t.Errorf("the typical key's graph is empty after the replay")
	}

	// tab completes a name; a restart (r) keeps the key watched
	press(m, "W")
	typeText(m, "oth")
	press(m, "tab")
	if v := m.watch.input.Value(); v != "other" {
		t.Errorf("W oth tab: %q; want other", v)
	}
	press(m, "enter")
	press(m, "r")
	if name := m.runner.cfg.Keys[m.runner.cfg.WatchKey].Name; name != "other" {
		t.Errorf("after r: watching %q; want other", name)
	}
	if c, err := m.runner.compile(); err != nil || c.Keys[c.WatchKey].Name != "other" {
		t.Errorf("recompiled ([ ] { }): %v, watching %q; want other", err, c.Keys[c.WatchKey].Name)
	}

	// a key from the log is typed and shown escaped
	press(m, "W")
	typeText(m, printable.String(evilKey))
	press(m, "enter")
	for i := 0; m.runner.seeking && i < 10_000; i++ {
		frame(m)
	}
	sc := m.View().Content
	if name := m.runner.cfg.Keys[m.runner.cfg.WatchKey].Name; name != evilKey || strings.Contains(sc, evilKey) || !strings.Contains(screen(m), "for "+printable.String(evilKey)+" (ordinary)") {
		t.Errorf("typing %q watched %q; want the key, shown escaped:\n%s", printable.String(evilKey), name, screen(m))
	}

	press(m, "W")
	typeText(m, "nobody")
	press(m, "enter")
	if !m.statusBad || !strings.Contains(m.status, `"nobody" is not a key of this run`) {
		t.Errorf("an unknown key: status %q", m.status)
	}
}
