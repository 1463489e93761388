package ui

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"ratelab/scenarios"
)

// playToQuestion runs frames until a question is asked (or the run ends).
func playToQuestion(t *testing.T, m *Model) {
	t.Helper()
	for i := 0; !m.quiz.open && !m.runner.done() && i < 100_000; i++ {
		frame(m)
	}
	if !m.quiz.open {
		t.Fatalf("no question was asked; the run is at %v", m.runner.now())
	}
}

// words is the screen's text as one line of words, the box's borders left out:
// a sentence wrapped over lines reads whole.
func words(m *Model) string {
	var out []string
	for _, line := range strings.Split(screen(m), "\n") {
		line = strings.TrimSpace(line)
		line = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(line, "│"), "│"))
		out = append(out, strings.Fields(line)...)
	}
	return strings.Join(out, " ")
}

// typeText presses each character of s.
func typeText(m *Model, s string) {
	for _, r := range s {
		press(m, string(r))
	}
}

// Playing, the run stops at the question's instant, pauses, hides the lanes and
// asks; digits are typed (other keys are not), enter shows the run's answer,
// whether it was right and by how much, the claim that proves it and where to
// see it; any key then goes on, the run playing on as it was.
func TestQuestionPausesAtItsInstantAndAsks(t *testing.T) {
	m := newModel(t, "boundary-burst")
	playToQuestion(t, m)
	s := screen(m)
	if now := m.runner.now(); now != 1002*time.Millisecond || !m.runner.paused {
		t.Errorf("asked at %v (paused %v); want 1.002s, paused", now, m.runner.paused)
	}
	for _, want := range []string{"Predict, then see — question 1 of 1, at 1.002s", "How many of these 320 requests does the fixed window accept", "your answer:", "enter answer · esc skip"} {
		if !strings.Contains(words(m), want) {
			t.Errorf("the question's screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "acc 200") || strings.Contains(s, "offered") {
		t.Errorf("the lanes show while the question is asked:\n%s", s)
	}
	typeText(m, "1x5r0") // x and r are not part of a number: nothing is typed, nothing restarts
	if s := screen(m); !strings.Contains(s, "your answer: 150") || m.runner.now() != 1002*time.Millisecond {
		t.Fatalf("typed 1x5r0: the screen shows\n%s", s)
	}
	press(m, "enter")
	s = screen(m)
	for _, want := range []string{
		"✗ Not quite: 200. You said 150: 50 under, 25% low.",
		"The proof: [fw-200] ✓ the fixed window accepts 200 of the 320 requests at 0.999 s and 1.001 s (accepted: fixed-window 200 == 200).",
		"See it: the fixed window's panel",
		"enter zooms the answer · any other key goes on",
	} {
		if !strings.Contains(words(m), want) {
			t.Errorf("the answer's screen lacks %q:\n%s", want, s)
		}
	}
	focus := m.focus
	press(m, "tab") // any key goes on; it does nothing else
	if m.quiz.open || m.runner.paused || m.focus != focus {
		t.Errorf("after the answer, a key: question open %v, paused %v, focus %d→%d; want closed, playing on, the focus kept", m.quiz.open, m.runner.paused, focus, m.focus)
	}
	if !strings.Contains(m.status, "see it: the fixed window's panel") {
		t.Errorf("the status line does not say where to see it: %q", m.status)
	}
	frame(m)
	if now := m.runner.now(); now != 1052*time.Millisecond || m.quiz.open {
		t.Errorf("the next frame: at %v, question open %v; want 1.052s and no question", now, m.quiz.open)
	}

	// right, from a restart: asked again
	press(m, "r")
	playToQuestion(t, m)
	typeText(m, "2")
	press(m, "backspace")
	typeText(m, "200")
	press(m, "enter")
	if !strings.Contains(words(m), "✓ Right: 200. You said 200.") {
		t.Errorf("200, after a restart:\n%s", screen(m))
	}
}

// Enter after the answer zooms the lane the answer points at, at the
// question's instant, the run paused there: the zoom's columns resolve the
// 2 ms of the boundary burst (graph_from and a 1 ms tick), 100 accepted on
// each side of the boundary.
func TestQuestionEnterZoomsTheAnswerWhereItHappens(t *testing.T) {
	m := newModel(t, "boundary-burst")
	playToQuestion(t, m)
	typeText(m, "200")
	press(m, "enter")
	press(m, "enter")
	if m.quiz.open || !m.runner.paused || !m.zoom || m.runner.cfg.Lanes[m.focus].Name != "fixed-window" || m.runner.now() != 1002*time.Millisecond {
		t.Fatalf("enter after the answer: question open %v, paused %v, zoomed %v on %s at %v; want the fixed window zoomed, paused at 1.002s",
			m.quiz.open, m.runner.paused, m.zoom, m.runner.cfg.Lanes[m.focus].Name, m.runner.now())
	}
	if span := m.view(max(2, m.width-axisWidth-2)).span; span > time.Millisecond {
		t.Errorf("the zoom's columns span %v; the 2 ms burst needs 1 ms", span)
	}
	s := screen(m)
	if !strings.Contains(s, "accepted per column of 1.0ms") || !strings.Contains(m.status, "space plays on") {
		t.Errorf("the zoom at the question's instant:\n%s\nstatus %q", s, m.status)
	}
	press(m, "space") // plays on: the pointer at the paused instant goes
	if m.runner.paused || strings.Contains(screen(m), "see it:") {
		t.Errorf("space after the zoom: paused %v, status %q", m.runner.paused, m.status)
	}
}

// What enter does not take: nothing typed, or not a number, says what to type
// and keeps asking.
func TestQuestionRefusesWhatIsNotAnAnswer(t *testing.T) {
	m := newModel(t, "boundary-burst")
	playToQuestion(t, m)
	press(m, "enter")
	if !m.quiz.open || m.quiz.answered || !strings.Contains(screen(m), "type a number, like 200, 1,500 or 25%; esc skips") {
		t.Errorf("enter on nothing:\n%s", screen(m))
	}
	typeText(m, "1.2.3")
	press(m, "enter")
	if m.quiz.answered {
		t.Error("1.2.3 was taken as a number")
	}
	if _, cmd := m.Update(keyPress("q")); cmd == nil || cmd() != tea.Quit() {
		t.Error("q does not quit while a question is asked")
	}
}

// esc skips a question unanswered and the run goes on; a seek (g, ←) past a
// question does not ask it; going back before it and playing asks it again; a
// step (.) stops at it and asks it, and the run stays paused after.
func TestQuestionSkipSeekAndStep(t *testing.T) {
	m := newModel(t, "boundary-burst")
	playToQuestion(t, m)
	press(m, "esc")
	if m.quiz.open || m.runner.paused || !strings.Contains(m.status, "skipped the question at 1.002s") {
		t.Errorf("esc: question open %v, paused %v, status %q", m.quiz.open, m.runner.paused, m.status)
	}
	playToEnd(m)

	// go back before it (g), play: asked again
	seekTo(m, 900*time.Millisecond)
	if m.quiz.open {
		t.Fatal("a seek back asked the question")
	}
	press(m, "space")
	playToQuestion(t, m)
	if now := m.runner.now(); now != 1002*time.Millisecond {
		t.Errorf("after going back, asked at %v", now)
	}
	press(m, "esc")

	// a seek past it from before it: not asked, then or on playing on
	seekTo(m, 500*time.Millisecond)
	seekTo(m, 2*time.Second)
	if m.quiz.open || m.runner.now() != 2*time.Second {
		t.Fatalf("g 2s from 0.5s: question open %v at %v", m.quiz.open, m.runner.now())
	}
	press(m, "space")
	playToEnd(m)
	if m.quiz.open {
		t.Error("playing on after a seek past the question asked it")
	}

	// ← from after it to before it, then a step forward over it: stops there
	seekTo(m, 1100*time.Millisecond)
	for m.runner.now() > 990*time.Millisecond {
		press(m, "left")
		for i := 0; m.runner.seeking && i < 1000; i++ {
			frame(m)
		}
	}
	if m.quiz.open {
		t.Fatal("← asked the question")
	}
	// steps of a column each (1 ms here, once past graph_from) until one
	// passes over 1.002s
	for step := 0; !m.quiz.open && m.runner.now() < 1002*time.Millisecond && step < 50; step++ {
		press(m, ".")
		for i := 0; m.runner.seeking && i < 1000; i++ {
			frame(m)
		}
	}
	if !m.quiz.open || m.runner.now() != 1002*time.Millisecond {
		t.Fatalf("a step over 1.002s: question open %v at %v", m.quiz.open, m.runner.now())
	}
	typeText(m, "200")
	press(m, "enter")
	press(m, "x")
	if m.quiz.open || !m.runner.paused {
		t.Errorf("answered after a step: question open %v, paused %v; want closed and still paused", m.quiz.open, m.runner.paused)
	}
}

// A question of ranges: a letter or ↑ ↓ picks, enter answers; the right choice
// is marked ✓ and a wrong pick ✗.
func TestQuestionOfChoices(t *testing.T) {
	m := newModel(t, "thundering-herd")
	press(m, "m")
	playToQuestion(t, m)
	if now := m.runner.now(); now != 6020*time.Millisecond {
		t.Errorf("asked at %v, want 6.020s", now)
	}
	press(m, "enter")
	if !strings.Contains(screen(m), "pick a choice: a to d (or ↑ ↓), then enter; esc skips") {
		t.Errorf("enter with nothing picked:\n%s", screen(m))
	}
	press(m, "z") // not a choice
	press(m, "b")
	press(m, "down")
	press(m, "down")
	press(m, "up")
	if m.quiz.pick != 2 || !strings.Contains(screen(m), "▸ c) 1,000 to 1,999") {
		t.Errorf("b, down, down, up picked %d:\n%s", m.quiz.pick, screen(m))
	}
	press(m, "a")
	press(m, "enter")
	s := words(m)
	for _, want := range []string{"✗ a) under 200", "✓ c) 1,000 to 1,999", "✗ Not quite: c) 1,000 to 1,999 — the run: 1670. You said a) under 200.", "The proof: [herd-6s] ✓"} {
		if !strings.Contains(s, want) {
			t.Errorf("the answer's screen lacks %q:\n%s", want, screen(m))
		}
	}
}

// A question of lanes: the right one is the lane on which the claim holds,
// each lane shown with its value.
func TestQuestionOfLanes(t *testing.T) {
	m := newModel(t, "retry-storm")
	press(m, "m")
	playToQuestion(t, m)
	if !m.runner.done() {
		t.Errorf("asked at %v, want the end, 40s", m.runner.now())
	}
	press(m, "d")
	press(m, "enter")
	s := words(m)
	for _, want := range []string{"✓ Right: d) leaky-bucket. You said d) leaky-bucket.", "✓ d) leaky-bucket attempts/offered 7.99", "b) gcra attempts/offered 1", "The proof: [leaky-storm] ✓"} {
		if !strings.Contains(s, want) {
			t.Errorf("the answer's screen lacks %q:\n%s", want, screen(m))
		}
	}
}

// A question open at any size, through resizes, draws within the screen.
func TestQuestionAtEverySize(t *testing.T) {
	c := catalogue(t)
	for _, name := range []string{"boundary-burst", "thundering-herd"} {
		d := newDriver(t, c, name)
		d.size(120, 40)
		d.key("m")
		for i := 0; !d.m.quiz.open && i < 1000; i++ {
			d.frame()
		}
		for _, answered := range []bool{false, true} {
			if answered {
				d.key("c")
				d.key("1")
				d.key("enter")
			}
			for _, sz := range [][2]int{{80, 24}, {20, 5}, {79, 23}, {200, 60}, {81, 25}, {1, 1}, {100, 30}, {80, 24}} {
				d.size(sz[0], sz[1])
				d.view()
			}
		}
		if !d.m.quiz.answered {
			t.Errorf("%s: not answered", name)
		}
	}
}

// The question at 80×24, asked and answered, as drawn. Rewrite with go test ./ui
// -run QuestionGolden -update, and read the diff.
func TestQuestionGolden(t *testing.T) {
	m := newModel(t, "boundary-burst")
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	playToQuestion(t, m)
	t.Run("asked", func(t *testing.T) { golden.RequireEqual(t, []byte(m.View().Content)) })
	typeText(m, "150")
	press(m, "enter")
	t.Run("answered", func(t *testing.T) { golden.RequireEqual(t, []byte(m.View().Content)) })
	for _, line := range strings.Split(ansi.Strip(m.View().Content), "\n") {
		if w := ansi.StringWidth(line); w > 80 {
			t.Errorf("a line of %d cells: %q", w, line)
		}
	}
}

// The lesson page (l) lists the questions the run has passed, with its answers,
// and none it has not reached.
func TestLessonPageListsTheQuestionsPassed(t *testing.T) {
	m := newModel(t, "boundary-burst")
	press(m, "l")
	if s := screen(m); strings.Contains(s, "Questions the run has passed") {
		t.Errorf("at 0s the lesson page lists questions:\n%s", s)
	}
	press(m, "l")
	seekTo(m, 2*time.Second)
	press(m, "l")
	for i := 0; i < 60; i++ {
		press(m, "down")
	}
	if s := words(m); !strings.Contains(s, "Questions the run has passed ? at 1.002s: 140 requests arrived") || !strings.Contains(s, "→ 200 (the claim [fw-200] ✓)") {
		t.Errorf("at 2s the lesson page does not list the question at 1.002s:\n%s", screen(m))
	}
}

// Questions at one instant are asked one after another, numbered in the order
// asked; the run goes on after the last, and stops again at the next.
func TestQuestionsAtOneInstant(t *testing.T) {
	doc := `[[scenario]]
name = "q"
duration = "3s"
[scenario.policy]
limit = 10
[[scenario.client]]
name = "c"
pattern = "constant"
rate = 20
[[scenario.claim]]
id = "acc"
says = "s"
lane = "fixed-window"
metric = "accepted"
op = "=="
value = 10
from = "0s"
to = "1s"
[[scenario.question]]
at = "2s"
ask = "Third?"
claim = "acc"
show = "here"
[[scenario.question]]
at = "1s"
ask = "First?"
claim = "acc"
show = "here"
[[scenario.question]]
at = "1s"
ask = "Second?"
claim = "acc"
choices = ["under 10", "10 or more"]
show = "there"
`
	c, err := scenarios.Parse(scenarios.FSSource(fstest.MapFS{"q.toml": {Data: []byte(doc)}}, "q.toml"), []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Catalogue: c, ExportDir: t.TempDir(), ManualFrames: true})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	playToQuestion(t, m)
	if s := words(m); !strings.Contains(s, "question 1 of 3, at 1.000s First?") {
		t.Fatalf("the first question:\n%s", screen(m))
	}
	typeText(m, "10")
	press(m, "enter")
	press(m, "x")
	if s := words(m); !m.quiz.open || !strings.Contains(s, "question 2 of 3, at 1.000s Second?") || m.runner.now() != time.Second {
		t.Fatalf("after the first, at %v:\n%s", m.runner.now(), screen(m))
	}
	press(m, "esc")
	if m.quiz.open || m.runner.paused || !strings.Contains(m.status, "skipped the question at 1.000s") {
		t.Fatalf("after the second: question open %v, paused %v, status %q", m.quiz.open, m.runner.paused, m.status)
	}
	playToQuestion(t, m)
	if s := words(m); !strings.Contains(s, "question 3 of 3, at 2.000s Third?") || m.runner.now() != 2*time.Second {
		t.Errorf("the third, at %v:\n%s", m.runner.now(), screen(m))
	}
}

// A question the run reaches while the picker is open waits for it: the keys
// typed go to the picker's filter, not into the question, and closing the
// picker asks it. Until then the lesson and the title's numbers stay hidden, in
// the picker too.
func TestQuestionWaitsForThePicker(t *testing.T) {
	m := newModel(t, "boundary-burst")
	press(m, "s")
	if !m.picker.open {
		t.Fatal("s did not open the picker")
	}
	if s := screen(m); strings.Contains(s, "200 requests in 2 ms") || !strings.Contains(s, "1 basics · Boundary burst: … requests in … ms") {
		t.Errorf("the picker gives boundary-burst's answer away, or hides its part's number:\n%s", s)
	}
	for i := 0; i < 200 && m.runner.now() < 1002*time.Millisecond; i++ {
		frame(m)
	}
	if m.runner.now() < 1002*time.Millisecond || !m.runner.questionDue() {
		t.Fatalf("the run did not reach its question behind the picker: at %v", m.runner.now())
	}
	if m.quiz.open || !m.picker.open {
		t.Fatalf("the question took over the open picker")
	}
	press(m, "esc")
	if m.picker.open || !m.quiz.open {
		t.Fatalf("closing the picker did not ask the question the run had reached (picker %v, question %v)", m.picker.open, m.quiz.open)
	}
}

// A question answered hides nothing any more: after a seek back before it, the
// title's numbers and the lesson still show (a skipped one hides them again, to
// be asked again).
func TestAnsweredQuestionHidesNothingAfterASeekBack(t *testing.T) {
	for _, answer := range []bool{true, false} {
		m := newModel(t, "boundary-burst")
		playToQuestion(t, m)
		if answer {
			typeText(m, "200")
			press(m, "enter")
			press(m, "x")
		} else {
			press(m, "esc")
		}
		seekTo(m, 500*time.Millisecond)
		s := screen(m)
		hidden := strings.Contains(s, "The lesson is hidden") || strings.Contains(s, "Boundary burst: … requests")
		if answer && hidden {
			t.Errorf("answered, then a seek back to 0.5s: the lesson or the title's numbers are hidden again:\n%s", s)
		}
		if !answer && !hidden {
			t.Errorf("skipped, then a seek back to 0.5s: the question to come is not hidden:\n%s", s)
		}
	}
}

// A question answered stays answered when the scenario is left and opened
// again: its title's numbers and its lesson show, in the run and in the
// picker; a scenario not answered still hides them.
func TestAnsweredStaysAnsweredAcrossScenarios(t *testing.T) {
	m := newModel(t, "boundary-burst")
	playToQuestion(t, m)
	typeText(m, "200")
	press(m, "enter")
	press(m, "esc") // goes on
	item := func(name string) string {
		for _, it := range m.picker.list.Items() {
			if i := it.(scenarioItem); i.s.Name == name {
				return i.Description()
			}
		}
		t.Fatalf("no %s in the picker", name)
		return ""
	}
	if d := item("boundary-burst"); !strings.Contains(d, "200 requests in 2 ms") || strings.Contains(d, "predict") {
		t.Errorf("the picker hides an answered scenario's title: %q", d)
	}
	for _, it := range m.picker.list.Items() {
		if i := it.(scenarioItem); i.s.Name != "boundary-burst" && len(i.s.Questions) > 0 && !strings.Contains(i.Description(), "asks you to predict") {
			t.Errorf("%s, not answered, shows its title and lesson: %q", i.s.Name, i.Description())
		}
	}
	press(m, "n") // the next scenario
	if m.name() == "boundary-burst" {
		t.Fatal("n did not open another scenario")
	}
	for name := m.name(); m.name() == name; {
		press(m, "p")
	}
	if m.name() != "boundary-burst" {
		t.Fatalf("p opened %s, want boundary-burst back", m.name())
	}
	if _, pending := m.pendingQuestion(); pending || !strings.Contains(m.shownTitle(), "200 requests in 2 ms") {
		t.Errorf("opened again, boundary-burst hides its answered question's numbers: title %q", m.shownTitle())
	}
}
