package ui

import (
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/scenarios"
)

// catalogue is the shipped catalogue, read from the repository.
func catalogue(t testing.TB) *scenarios.Catalogue {
	t.Helper()
	c, err := scenarios.LoadFS(os.DirFS(".."), "scenarios.toml")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newModel opens scenario on a 160×48 screen with frames driven by the test.
func newModel(t testing.TB, scenario string) *Model {
	t.Helper()
	m, err := New(Options{Catalogue: catalogue(t), Scenario: scenario, ExportDir: t.TempDir(), ManualFrames: true})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	return m
}

// press sends a key press by name ("space", "tab", "a"), applies the results of
// the jobs it gave the run (see await), and returns the command.
func press(m *Model, name string) tea.Cmd {
	_, cmd := m.Update(keyPress(name))
	await(m)
	return cmd
}

// keyPress is the key press called name.
func keyPress(name string) tea.KeyPressMsg {
	var k tea.Key
	switch name {
	case "space":
		k = tea.Key{Code: tea.KeySpace, Text: " "}
	case "tab":
		k = tea.Key{Code: tea.KeyTab}
	case "shift+tab":
		k = tea.Key{Code: tea.KeyTab, Mod: tea.ModShift}
	case "enter":
		k = tea.Key{Code: tea.KeyEnter}
	case "esc":
		k = tea.Key{Code: tea.KeyEscape}
	case "right":
		k = tea.Key{Code: tea.KeyRight}
	case "left":
		k = tea.Key{Code: tea.KeyLeft}
	case "up":
		k = tea.Key{Code: tea.KeyUp}
	case "down":
		k = tea.Key{Code: tea.KeyDown}
	case "ctrl+c":
		k = tea.Key{Code: 'c', Mod: tea.ModCtrl}
	case "backspace":
		k = tea.Key{Code: tea.KeyBackspace}
	case "pgdown":
		k = tea.Key{Code: tea.KeyPgDown}
	case "pgup":
		k = tea.Key{Code: tea.KeyPgUp}
	case "home":
		k = tea.Key{Code: tea.KeyHome}
	case "end":
		k = tea.Key{Code: tea.KeyEnd}
	default:
		r := []rune(name)[0]
		k = tea.Key{Code: r, Text: name}
	}
	return tea.KeyPressMsg(k)
}

// await waits for every job submitted to the run shown (starting, advancing,
// an input: see engine.go) and applies their results, as the runtime delivers
// them to Update; again, for the jobs a result submits (the input a seek was
// waiting for).
func await(m *Model) {
	for range 100 {
		e := m.runner.eng
		if e == nil || m.runner.applied == len(e.jobs) {
			return
		}
		last := e.jobs[len(e.jobs)-1]
		<-last.finished
		m.Update(last.result)
	}
}

// settle runs cmd and feeds its messages back to m, as the Bubble Tea runtime
// would (the picker filters in a command). A command that does not answer within
// 100 ms is a timer (the list's status message) and is dropped.
func settle(m *Model, cmd tea.Cmd) {
	for i := 0; cmd != nil && i < 10; i++ {
		answer := make(chan tea.Msg, 1)
		go func(c tea.Cmd) { answer <- c() }(cmd)
		var msg tea.Msg
		select {
		case msg = <-answer:
		case <-time.After(100 * time.Millisecond):
			return
		}
		switch msg := msg.(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				settle(m, c)
			}
			return
		case tea.QuitMsg:
			return
		default:
			_, cmd = m.Update(msg)
		}
	}
}

// screen is the view as plain text.
func screen(m *Model) string { return ansi.Strip(m.View().Content) }

// frame sends a frame of the current generation, and applies its result
// (see await); it returns what the frame's result scheduled.
func frame(m *Model) tea.Cmd {
	_, cmd := m.Update(FrameMsg{Generation: m.runner.generation})
	if cmd == nil {
		return nil
	}
	e := m.runner.eng
	msg := cmd()
	if m.runner.eng != e {
		return nil
	}
	_, next := m.Update(msg)
	await(m)
	return next
}

