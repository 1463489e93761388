package ui

// What a teacher relies on: claims marked for the run so far, seeking that lands
// where it says, and columns that keep a window boundary between them.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// Before the run's end the claims are marked for the run so far, and a claim about
// a stretch that has not begun is marked … rather than ✓: retry-storm's
// [limits-recover] ("from 20 s on … refuse under one attempt in twenty") holds vacuously at
// 13 s, with nothing to judge it on.
func TestClaimsBeforeTheirStretchAreNotBegun(t *testing.T) {
	m := newModel(t, "retry-storm")
	m.runner.seek(13 * time.Second)
	for m.runner.seeking {
		frame(m)
	}
	s := screen(m)
	if !strings.Contains(s, "claims so far, at 13.000s of 40.000s") || !strings.Contains(s, "not begun (marked …)") {
		t.Errorf("at 13 s the claims line does not say the counts are of the run so far:\n%s", s)
	}
	// its question at 40 s hides the lesson until L
	if !strings.Contains(s, "The lesson is hidden until you answer its question at 40.000s") {
		t.Errorf("at 13 s, before retry-storm's question, the lesson is not hidden:\n%s", s)
	}
	press(m, "L")
	press(m, "l")
	page := strings.Join(strings.Fields(strings.Join(m.lessonLines(m.width), " ")), " ") // unwrapped
	if !strings.Contains(page, "[limits-recover …]") {
		t.Errorf("at 13 s the claim about 20 s on is not marked as not begun:\n%s", page)
	}
	if !strings.Contains(page, "… from 20 s on the fixed window, the sliding counter and the buckets refuse under one attempt in twenty") || !strings.Contains(page, "its stretch has not begun") {
		t.Errorf("the lesson page does not say the claim's stretch has not begun:\n%s", page)
	}
	press(m, "l")

	m.runner.seek(40 * time.Second)
	for m.runner.seeking {
		frame(m)
	}
	s = screen(m)
	n := len(m.runner.cfg.Claims)
	if !strings.Contains(s, fmt.Sprintf("claims: %d of %d hold on this run", n, n)) {
		t.Errorf("at the run's end every claim is judged and holds:\n%s", s)
	}
	press(m, "l")
	page = ansi.Strip(strings.Join(strings.Fields(strings.Join(m.lessonLines(m.width), " ")), " "))
	if strings.Contains(page, "…]") || !strings.Contains(page, "[limits-recover ✓]") {
		t.Errorf("at the run's end the lesson page marks a claim not judged, or not held:\n%s", page)
	}
}

// The go-to prompt's "going to" status gives way to where the run is once there.
func TestGoToSaysWhereItArrived(t *testing.T) {
	m := newModel(t, "boundary-burst")
	press(m, "g")
	for _, r := range "1.5s" {
		press(m, string(r))
	}
	press(m, "enter")
	if m.status != "going to 1.500s (replayed from the start when it is earlier)" {
		t.Fatalf("after enter the status does not say where it goes: %q", m.status)
	}
	for m.runner.seeking {
		frame(m)
	}
	frame(m)
	if s := screen(m); strings.Contains(s, "going to") || !strings.Contains(s, "at 1.500s, paused") {
		t.Errorf("once there the status still says going to, or not where it is:\n%s", s)
	}
}

// A time past the run's end goes to the end, and says so: the time typed is
// not taken silently for another.
func TestGoToPastTheEndSaysSo(t *testing.T) {
	m := newModel(t, "boundary-burst")
	press(m, "g")
	typeText(m, "999h")
	press(m, "enter")
	if want := "going to 3.000s, the run's end (999h0m0s is past it)"; m.status != want {
		t.Fatalf("after enter the status is %q, want %q", m.status, want)
	}
	for m.runner.seeking {
		frame(m)
	}
	frame(m)
	if got := m.runner.now(); got != m.runner.cfg.Duration {
		t.Errorf("the run is at %v, want its end %v", got, m.runner.cfg.Duration)
	}
}

