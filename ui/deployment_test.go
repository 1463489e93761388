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