// seekTo goes to t as g does (passing the lesson's questions on the way), and
// waits until it is there.
func seekTo(m *Model, t time.Duration) {
	m.seekTo(t)
	for i := 0; m.runner.seeking && i < 10_000; i++ {
		frame(m)
	}
}

// playToEnd runs frames until the run is at its end, skipping (esc) each of
// the lesson's questions it stops at on the way.
func playToEnd(m *Model) {
	for i := 0; (!m.runner.done() || m.quiz.open) && i < 100_000; i++ {
		if m.quiz.open {
			press(m, "esc")
			continue
		}
		frame(m)
	}
}

func TestFramesAdvanceVirtualTimeBySpeed(t *testing.T) {
	m := newModel(t, "boundary-burst")
	frame(m)
	if now := m.runner.now(); now != 50*time.Millisecond {
		t.Fatalf("one frame at 1× covered %v, want 50ms", now)
	}
	press(m, "+")
	press(m, "+") // 5×
	frame(m)
	if now := m.runner.now(); now != 300*time.Millisecond {
		t.Errorf("a frame at 5× took the clock to %v, want 300ms", now)
	}
	stale := FrameMsg{Generation: m.runner.generation - 1}
	m.Update(stale)
	if now := m.runner.now(); now != 300*time.Millisecond {
		t.Errorf("a stale frame moved the clock to %v", now)
	}
	for i := 0; i < 5; i++ {
		press(m, "-")
	}
	if speedName(m.runner.speed) != "0.1×" {
		t.Errorf("five slower steps from 5× gave %s, want the slowest, 0.1×", speedName(m.runner.speed))
	}
	press(m, "m")
	frame(m)
	if now := m.runner.now(); now != 1002*time.Millisecond || !m.quiz.open {
		t.Errorf("one frame at max speed stopped at %v (question open: %v); want the lesson's question at 1.002s", now, m.quiz.open)
	}
	press(m, "esc")
	frame(m)
	if !m.runner.done() || !strings.Contains(screen(m), "■ finished") {
		t.Errorf("the next frame at max speed on a 3 s scenario: done %v; header %q", m.runner.done(), strings.Split(screen(m), "\n")[1])
	}
	if cmd := frame(m); cmd != nil {
		t.Error("a finished run still schedules frames")
	}
}

func TestFrameBudgetKeepsInputResponsive(t *testing.T) {
	m := newModel(t, "tiers") // 140,000 offered requests × 7 lanes
	press(m, "m")
	frame(m)
	if d := m.runner.snap.Decisions; d < FrameBudget || d > FrameBudget+20_000 || m.runner.done() {
		t.Errorf("a max-speed frame made %d decisions (done %v); want the budget, %d, plus at most one tick's worth", d, m.runner.done(), FrameBudget)
	}
}

