package ui

// A lane in one line, for a terminal too small for its panel: its name, a
// sparkline of its accepted and denied, and its counts.

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"ratelab/algorithms"
	"ratelab/sim"
)

// compactNameWidth is the cells a lane's name gets on a compact line: its name,
// or when longer its short form (see shortName), which keeps lanes apart.
const compactNameWidth = 18

// renderCompactLane draws lane i, whose metrics are met, on one line of width w,
// for terminals too short for panels: name, counters, the level as a sparkline and
// accepted and denied as bars, over the same stretch as the panels.
func (m *Model) renderCompactLane(i int, met sim.Metrics, w int) string {
	lane, l := m.runner.cfg.Lanes[i], m.runner.snap.Lanes[i]
	st := m.styles
	mark := "  "
	if i == m.focus {
		mark = "▸ "
	}
	name := lane.Name
	if lipgloss.Width(name) > compactNameWidth {
		name = shortName(m.runner.cfg.Lanes, i) // "token-bucket (fix off)" and "(fix on)" cut alike
	}
	// a space always between the name and its counters, however long the name
	name = fmt.Sprintf("%-*s ", compactNameWidth-1, truncate(name, compactNameWidth-1))
	counters := fmt.Sprintf("acc %-6s den %-6s", compact(met.Accepted), compact(met.Denied))
	n := max(4, (w-lipgloss.Width(mark+name+counters)-17)/3) // 17: the three labels
	info, _ := algorithms.Lookup(lane.Algorithm)
	samples := bin(l.Series, m.view(n))
	shownLevels := make([]float64, len(samples))
	for j, c := range samples {
		shownLevels[j] = shown(c, info.Shape)
	}
	lo, hi := yRange(m.runner.cfg, lane)
	hi = levelTop(hi, shownLevels)
	level, acc, den := make([]int64, len(samples)), make([]int64, len(samples)), make([]int64, len(samples))
	for j, c := range samples {
		level[j] = int64(8 * (min(max(shownLevels[j], lo), hi) - lo) / max(hi-lo, 1))
		acc[j], den[j] = c.accepted, c.denied
	}
	cols := n
	peak := max(maxOf(acc), maxOf(den))
	pad := func(s string) string { return s + strings.Repeat(" ", max(0, cols-len([]rune(s)))) }
	line := st.PanelTitle.Render(mark+name) + st.Counters.Render(counters) +
		st.Counters.Render(" level ") + st.Header.Render(pad(bars(level, 8))) +
		st.Counters.Render(" acc ") + st.Accept.Render(pad(bars(acc, peak))) +
		st.Counters.Render(" den ") + st.Deny.Render(pad(bars(den, peak)))
	return truncate(line, w)
}
