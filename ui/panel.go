package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/guptarohit/asciigraph"

	"ratelab/algorithms"
	"ratelab/internal/format"
	"ratelab/internal/printable"
	"ratelab/sim"
)

// panelChrome is the rows a panel spends besides its graph: the border, the title,
// what the level is, the two bar rows and the time axis.
const panelChrome = 7

// minPanelHeight and minPanelWidth are the smallest useful panel: a 3-row graph.
const (
	minPanelHeight = panelChrome + 3
	minPanelWidth  = 36
	// narrowPanelWidth is the narrowest a panel gets, to make room for the table
	// (see panelColumns).
	narrowPanelWidth = 30
)

// axisWidth is the width of the graph's y-axis labels ("  100 ┤").
const axisWidth = 7

// graphColumns is how many columns a graph gets in a panel w wide.
func graphColumns(w int) int { return max(1, w-4-axisWidth-1) }

// renderPanel draws lane i, whose metrics are met, in a box w by h: its name and
// counters, what its level is, the level as a line graph, accepted and denied as
// bars, and the time axis with the lane's window boundaries marked.
func (m *Model) renderPanel(i int, met sim.Metrics, w, h int) string {
	lane, l := m.runner.cfg.Lanes[i], m.runner.snap.Lanes[i]
	st := m.styles
	inner := w - 4 // border and padding
	info, _ := algorithms.Lookup(lane.Algorithm)
	v := m.view(graphColumns(w))
	cols := bin(l.Series, v)
	lines := []string{m.panelTitle(i, l.Unavailable, met, inner)}
	extra := deploymentRows(lane, h)
	graphRows := h - panelChrome - extra
	if info.Shape == algorithms.ShapeNone {
		lines = append(lines, st.Subtle.Render(truncate(m.loadLabel(), inner)))
		lines = append(lines, m.loadGraph(cols, v, graphRows, inner)...)
	} else {
		lines = append(lines, st.Subtle.Render(truncate(levelLabel(m.runner.cfg, lane, info), inner)))
		lo, hi := yRange(m.runner.cfg, lane)
		levels := make([]float64, len(cols))
		for j, c := range cols {
			levels[j] = shown(c, info.Shape)
		}
		lines = append(lines, m.graph(levels, graphRows, inner, lo, hi, v)...)
	}
	acc, den := make([]int64, len(cols)), make([]int64, len(cols))
	for j, c := range cols {
		acc[j], den[j] = c.accepted, c.denied
	}
	peak := max(maxOf(acc), maxOf(den))
	lines = append(lines,
		st.Counters.Render(fmt.Sprintf("%*s", axisWidth, "acc ▕"))+st.Accept.Render(bars(acc, peak)),
		st.Counters.Render(fmt.Sprintf("%*s", axisWidth, "den ▕"))+st.Deny.Render(bars(den, peak)))
	if extra > 0 {
		over := make([]int64, len(cols))
		for j, c := range cols {
			over[j] = max(0, c.accepted-c.ideal)
		}
		lines = append(lines, st.Counters.Render(fmt.Sprintf("%*s", axisWidth, "over ▕"))+st.Deny.Render(bars(over, peak)))
	}
	if extra > 1 {
		lines = append(lines, m.instanceStrip(lane, l.Instances, met.Instances, inner))
	}
	lines = append(lines, st.Subtle.Render(fit(timeAxis(v, boundaries(m.runner.cfg, lane, v)), inner)))

	box := st.Panel
	if i == m.focus {
		box = st.FocusedPanel
	}
	return box.Width(w).Height(h).Render(strings.Join(lines, "\n"))
}

// levelLabel says what a lane's graph shows: the watched key's level and how a
// column is drawn.
func levelLabel(cfg *sim.Config, lane sim.LaneConfig, info algorithms.Info) string {
	how := "column max"
	if info.Shape == algorithms.ShapeBucket {
		how = "column min"
	}
	label := info.LevelName()
	if len(cfg.Keys) > 1 {
		label += " for " + printable.String(cfg.Keys[cfg.WatchKey].Name) + keyRole(cfg, cfg.WatchKey) // a trace's key is data
	}
	label += " (" + how + ")"
	if info.GridWindows() {
		label += " · ┴ new window"
	}
	return label
}

// loadLabel says what the no-limit lane's graph shows.
func (m *Model) loadLabel() string {
	if b := m.runner.cfg.Backend; b != nil {
		return fmt.Sprintf("requests/s let through; ─ the backend serves %s/s", compactFloat(b.Capacity()))
	}
	return "requests/s let through"
}

