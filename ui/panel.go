package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/guptarohit/asciigraph"

	"ratelab/algorithms"
	"ratelab/sim"
)

// panelChrome is the rows a panel spends on its border, title and the two bar rows;
// the graph has the rest.
const panelChrome = 5

// minPanelHeight and minPanelWidth are the smallest useful panel: a 3-row graph.
const (
	minPanelHeight = panelChrome + 3
	minPanelWidth  = 36
)

// axisWidth is the width of the graph's y-axis labels ("  100 ┤").
const axisWidth = 7

// yRange is a lane's fixed graph range: from the deepest reservation to the most
// its algorithm holds (algorithms.Capacity), so graphs of the same lane compare over
// time and a full bucket always reaches the top.
func yRange(cfg *sim.Config, lane sim.LaneConfig) (lo, hi float64) {
	k := cfg.Keys[cfg.WatchKey]
	p := lane.TierPolicy(cfg, k.Tier)
	return -float64(lane.Options.MaxReserved), float64(algorithms.Capacity(lane.Algorithm, p, lane.Options))
}

// stretch is how much virtual time a graph shows: the whole run when it is 10 s or
// less, else a quarter of it (at least 10 s), sliding with the clock.
func stretch(cfg *sim.Config) time.Duration {
	if cfg.Duration <= 10*time.Second {
		return cfg.Duration
	}
	return max(10*time.Second, cfg.Duration/4)
}

// columns returns the lane's samples of the last stretch in at most n columns: each
// column joins k consecutive samples (ticks, or coarser in a long run; see
// sim.Lane.SeriesStep) as sim.Merge does: its level the last one's, its accepted
// and denied their sums. Columns start at the run's start until it has run a
// stretch.
func columns(l *sim.Lane, cfg *sim.Config, n int) []sim.Sample {
	k := max(1, int((stretch(cfg)/l.SeriesStep()+time.Duration(n)-1)/time.Duration(n)))
	s := l.Series()
	full := len(s) / k * k // whole columns only, so a column never changes once drawn
	s = s[max(0, full-n*k):full]
	out := make([]sim.Sample, 0, len(s)/k)
	for i := 0; i+k <= len(s); i += k {
		out = append(out, sim.Merge(s[i:i+k]))
	}
	return out
}

// renderPanel draws lane i, whose metrics are met, in a box w by h: its name and
// counters, its level as a line graph over the last ticks, and accepted and denied
// per tick as bars.
func (m *Model) renderPanel(i int, met sim.Metrics, w, h int) string {
	l := m.runner.run.Lanes[i]
	st := m.styles
	inner := w - 4 // border and padding
	lines := []string{m.panelTitle(l, met, inner)}

	cols := max(1, inner-axisWidth-1)
	samples := columns(l, m.runner.cfg, cols)
	lo, hi := yRange(m.runner.cfg, l.Config)
	lines = append(lines, m.graph(samples, h-panelChrome, inner, lo, hi)...)
	acc, den := make([]int64, len(samples)), make([]int64, len(samples))
	for j, s := range samples {
		acc[j], den[j] = s.Accepted, s.Denied
	}
	peak := max(maxOf(acc), maxOf(den))
	lines = append(lines,
		st.Counters.Render(fmt.Sprintf("%*s", axisWidth, "acc ▕"))+st.Accept.Render(bars(acc, peak)),
		st.Counters.Render(fmt.Sprintf("%*s", axisWidth, "den ▕"))+st.Deny.Render(bars(den, peak)))

	box := st.Panel
	if i == m.focus {
		box = st.FocusedPanel
	}
	return box.Width(w).Height(h).Render(strings.Join(lines, "\n"))
}

// panelTitle is a panel's first line, inner cells wide: the lane's name and its
// counters. The counters keep their room and the name gives way, down to six
// cells; below that the counters drop their labels (a accepted, d denied, e
// errors), and what still does not fit is cut.
func (m *Model) panelTitle(l *sim.Lane, met sim.Metrics, inner int) string {
	st := m.styles
	counters := func(acc, den, err string) string {
		s := st.Counters.Render(fmt.Sprintf("%s%s %s%s", acc, compact(met.Accepted), den, compact(met.Denied)))
		if met.Errors > 0 {
			s += st.Deny.Render(" " + err + compact(met.Errors))
		}
		if l.Unavailable() {
			s = st.Error.Render("redis unavailable ") + s
		}
		return s
	}
	c := counters("acc ", "den ", "err ")
	if inner-lipgloss.Width(c)-1 < 6 {
		c = counters("a", "d", "e")
	}
	title := st.PanelTitle.Render(truncate(l.Config.Name, max(6, inner-lipgloss.Width(c)-1)))
	gap := max(1, inner-lipgloss.Width(title)-lipgloss.Width(c))
	return fit(title+strings.Repeat(" ", gap)+c, inner)
}