func TestPauseStepBackAndGoTo(t *testing.T) {
	m := newModel(t, "clock-skew") // tick 50ms, 20 s
	m.runner.manual = false
	gen := m.runner.generation
	if cmd := press(m, "space"); cmd != nil || !m.runner.paused || m.runner.generation == gen {
		t.Fatalf("space: paused %v, generation %d→%d, cmd %v; want paused, a new generation, no frame scheduled", m.runner.paused, gen, m.runner.generation, cmd)
	}
	if !strings.Contains(screen(m), "❚❚ paused") {
		t.Error("the header does not say paused")
	}
	if cmd := frame(m); cmd != nil || m.runner.now() != 0 {
		t.Errorf("a frame while paused ran the clock to %v or scheduled another", m.runner.now())
	}
	span := m.columnSpan()
	seek := func(keys ...string) {
		for _, k := range keys {
			press(m, k)
		}
		for i := 0; m.runner.seeking && i < 1000; i++ {
			frame(m)
		}
	}
	seek(".")
	seek("right")
	if now := m.runner.now(); now != 2*span || !m.runner.paused {
		t.Errorf("two steps while paused: %v (paused %v), want two graph columns, %v", now, m.runner.paused, 2*span)
	}
	seek("left")
	if now := m.runner.now(); now != span {
		t.Errorf("a step back: %v, want one column, %v (replayed from the start)", now, span)
	}
	seek(append([]string{"g"}, strings.Split("12.35s", "")...)...)
	if !strings.Contains(screen(m), "esc cancels): 12.35s") {
		t.Errorf("the prompt does not show what was typed:\n%s", screen(m))
	}
	seek("enter")
	if now := m.runner.now(); now != 12350*time.Millisecond || !m.runner.paused {
		t.Errorf("go to 12.35s: %v (paused %v)", now, m.runner.paused)
	}
	press(m, "g")
	for _, k := range strings.Split("soon", "") {
		press(m, k)
	}
	press(m, "enter")
	if !m.statusBad || !strings.Contains(m.status, `"soon" is not a time`) {
		t.Errorf("a bad time: status %q", m.status)
	}
	if cmd := press(m, "space"); cmd == nil || m.runner.paused {
		t.Error("space again should resume and schedule a frame")
	}
	span = m.columnSpan() // the stretch covered by now: its columns are wider than at the start
	seek(".")
	if now := m.runner.now(); now != 12350*time.Millisecond+span || !m.runner.paused {
		t.Errorf("a step while running: %v (paused %v); want one column on, and paused", now, m.runner.paused)
	}
}

// The whole-run view starts at 0 and covers the run so far; the sliding view
// covers the last stretch.
func TestWholeRunView(t *testing.T) {
	m := newModel(t, "per-instance") // 30 s: a stretch of 10 s
	press(m, "m")
	playToEnd(m)
	if v := m.view(100); v.from < 19*time.Second {
		t.Errorf("the sliding view starts at %v, want the last 10 s", v.from)
	}
	press(m, "w")
	if v := m.view(100); v.from != 0 || v.to() < 29*time.Second {
		t.Errorf("the whole-run view covers %v to %v", v.from, v.to())
	}
}

// A lesson's graph_from keeps its event on screen: before it the graphs
// slide, once the clock passes it they show from there to now (retry-storm's
// glitch at 10 s, graph_from 8 s, still shown at the end of its 40 s).
func TestGraphsKeepTheLessonsEvent(t *testing.T) {
	m := newModel(t, "retry-storm")
	cfg := m.runner.cfg
	if f := cfg.GraphFrom; f == nil || *f != 8*time.Second {
		t.Fatalf("retry-storm's graph_from is %v, want 8s", f)
	}
	if v := viewOf(cfg, cfg.Tick, 5*time.Second, 40, false); v.from != 0 || v.to() > 5*time.Second {
		t.Errorf("at 5 s, before graph_from: the view covers %v to %v, want the run so far", v.from, v.to())
	}
	if v := viewOf(cfg, cfg.Tick, 30*time.Second, 40, false); v.from > 8*time.Second || v.to() < 29*time.Second {
		t.Errorf("at 30 s the view covers %v to %v, want from 8 s (or before) to now", v.from, v.to())
	}
	if v := viewOf(cfg, cfg.Tick, cfg.Duration, 40, false); v.from > 8*time.Second || v.to() < 39*time.Second {
		t.Errorf("at the end the view covers %v to %v, want from 8 s (or before) to the end", v.from, v.to())
	}
	without := *cfg
	without.GraphFrom = nil
	if v := viewOf(&without, cfg.Tick, cfg.Duration, 40, false); v.from < 15*time.Second {
		t.Errorf("without graph_from the view at the end starts at %v: the glitch (10–15 s) would show anyway", v.from)
	}
}