// loadGraph plots the rate a no-limit lane let through (accepted per column, per
// second) against the backend's capacity, in exactly `lines` lines.
func (m *Model) loadGraph(cols []column, v timeView, lines, width int) []string {
	out := make([]string, lines)
	if len(cols) == 0 {
		out[0] = m.styles.Subtle.Render(truncate(" "+firstColumn(v), width))
		return out
	}
	rate := make([]float64, len(cols))
	for j, c := range cols {
		rate[j] = float64(c.accepted) / v.span.Seconds()
	}
	series := [][]float64{rate}
	top := max(maxFloat(rate), 1)
	colors := []asciigraph.AnsiColor{m.styles.Level}
	if b := m.runner.cfg.Backend; b != nil {
		capacity := make([]float64, len(cols))
		for j := range capacity {
			capacity[j] = b.Capacity()
		}
		series = append(series, capacity)
		colors = append(colors, m.styles.DenyLine)
		top = max(top, 1.25*b.Capacity())
	}
	for j := range series {
		if len(series[j]) == 1 {
			series[j] = append(series[j], series[j][0])
		}
	}
	hi := float64(ladderStep(int64(top)-1, +1))
	rows := roundRows(hi, lines-1)
	plot := asciigraph.PlotMany(series, asciigraph.Height(rows), asciigraph.LowerBound(0), asciigraph.UpperBound(hi),
		asciigraph.SeriesColors(colors...),
		asciigraph.YAxisValueFormatter(func(v float64) string { return fmt.Sprintf("%5s", compactFloat(v)) }))
	copy(out[lines-rows-1:], strings.Split(plot, "\n"))
	return out
}

func maxFloat(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// timeAxis is the graph's time axis: a rule under the columns with the window
// boundaries marked ┴ and round times written where they fall (just after a mark
// when one is there), as many as fit.
func timeAxis(v timeView, marks []time.Duration) string {
	axis := []rune(strings.Repeat("─", v.n))
	marked := make([]bool, v.n)
	column := func(t time.Duration) int {
		if t <= v.from {
			return 0
		}
		return int((t - v.from - 1) / v.span)
	}
	for _, b := range marks {
		if j := column(b); j >= 0 && j < v.n {
			axis[j], marked[j] = '┴', true
		}
	}
	step := niceStep(v.span * 12)
	free := 0 // the first column a label may use
	for t := (v.from + step - 1) / step * step; t < v.to(); t += step {
		j := column(t)
		if j < v.n && marked[j] {
			j++
		}
		label := []rune(formatAxisTime(t))
		if j < free || j+len(label) > v.n || slices.Contains(marked[j:j+len(label)], true) {
			continue
		}
		copy(axis[j:], label)
		free = j + len(label) + 1
	}
	return fmt.Sprintf("%*s", axisWidth, "t ┼") + string(axis)
}

// niceStep is the smallest round interval (1, 2 or 5 times a power of ten, in
// ms, s or min) at least d.
func niceStep(d time.Duration) time.Duration {
	for unit := time.Millisecond; ; unit *= 10 {
		for _, f := range []time.Duration{1, 2, 5} {
			if f*unit >= d {
				return f * unit
			}
		}
		if unit > 1000*time.Hour {
			return d
		}
	}
}

// formatAxisTime renders an axis time briefly: 0s, 1.5s, 2m30s, 1h.
func formatAxisTime(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d < time.Second:
		return fmt.Sprintf("%dms", d/time.Millisecond)
	case d < time.Minute:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", d.Seconds()), "0"), ".") + "s"
	}
	return d.Truncate(time.Second).String()
}

// panelTitle is lane i's panel's first line, inner cells wide: its name and its
// counters. The whole name when it fits beside the counters; else a short form
// that keeps lanes told apart (the algorithm abbreviated, then what differs:
// "fw·jitter", "tb·fix off"); else the counters drop their labels (a accepted, d
// denied, e errors); what still does not fit is cut.
func (m *Model) panelTitle(i int, unavailable bool, met sim.Metrics, inner int) string {
	lane := m.runner.cfg.Lanes[i]
	st := m.styles
	counters := func(acc, den, err string) string {
		s := st.Counters.Render(fmt.Sprintf("%s%s %s%s", acc, compact(met.Accepted), den, compact(met.Denied)))
		if met.Errors > 0 {
			s += st.Deny.Render(" " + err + compact(met.Errors))
		}
		if unavailable {
			down := "redis unavailable " // failing to answer
			if lane.Backend == sim.InMemory {
				down = "store down " // an outage of the scenario's
			}
			s = st.Error.Render(down) + s
		}
		return s
	}
	name, short := lane.Name, shortName(m.runner.cfg.Lanes, i)
	c := counters("acc ", "den ", "err ")
	room := inner - lipgloss.Width(c) - 1
	switch {
	case lipgloss.Width(name) <= room:
	case lipgloss.Width(short) <= room:
		name = short
	default:
		c = counters("a", "d", "e")
		room = inner - lipgloss.Width(c) - 1
		if lipgloss.Width(name) > room {
			name = truncate(short, max(6, room))
		}
	}
	title := st.PanelTitle.Render(name)
	gap := max(1, inner-lipgloss.Width(title)-lipgloss.Width(c))
	return fit(title+strings.Repeat(" ", gap)+c, inner)
}

