package ui

import (
	"strings"
	"testing"
	"time"
)

// Before the run's end the claims are marked for the run so far, and a claim about
// a stretch that has not begun is marked … rather than ✓: retry-storm's
// [limits-recover] ("from 20 s on every limit refuses nothing") holds vacuously at
// 13 s, with nothing to judge it on.
func TestClaimsBeforeTheirStretchAreNotBegun(t *testing.T) {
	m := newModel(t, "retry-storm")
	m.runner.seek(13 * time.Second)
	for m.runner.seeking {
		frame(m)
	}
	s := screen(m)
	if !strings.Contains(s, "[limits-recover …]") {
		t.Errorf("at 13 s the claim about 20 s on is not marked as not begun:\n%s", s)
	}
	if !strings.Contains(s, "claims so far, at 13.000s of 40.000s") || !strings.Contains(s, "not begun (…)") {
		t.Errorf("at 13 s the claims line does not say the counts are of the run so far:\n%s", s)
	}
	press(m, "l")
	page := strings.Join(m.lessonLines(m.width), "\n")
	if !strings.Contains(page, "… from 20 s on every limit refuses nothing") || !strings.Contains(page, "its stretch has not begun") {
		t.Errorf("the lesson page does not say the claim's stretch has not begun:\n%s", page)
	}
	press(m, "l")

	m.runner.seek(40 * time.Second)
	for m.runner.seeking {
		frame(m)
	}
	s = screen(m)
	if strings.Contains(s, "…]") || !strings.Contains(s, "[limits-recover ✓]") || !strings.Contains(s, "claims: 7 of 7 hold on this run") {
		t.Errorf("at the run's end every claim is judged and holds:\n%s", s)
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