// On screen alone: the fixed window's two full windows 2 ms apart at 1.000 s. In
// columns of one tick (10 ms), the column ending at 1.000 s and the next both hold
// a full window of 100, and the time axis marks the boundary between them.
func TestTwoFullWindowsAtTheBoundary(t *testing.T) {
	m := newModel(t, "boundary-burst")
	m.runner.seek(1100 * time.Millisecond)
	for m.runner.seeking {
		frame(m)
	}
	v := timeView{from: 900 * time.Millisecond, span: 10 * time.Millisecond, n: 20}
	cols := bin(m.runner.snap.Lanes[0].Series, v)
	var before, after column
	for _, c := range cols {
		switch c.end {
		case time.Second:
			before = c
		case 1010 * time.Millisecond:
			after = c
		}
	}
	if before.high != 100 || before.accepted != 100 || after.high != 100 || after.accepted != 100 {
		t.Errorf("around 1.000 s: the column before holds %v (accepted %d), the one after %v (accepted %d); want two full windows of 100",
			before.high, before.accepted, after.high, after.accepted)
	}
	axis := timeAxis(v, boundaries(m.runner.cfg, m.runner.cfg.Lanes[0], v))
	if !strings.Contains(axis, "┴1s") {
		t.Errorf("the time axis does not mark the boundary at 1 s: %q", axis)
	}
	press(m, "enter")
	if s := screen(m); !strings.Contains(s, "┴1s") || !strings.Contains(s, "units in the window (column max)") {
		t.Errorf("the zoomed fixed window does not show the boundary:\n%s", s)
	}
}

func TestRestartAndScenarioSwitching(t *testing.T) {
	m := newModel(t, "boundary-burst")
	frame(m)
	press(m, "r")
	if m.runner.now() != 0 {
		t.Errorf("after restart the clock is at %v", m.runner.now())
	}
	names := m.opts.Catalogue.Names()
	press(m, "n")
	if m.name() != names[1] || !strings.HasPrefix(screen(m), names[1]+" — ") {
		t.Errorf("n opened %s, want the second scenario, %s", m.name(), names[1])
	}
	press(m, "p")
	press(m, "p")
	if last := names[len(names)-1]; m.name() != last {
		t.Errorf("p twice from the second scenario opened %s, want the last, %s", m.name(), last)
	}
	press(m, "s")
	if !m.picker.open || !strings.Contains(screen(m), "Scenarios — enter to open") {
		t.Fatal("s did not open the picker")
	}
	settle(m, press(m, "/"))
	for _, r := range "herd" {
		settle(m, press(m, string(r)))
	}
	if s := screen(m); !strings.Contains(s, "thundering-herd") || strings.Contains(s, "rollover") {
		t.Errorf("filtering for herd shows:\n%s", s)
	}
	settle(m, press(m, "enter")) // accept the filter
	settle(m, press(m, "enter")) // open the scenario
	if m.picker.open || m.name() != "thundering-herd" {
		t.Errorf("picking thundering-herd opened %s (picker open: %v)", m.name(), m.picker.open)
	}
	press(m, "s")
	press(m, "esc")
	if m.picker.open {
		t.Error("esc did not close the picker")
	}
}

func TestFocusZoomAndHelp(t *testing.T) {
	m := newModel(t, "boundary-burst")
	press(m, "m")
	playToEnd(m)
	press(m, "tab")
	press(m, "tab")
	if m.focus != 2 || !strings.Contains(screen(m), "sliding-counter for api-key-1: 429 denied") {
		t.Errorf("focus %d; want 2, sliding-counter, and its headers shown", m.focus)
	}
	press(m, "shift+tab")
	press(m, "shift+tab")
	press(m, "shift+tab")
	if m.focus != 6 {
		t.Errorf("shift+tab three times from 2 gave %d, want 6 (wrapping)", m.focus)
	}
	press(m, "enter")
	if s := screen(m); !m.zoom || !strings.Contains(s, "accepted per column") || !strings.Contains(s, "x-time-rate  accepted 100") {
		t.Errorf("enter did not zoom x-time-rate:\n%s", s)
	}
	press(m, "esc")
	press(m, "?")
	if !strings.Contains(screen(m), "one graph column forward") {
		t.Error("? did not show every key")
	}
	press(m, "esc")
	if m.help.open || m.zoom {
		t.Error("? again (after esc) should leave help and zoom")
	}
}