// shortName is lane i's name in few cells that still tells it apart from the
// scenario's other lanes: the algorithm's short name (algorithms.Info.Short),
// then what the name adds to it ("fixed-window (random start)" is "fw·random
// start"); a name that does not mention its algorithm is kept as it is; a trace
// replay's recommended lane is "rec " and its policy's short form. When
// every lane of the algorithm adds words that begin alike for two words or more
// (the lanes of one nginx.conf: "nginx: server example.com location /api/",
// "… location /login"), all but the last of those shared words go, so what
// differs is what shows: "nginx·location /api/", "nginx·location /login".
func shortName(lanes []sim.LaneConfig, i int) string {
	lane := lanes[i]
	if rest, ok := strings.CutPrefix(lane.Name, sim.Recommended); ok && strings.Contains(rest, ": ") {
		// a trace replay's recommended lane: "rec " and the short form of its policy
		_, rest, _ = strings.Cut(rest, ": ")
		lanes = slices.Clone(lanes)
		lanes[i].Name = rest
		return "rec " + shortName(lanes, i)
	}
	info, ok := algorithms.Lookup(lane.Algorithm)
	rest, mentions := addedWords(lane)
	if !ok || !mentions {
		return lane.Name
	}
	if rest == "" {
		return info.Short
	}
	words := strings.Fields(rest)
	shared := len(words)
	peers := 0
	for _, l := range lanes {
		if l.Algorithm != lane.Algorithm {
			continue
		}
		r, m := addedWords(l)
		if !m {
			continue
		}
		peers++
		other := strings.Fields(r)
		n := 0
		for n < min(shared, len(other)) && words[n] == other[n] {
			n++
		}
		shared = n
	}
	if peers > 1 && shared >= 2 && shared < len(words) {
		rest = strings.Join(words[shared-1:], " ")
	}
	return info.Short + "·" + rest
}

// addedWords is what a lane's name adds to its algorithm's name, without the
// brackets or a colon around it, and whether the name mentions the algorithm.
func addedWords(lane sim.LaneConfig) (string, bool) {
	algorithm := string(lane.Algorithm)
	if !strings.Contains(lane.Name, algorithm) {
		return "", false
	}
	rest := strings.TrimSpace(strings.Replace(lane.Name, algorithm, "", 1))
	rest = strings.TrimSpace(strings.TrimPrefix(rest, ":"))
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(rest, "("), ")")), true
}

// firstColumn says, before a graph's first column is whole, when it will be
// (columns are drawn whole, each spanning v's span), and how to see it sooner.
func firstColumn(v timeView) string {
	return fmt.Sprintf("graph from %s · w: whole run", format.Duration(v.from+v.span))
}

// graph plots levels in exactly `lines` lines of at most width cells on the
// y-range lo to levelTop(hi, levels), one column each, with as many rows as
// keep the axis labels round; before the first column it says so.
func (m *Model) graph(levels []float64, lines, width int, lo, hi float64, v timeView) []string {
	out := make([]string, lines)
	if len(levels) == 0 {
		out[0] = m.styles.Subtle.Render(truncate(" "+firstColumn(v), width))
		return out
	}
	hi = levelTop(hi, levels)
	rows := roundRows(hi-lo, lines-1)
	for j := range levels {
		levels[j] = min(max(levels[j], lo), hi)
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

// truncate shortens s to n cells with an ellipsis: the longest prefix of whole
// graphemes that fits n−1 cells, then "…". It walks s once (ansi.Truncate):
// cutting a rune at a time and measuring again cost a quarter of every frame on
// the verdicts' long lines.
func truncate(s string, n int) string {
	if n <= 1 {
		return s
	}
	return ansi.Truncate(s, n, "…")
}