// ← pressed twice before the first step back has replayed goes two columns back,
// not back from the replay's clock at 0.
func TestBackTwiceDuringTheReplay(t *testing.T) {
	m := newModel(t, "boundary-burst")
	m.runner.seek(2500 * time.Millisecond)
	for m.runner.seeking {
		frame(m)
	}
	span := m.columnSpan()
	press(m, "left")
	press(m, "left") // the replay of the first has not run a frame yet
	for m.runner.seeking {
		frame(m)
	}
	if got, want := m.runner.now(), 2500*time.Millisecond-2*span; got != want {
		t.Errorf("two steps back from 2.5 s (columns of %v) reached %v, want %v", span, got, want)
	}
}

// Whatever the graph's width, a column edge falls on every whole second, so a
// 1 s window's boundary is never inside a column (boundary-burst's two windows
// would merge into one column of 200).
func TestColumnEdgesOnWholeSeconds(t *testing.T) {
	m := newModel(t, "boundary-burst")
	for n := 4; n <= 260; n++ {
		for _, whole := range []bool{false, true} {
			v := viewOf(m.runner.cfg, m.runner.cfg.Tick, 2500*time.Millisecond, n, whole)
			if v.span <= time.Second && time.Second%v.span != 0 || v.span > time.Second && v.span%time.Second != 0 || v.from%v.span != 0 {
				t.Errorf("%d columns (whole %v): span %v from %v, not aligned to whole seconds", n, whole, v.span, v.from)
			}
		}
	}
}

// At the very start nothing has been sent: a claim whose figures are a ratio
// over nothing counted is not yet judged (…), not failed (✗); at the run's end
// every claim is ✓ or ✗.
func TestClaimsWithNothingCountedAreNotBegun(t *testing.T) {
	m := newModel(t, "boundary-burst")
	frame(m)
	s := screen(m)
	if strings.Contains(s, "✗]") {
		t.Errorf("at %s, before any request, a claim is marked failed:\n%s", m.runner.now(), s)
	}
	playToEnd(m)
	s = screen(m)
	if strings.Contains(s, "…]") {
		t.Errorf("at the run's end a claim is still marked not begun:\n%s", s)
	}
}

// A scenario picked opens at 1×, whatever speed the last was played at: at max
// it would open finished, at 100× a long one would race past.
func TestPickingPlaysAtOne(t *testing.T) {
	for _, c := range []struct {
		keys []string
		want int
	}{{[]string{"m"}, speedOne}, {[]string{"+", "+"}, speedOne}, {[]string{"-"}, speedOne}} {
		m := newModel(t, "boundary-burst")
		for _, k := range c.keys {
			press(m, k)
		}
		m.switchTo(1)
		if m.runner.speed != c.want {
			t.Errorf("after %v, the next scenario opens at %s, want %s", c.keys, speedName(m.runner.speed), speedName(c.want))
		}
	}
}

// The hidden lesson page does what it says: L shows the lesson there, and
// space closes it and plays on to the question.
func TestHiddenLessonPageKeys(t *testing.T) {
	m := newModel(t, "retry-storm")
	seekTo(m, 13*time.Second)
	press(m, "l")
	page := strings.Join(strings.Fields(strings.Join(m.lessonLines(m.width), " ")), " ")
	if !m.lessonPage.open || !strings.Contains(page, "Play on to it (space), or L to read the lesson now") {
		t.Fatalf("the hidden lesson page:\n%s", page)
	}
	press(m, "L")
	page = strings.Join(strings.Fields(strings.Join(m.lessonLines(m.width), " ")), " ")
	if !m.lessonPage.open || !strings.Contains(page, "A partner sends 250 webhook events a second") {
		t.Errorf("L on the hidden page did not show the lesson there:\n%s", page)
	}
	m2 := newModel(t, "retry-storm")
	seekTo(m2, 13*time.Second)
	press(m2, "l")
	press(m2, "space")
	if m2.lessonPage.open || m2.runner.paused {
		t.Errorf("space on the hidden page: page open %v, paused %v; want closed, playing", m2.lessonPage.open, m2.runner.paused)
	}
}
