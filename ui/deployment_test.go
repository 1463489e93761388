package ui

import (
	"regexp"
	"strings"
	"testing"
)

// A deployed lane's panel shows what it admitted beyond its ideal and its
// strip of instances, with its membership and protocol, which follow a scale
// change; the zoom says the protocol and draws the ideal beside it.
func TestDeployedLaneShowsItsInstancesAndOvershoot(t *testing.T) {
	m := newModel(t, "autoscale") // 2 instances, 6 from 20 s, 3 from 40 s
	seekTo(m, 10e9)
	s := screen(m)
	for _, want := range []string{"over ▕", "inst ▕", "2× local", "2× share"} {
		if !strings.Contains(s, want) {
			t.Fatalf("at 10 s the screen lacks %q:\n%s", want, s)
		}
	}
	// the local lane admits beyond its ideal: its over row has bars
	if over := regexp.MustCompile(`over ▕([ ▁▂▃▄▅▆▇█]*)`).FindStringSubmatch(s); over == nil || strings.TrimSpace(over[1]) == "" {
		t.Errorf("the local lane's over row is blank at 10 s (it admits twice the ideal):\n%s", s)
	}
	seekTo(m, 30e9)
	if s := screen(m); !strings.Contains(s, "6× local") || !regexp.MustCompile(`inst ▕[▁▂▃▄▅▆▇█]{6} 6× local`).MatchString(s) {
		t.Errorf("at 30 s the strip does not show six instances, each admitting:\n%s", s)
	}
	press(m, "enter")
	if s := screen(m); !strings.Contains(s, "6× local") || !strings.Contains(s, "what one ideal limiter admits") || !strings.Contains(s, "overshoot") {
		t.Errorf("the zoom of a deployed lane does not say its protocol, its overshoot and its ideal:\n%s", s)
	}
}

// A panel too short for a 3-row graph and the two rows keeps the graph: the
// rows go first.
func TestDeploymentRowsKeepTheGraph(t *testing.T) {
	m := newModel(t, "autoscale")
	lane := m.runner.cfg.Lanes[0]
	for h, want := range map[int]int{minPanelHeight: 0, minPanelHeight + 1: 1, minPanelHeight + 2: 2, minPanelHeight + 9: 2} {
		if got := deploymentRows(lane, h); got != want {
			t.Errorf("a panel %d high: %d rows, want %d", h, got, want)
		}
	}
}

// A deployed lane's level past the limit (three Kong nodes each counting a
// minute of 60: 180 together) is drawn on an axis that holds it, a multiple of
// the limit, not cut at the limit; a lane within its limit keeps the limit's.
func TestDeployedLevelPastTheLimitIsDrawn(t *testing.T) {
	m := newModel(t, "kong-sync")
	seekTo(m, 59e9)
	s := screen(m)
	if !strings.Contains(s, "180 ┤") {
		t.Errorf("at 59 s the local lane's graph does not reach 180 (3× the limit of 60):\n%s", s)
	}
	for _, c := range []struct {
		hi, top, want float64
	}{{60, 0, 60}, {60, 60, 60}, {60, 61, 120}, {60, 180, 180}, {60, 198, 240}, {0, 5, 0}} {
		if got := levelTop(c.hi, []float64{c.top / 2, c.top}); got != c.want {
			t.Errorf("levelTop(%v, up to %v) = %v, want %v", c.hi, c.top, got, c.want)
		}
	}
}