func TestBurstAndRateKeysRestartWithTheNewPolicy(t *testing.T) {
	m := newModel(t, "boundary-burst") // 100 per 1s, burst 100
	frame(m)
	press(m, "]")
	if p := m.runner.cfg.Tiers[0].Policy; p.Burst != 150 || p.Limit != 100 || m.runner.now() != 0 {
		t.Errorf("] gave %s at %v; want burst 150, restarted", p, m.runner.now())
	}
	press(m, "{")
	if p := m.runner.cfg.Tiers[0].Policy; p.Limit != 75 {
		t.Errorf("{ gave %s; want limit 75", p)
	}
	if s := screen(m); !strings.Contains(s, "75 per 1s, burst 150 (adjusted)") {
		t.Errorf("the header does not show the adjusted policy:\n%s", strings.Split(s, "\n")[1])
	}
	press(m, "n")
	own, _ := m.opts.Catalogue.Compile(m.name(), scenarios.Overrides{})
	if p := m.runner.cfg.Tiers[0].Policy; p != own.Tiers[0].Policy {
		t.Errorf("a new scenario keeps an adjustment: %s, want its own %s", p, own.Tiers[0].Policy)
	}

	// a burst below a request's cost is refused, with the reason
	m = newModel(t, "llm-cost") // burst 20,000, costs up to 18,000
	press(m, "]")
	press(m, "[")
	if p := m.runner.cfg.Tiers[0].Policy; p.Burst != 20000 {
		t.Fatalf("] then [ on burst 20000 gave %d", p.Burst)
	}
	press(m, "[")
	if p := m.runner.cfg.Tiers[0].Policy; p.Burst != 20000 || !m.statusBad || !strings.Contains(m.status, "more than lane \"token-bucket\"'s burst of 15000") {
		t.Errorf("burst 15000 under costs of 18000: policy %s, status %q", p, m.status)
	}
}

func TestExportWritesTheRunSoFar(t *testing.T) {
	m := newModel(t, "boundary-burst")
	seekTo(m, 1250*time.Millisecond) // past the burst (and its question)
	cmd := press(m, "e")
	if cmd == nil || !strings.Contains(screen(m), "exporting the CSVs…") {
		t.Fatal("e did not start an export")
	}
	m.Update(cmd())
	want := filepath.Join(m.opts.ExportDir, "boundary-burst-seed1-requests.csv")
	if m.statusBad || !strings.Contains(screen(m), "exported 1.250s of the run to "+want) {
		t.Fatalf("status after export: %q", m.status)
	}
	rows, _ := os.ReadFile(want)
	lines := strings.Split(strings.TrimSpace(string(rows)), "\n")
	if lines[0] != "time_ms,lane,algorithm,backend,client,node,key,request_id,attempt,cost,allowed,remaining,retry_after_ms,decided_at_ms,admitted_at_ms,queue_delay_ms,outcome,latency_ms,wasted,rule,also_refusing" || len(lines) != 1+7*320 {
		t.Errorf("exported %d rows (header %q); want the 320 decisions of each of 7 lanes", len(lines)-1, lines[0])
	}
	series, _ := os.ReadFile(filepath.Join(m.opts.ExportDir, "boundary-burst-seed1-series.csv"))
	if n := strings.Count(string(series), "\n"); n != 1+1250*7 {
		t.Errorf("series has %d lines, want a header and 1,250 ticks of 1 ms × 7 lanes", n)
	}

	m.export.dir = filepath.Join(m.opts.ExportDir, "missing")
	m.Update(press(m, "e")())
	if !m.statusBad || !strings.Contains(screen(m), "export failed: cannot write") && !strings.Contains(m.status, "cannot be written") {
		t.Errorf("export to a missing folder: status %q", m.status)
	}
}

