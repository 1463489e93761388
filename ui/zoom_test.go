package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/internal/format"
	"ratelab/present"
	"ratelab/sim"
)

// The zoom draws the level, the accepted and the denied as three graphs, one
// under the other, each under a label saying what it is and on an axis of its
// own, so that they are told apart without colour; it fills its room exactly at
// every size; its peak/limit is the table's cell.
func TestZoomTellsItsGraphsApartWithoutColour(t *testing.T) {
	m := newModel(t, "boundary-burst")
	press(m, "m")
	playToEnd(m)
	press(m, "enter") // the fixed window
	for _, size := range [][2]int{{80, 24}, {120, 40}, {160, 48}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		s := screen(m)
		if n := strings.Count(s, "\n") + 1; n != size[1] {
			t.Errorf("%d×%d: the screen has %d lines", size[0], size[1], n)
		}
		lines := strings.Split(s, "\n")
		var labels []int
		for i, line := range lines {
			for _, l := range []string{"units in the window (column max)", "accepted per column of", "denied per column of"} {
				if strings.HasPrefix(line, l) {
					labels = append(labels, i)
					// under the label, its graph: a line of its y axis
					if i+1 >= len(lines) || !regexp.MustCompile(`^ *\d+(\.\d+)?k? ┤|^ *\d+(\.\d+)?k? ┼`).MatchString(lines[i+1]) {
						t.Errorf("%d×%d: no graph under %q:\n%s", size[0], size[1], l, s)
					}
				}
			}
		}
		if len(labels) != 3 || !(labels[0] < labels[1] && labels[1] < labels[2]) {
			t.Errorf("%d×%d: the three labels at lines %v:\n%s", size[0], size[1], labels, s)
		}
		if !strings.Contains(s, "fixed-window  accepted 200  denied 120  errors 0  peak/limit 2.00") {
			t.Errorf("%d×%d: the title:\n%s", size[0], size[1], lines[2])
		}
	}
}

// The zoom says peak/limit as the table does: "—" for the no-limit lane.
func TestMetricCellIsTheTables(t *testing.T) {
	for _, tc := range []struct {
		m    sim.Metrics
		want string
	}{
		{sim.Metrics{Algorithm: "none", PeakWindowRatio: 0}, "—"},
		{sim.Metrics{Algorithm: "fixed-window", PeakWindowRatio: 2}, "2.00"},
	} {
		if got := metricCell("peak_window_ratio", tc.m); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.m.Algorithm, got, tc.want)
		}
	}
	for _, c := range present.Columns {
		if got := metricCell(c.Metric, sim.Metrics{Lane: "L", Algorithm: "gcra"}); got == "?" {
			t.Errorf("metricCell does not find %s", c.Metric)
		}
	}
}

// The zoom says what each client got through the lane, by node where the
// clients are on several: clock-skew's question on node a's share under GCRA
// is answered on screen, as the lane's own tallies have it.
func TestZoomShowsEachClientsShare(t *testing.T) {
	m := newModel(t, "clock-skew")
	seekTo(m, 19*time.Second)
	for m.runner.cfg.Lanes[m.focus].Name != "gcra" {
		press(m, "tab")
	}
	press(m, "enter")
	tallies := m.runner.snap.Lanes[m.focus].ByClient
	if len(tallies) != 3 || tallies[0].Decided == 0 {
		t.Fatalf("gcra's tallies at 19 s: %+v", tallies)
	}
	want := "accepted by client (node): via-a (a) " + format.Percent(tallies[0].Share()) + " · via-b (b) "
	if s := screen(m); !strings.Contains(s, want) || tallies[0].Share() > 0.05 {
		t.Errorf("the zoom lacks %q (node a's share %.3f, under 5%% per the lesson):\n%s", want, tallies[0].Share(), s)
	}
	one := newModel(t, "bucket-bound") // one client: no such line
	seekTo(one, time.Second)
	press(one, "enter")
	if s := screen(one); strings.Contains(s, "accepted by client") {
		t.Errorf("a one-client zoom has the clients' line:\n%s", s)
	}
}

// The zoom of a lane of several rules says what share of its refusals each
// rule decided, the one that refused yet never decided, and names the latest
// refusal's decisive rule; at 80×24 the latest refusal's line alone, with the
// graphs. The headers line names the rule of a refusal. A lane of one rule of
// no product's names none.
func TestZoomNamesTheDecisiveRule(t *testing.T) {
	m := newModel(t, "which-rule")
	playToEnd(m)
	press(m, "enter") // nginx: three limit_req
	met := m.runner.snap.Metrics[m.focus]
	if len(met.Rules) != 3 || met.Rules[0].Decides == 0 || met.Rules[2].Decides != 0 || met.Rules[2].Fires == 0 {
		t.Fatalf("the nginx lane's rules: %+v", met.Rules)
	}
	rf := m.runner.snap.Lanes[m.focus].Refusal
	if rf.Rule == 0 {
		t.Fatal("no latest refusal kept")
	}
	place, words, _ := strings.Cut(met.Rules[rf.Rule-1].Rule, " ")
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	s := screen(m)
	for _, want := range []string{"refusals decided by, at lines of scenarios.toml: ", "limit_req zone=perip_copy 0% (refused ", "never first)",
		"refused " + m.runner.cfg.Keys[rf.Key].Name + " at " + format.Duration(rf.At) + " by " + words + " (" + place + ")"} {
		if !strings.Contains(s, want) {
			t.Errorf("120×40: the zoom lacks %q:\n%s", want, s)
		}
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if s := screen(m); !strings.Contains(s, "refused "+m.runner.cfg.Keys[rf.Key].Name+" at ") || strings.Contains(s, "refusals decided by") || !strings.Contains(s, "denied per column") {
		t.Errorf("80×24: the zoom keeps its graphs and the latest refusal's line:\n%s", s)
	}
	plain := newModel(t, "boundary-burst")
	playToEnd(plain)
	press(plain, "enter")
	if s := screen(plain); strings.Contains(s, "refusals decided by") || strings.Contains(s, " by fixed-window") {
		t.Errorf("a lane of one rule of no product's names it:\n%s", s)
	}
}

// The latest decision's line names the rule of a refusal, as its product
// answers it.
func TestLatestRefusalNamesItsRule(t *testing.T) {
	m := newModel(t, "which-rule")
	for at := 100 * time.Millisecond; at < 90*time.Second; at += 100 * time.Millisecond {
		seekTo(m, at)
		if last := m.runner.snap.Lanes[m.focus].Last; m.runner.snap.Lanes[m.focus].HasLast && last.Row.Decisive > 0 {
			names := m.runner.cfg.Lanes[m.focus].RuleNames(m.runner.cfg)
			place, words, _ := strings.Cut(names[last.Row.Decisive-1], " ")
			want := "503 REJECTED by " + words + " (" + place + ")"
			if s := screen(m); !strings.Contains(s, want[:min(len(want), 60)]) {
				t.Errorf("at %v the latest decision is a refusal by %s; the screen lacks %q:\n%s", at, names[last.Row.Decisive-1], want, s)
			}
			return
		}
	}
	t.Fatal("the nginx lane's latest decision was never a refusal at a tenth of a second")
}