// graph plots the samples' levels in exactly `lines` lines of at most width cells
// on a fixed y-range, one column per sample, with as many rows as keep the axis
// labels round; before the first column it says so.
func (m *Model) graph(samples []sim.Sample, lines, width int, lo, hi float64) []string {
	out := make([]string, lines)
	if len(samples) == 0 {
		out[0] = m.styles.Subtle.Render(truncate(fmt.Sprintf("%*s waiting for the first tick", axisWidth, ""), width))
		return out
	}
	rows := roundRows(hi-lo, lines-1)
	levels := make([]float64, len(samples))
	for j, s := range samples {
		levels[j] = min(max(s.Level, lo), hi)
	}
	if len(levels) == 1 {
		levels = append(levels, levels[0])
	}
	plot := asciigraph.Plot(levels,
		asciigraph.Height(rows), asciigraph.LowerBound(lo), asciigraph.UpperBound(hi),
		asciigraph.SeriesColors(m.styles.Level),
		asciigraph.YAxisValueFormatter(func(v float64) string { return fmt.Sprintf("%5s", compactFloat(v)) }))
	copy(out[lines-rows-1:], strings.Split(plot, "\n"))
	return out
}

// roundRows is the number of graph rows, at most most, that divides span into
// whole steps (so labels read 0, 25, 50…); most itself when none does.
func roundRows(span float64, most int) int {
	if span == float64(int64(span)) {
		for rows := most; rows >= max(2, most/2); rows-- {
			if int64(span)%int64(rows) == 0 {
				return rows
			}
		}
	}
	return most
}

// barRunes are the eighths of a block, for bars one row high.
var barRunes = []rune(" ▁▂▃▄▅▆▇█")

// bars renders values as one-row bars scaled to peak; a non-zero value is never
// drawn empty.
func bars(values []int64, peak int64) string {
	var b strings.Builder
	for _, v := range values {
		i := 0
		if peak > 0 && v > 0 {
			i = max(1, int(v*8/peak))
		}
		b.WriteRune(barRunes[i])
	}
	return b.String()
}

func maxOf(v []int64) int64 {
	var m int64
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// compact renders a count in at most five characters: 999, 12.3k, 4.5M.
func compact(n int64) string {
	switch {
	case n < 10_000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// compactFloat renders an axis label in at most five characters.
func compactFloat(v float64) string {
	switch a := max(v, -v); {
	case a >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case a >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case a >= 100 || v == float64(int64(v)):
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// truncate shortens s to n cells with an ellipsis.
func truncate(s string, n int) string {
	if n <= 1 || lipgloss.Width(s) <= n {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && lipgloss.Width(string(r))+1 > n {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// renderCompactLane draws lane i, whose metrics are met, on one line of width w,
// for terminals too short for panels: name, counters, the level as a sparkline and
// accepted and denied as bars, over the same stretch as the panels.
func (m *Model) renderCompactLane(i int, met sim.Metrics, w int) string {
	l := m.runner.run.Lanes[i]
	st := m.styles
	mark := "  "
	if i == m.focus {
		mark = "▸ "
	}
	name := fmt.Sprintf("%-18s", truncate(l.Config.Name, 18))
	counters := fmt.Sprintf("acc %-6s den %-6s", compact(met.Accepted), compact(met.Denied))
	cols := max(4, (w-lipgloss.Width(mark+name+counters)-17)/3) // 17: the three labels
	samples := columns(l, m.runner.cfg, cols)
	lo, hi := yRange(m.runner.cfg, l.Config)
	level, acc, den := make([]int64, len(samples)), make([]int64, len(samples)), make([]int64, len(samples))
	for j, s := range samples {
		level[j] = int64(8 * (min(max(s.Level, lo), hi) - lo) / max(hi-lo, 1))
		acc[j], den[j] = s.Accepted, s.Denied
	}
	peak := max(maxOf(acc), maxOf(den))
	pad := func(s string) string { return s + strings.Repeat(" ", max(0, cols-len([]rune(s)))) }
	line := st.PanelTitle.Render(mark+name) + st.Counters.Render(counters) +
		st.Counters.Render(" level ") + st.Header.Render(pad(bars(level, 8))) +
		st.Counters.Render(" acc ") + st.Accept.Render(pad(bars(acc, peak))) +
		st.Counters.Render(" den ") + st.Deny.Render(pad(bars(den, peak)))
	return truncate(line, w)
}