func TestResizeAndTinyTerminals(t *testing.T) {
	m := newModel(t, "boundary-burst")
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	if s := screen(m); !strings.Contains(s, "needs a terminal of at least 80×24; this one is") || !strings.Contains(s, "60×20") {
		t.Errorf("60×20:\n%s", s)
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	s := screen(m)
	if lines := strings.Split(s, "\n"); len(lines) > 24 || !strings.Contains(s, "▸ fixed-window") || !strings.Contains(s, "x-time-rate") {
		t.Errorf("80×24 should show a compact line per lane in 24 lines; got %d lines:\n%s", len(lines), s)
	}
	for _, line := range strings.Split(s, "\n") {
		if w := ansi.StringWidth(line); w > 80 {
			t.Errorf("a line of %d cells at 80 wide: %q", w, line)
		}
	}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	s = screen(m)
	if lines := strings.Split(s, "\n"); len(lines) > 48 || strings.Count(s, "╭") != 7 || !strings.Contains(s, "space pause/resume") {
		t.Errorf("160×48 should show 7 panels and the help bar in 48 lines; got %d lines, %d panels", len(lines), strings.Count(s, "╭"))
	}
}

func TestColoursFollowTheBackground(t *testing.T) {
	m := newModel(t, "boundary-burst")
	dark := m.View().Content
	m.Update(tea.BackgroundColorMsg{Color: color.White})
	if m.isDark || m.View().Content == dark {
		t.Error("a light background did not change the colours")
	}
	if ansi.Strip(m.View().Content) != ansi.Strip(dark) {
		t.Error("the background changed more than the colours")
	}
}

func TestQuitAndUnknownScenario(t *testing.T) {
	m := newModel(t, "boundary-burst")
	for _, k := range []string{"q", "ctrl+c"} {
		if cmd := press(m, k); cmd == nil || cmd() != tea.Quit() {
			t.Errorf("%s did not quit", k)
		}
	}
	if _, err := New(Options{Catalogue: catalogue(t), Scenario: "nope"}); err == nil || !strings.Contains(err.Error(), `unknown scenario "nope"`) {
		t.Errorf("an unknown scenario: %v", err)
	}
}

func TestLadder(t *testing.T) {
	for _, tc := range []struct {
		v    int64
		dir  int
		want int64
	}{{100, 1, 150}, {100, -1, 75}, {1, -1, 1}, {1, 1, 2}, {8, 1, 10}, {20000, -1, 15000}, {7, 1, 8}, {7, -1, 5}} {
		if got := ladderStep(tc.v, tc.dir); got != tc.want {
			t.Errorf("ladderStep(%d, %d) = %d, want %d", tc.v, tc.dir, got, tc.want)
		}
	}
}

// A panel's counters always fit: on retry-storm, where every limited lane has
// backend errors, each lane's error count is on screen (the name gives way, and
// where even the short name does not fit, the counters' labels: d… e…).
func TestPanelCountersFit(t *testing.T) {
	m := newModel(t, "retry-storm")
	press(m, "m")
	playToEnd(m)
	s := screen(m)
	for _, met := range m.runner.snap.Metrics {
		labelled := "den " + compact(met.Denied) + " err " + compact(met.Errors) + " │"
		bare := "d" + compact(met.Denied) + " e" + compact(met.Errors) + " │"
		if met.Errors > 0 && !strings.Contains(s, labelled) && !strings.Contains(s, bare) {
			t.Errorf("lane %s: its counters (err %s) are cut off:\n%s", met.Lane, compact(met.Errors), s)
		}
	}
}

// A result of a run that is no longer shown is dropped: a frame still running
// when r restarts the run, and arriving after, leaves the new run at its start.
// A frame of an older generation (sent before a pause) does nothing.
func TestStaleResultsAreDropped(t *testing.T) {
	m := newModel(t, "boundary-burst")
	frame(m)
	frame(m)
	_, late := m.Update(FrameMsg{Generation: m.runner.generation})
	old := m.runner.eng
	press(m, "r")
	if m.runner.eng == old || m.runner.now() != 0 {
		t.Fatalf("r: engine %d (was %d), at %v", m.runner.eng.id, old.id, m.runner.now())
	}
	m.Update(late())
	if now := m.runner.now(); now != 0 {
		t.Errorf("the old run's late frame moved the restarted run to %v", now)
	}
	gen := m.runner.generation
	press(m, "space")
	if _, cmd := m.Update(FrameMsg{Generation: gen}); cmd != nil {
		t.Error("a frame sent before the pause advanced the run")
	}
}

// A product lane's focused line says what the product answers and logs, not
// ratelab's 429: nginx's 503 REJECTED, 200 DELAYED with its wait, and that it
// sends no rate-limit headers.
func TestFocusedProductLaneSaysTheProductsAnswer(t *testing.T) {
	m := newModel(t, "nginx-burst")
	press(m, "g")
	for _, r := range "1.5s" {
		press(m, string(r))
	}
	press(m, "enter")
	for m.runner.seeking {
		frame(m)
	}
	frame(m)
	// the burst's last request at 1 s, refused by burst=10: passes again when
	// the excess has drained to the burst, 100 ms later
	if s := screen(m); !strings.Contains(s, "nginx burst=10 for page: 503 REJECTED, passes again in 100") || !strings.Contains(s, "nginx sends no RateLimit headers") {
		t.Errorf("the focused nginx lane's line:\n%s", s)
	}
	press(m, "tab")
	press(m, "tab")
	press(m, "tab") // the leaky bucket: ratelab's own words
	if s := screen(m); !strings.Contains(s, "leaky-bucket for page: 429 denied") {
		t.Errorf("the leaky bucket's line:\n%s", s)
	}
}

// A scenario's staged outage shows on the lanes in memory: "store down" on each
// panel while it lasts, and the verdict's count of decisions made without it.
func TestStagedOutageShows(t *testing.T) {
	m := newModel(t, "store-down")
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	frame(m)
	press(m, "space")
	seek := func(to string) {
		for _, k := range append([]string{"g"}, append(strings.Split(to, ""), "enter")...) {
			press(m, k)
		}
		for i := 0; m.runner.seeking && i < 5000; i++ {
			frame(m)
		}
	}
	seek("25s")
	if s := screen(m); strings.Count(s, "store down") != 2 || strings.Contains(s, "redis unavailable") {
		t.Errorf("at 25 s, in the outage, both lanes should say store down:\n%s", s)
	}
	seek("35s")
	if s := screen(m); strings.Contains(s, "store down") {
		t.Errorf("at 35 s the store is up again:\n%s", s)
	}
}

// quits says cmd (run as the runtime would, a batch's every command) asks the
// program to quit; a command that does not answer in 100 ms is a timer, and
// does not.
func quits(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	answer := make(chan tea.Msg, 1)
	go func() { answer <- cmd() }()
	select {
	case msg := <-answer:
		switch msg := msg.(type) {
		case tea.QuitMsg:
			return true
		case tea.BatchMsg:
			for _, c := range msg {
				if quits(c) {
					return true
				}
			}
		}
	case <-time.After(100 * time.Millisecond):
	}
	return false
}

// In the scenario picker every letter is the filter's: none quits the
// program (the list binds q and v to quit); ctrl+c still does.
func TestPickerLettersDoNotQuit(t *testing.T) {
	m := newModel(t, "boundary-burst")
	press(m, "s")
	if !m.picker.open {
		t.Fatal("s did not open the picker")
	}
	for _, k := range []string{"v", "q", "j", "v"} {
		if quits(press(m, k)) {
			t.Fatalf("%q in the picker quit the program", k)
		}
	}
	if !m.picker.open {
		t.Error("the picker closed on a letter")
	}
	if !quits(press(m, "ctrl+c")) {
		t.Error("ctrl+c in the picker did not quit")
	}
}
