package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/guptarohit/asciigraph"

	"ratelab/algorithms"
	"ratelab/internal/format"
	"ratelab/present"
	"ratelab/sim"
)

// zoomChrome is the lines the zoom spends besides its graphs: the title, a
// label over each of the three graphs, and the time axis.
const zoomChrome = 5

// renderZoom draws the focused lane across the whole width in rows lines, as
// three graphs one above the other on the same columns of time, each with its
// own axis and a label saying what it is: the lane's level (for the no-limit
// lane, the load it let through against the backend's capacity), the decisions
// it accepted per column, and those it denied; then the time axis with the
// lane's window boundaries. Told apart by place and label, not by colour alone.
func (m *Model) renderZoom(rows int) string {
	cfg := m.runner.cfg
	lane, l := cfg.Lanes[m.focus], m.runner.snap.Lanes[m.focus]
	met := m.runner.snap.Metrics[m.focus]
	info, _ := algorithms.Lookup(lane.Algorithm)
	algorithm := "" // said when the lane's name does not say it
	if string(lane.Algorithm) != lane.Name {
		algorithm = "  " + string(lane.Algorithm)
	}
	judged := "peak/limit " + metricCell("peak_window_ratio", met)
	if cfg.Classes != nil { // what ratelab tune judged the lane by
		judged = "ordinary denied " + metricCell("ordinary_denied", met) + "  heavy admitted " + metricCell("heavy_accepted", met)
	}
	if lane.Deployed() { // the deployment, and how far it went beyond its ideal
		algorithm += fmt.Sprintf("  %d× %s", met.Instances, deploymentWords(lane))
		judged += "  overshoot " + metricCell("overshoot_window_units", met)
	}
	title := m.styles.PanelTitle.Render(lane.Name) + m.styles.Counters.Render(fmt.Sprintf("%s  accepted %d  denied %d  errors %d  %s",
		algorithm, met.Accepted, met.Denied, met.Errors, judged))
	title = fit(title, m.width)
	v := m.view(max(2, m.width-axisWidth-2))
	cols := bin(l.Series, v)
	if len(cols) < 2 {
		return title + "\n" + m.styles.Subtle.Render(truncate(fmt.Sprintf("a column every %s; the graph is drawn once two are whole, at %s (w: the whole run)", format.Duration(v.span), format.Duration(v.from+2*v.span)), m.width)) + strings.Repeat("\n", max(0, rows-2))
	}
	acc, den := make([]float64, len(cols)), make([]float64, len(cols))
	for i, c := range cols {
		acc[i], den[i] = float64(c.accepted), float64(c.denied)
	}
	// at the UI's smallest (minHeight) the level graph gets 5 lines
	graphs := rows - zoomChrome
	shares := clientShares(cfg, l.ByClient)
	if shares != "" {
		graphs-- // the line of each client's share
	}
	rules := ruleLines(cfg, lane, met, l, m.width)
	if graphs-len(rules) < 3+2*zoomCountLines && len(rules) > 1 { // the graphs first: then the latest refusal's rule alone
		rules = rules[len(rules)-1:]
	}
	if graphs-len(rules) < 3+2*zoomCountLines {
		rules = nil
	}
	graphs -= len(rules)
	countLines := max(zoomCountLines, graphs/4)
	levelLines := max(3, graphs-2*countLines)

	var lines []string
	label := func(s string) { lines = append(lines, m.styles.Subtle.Render(truncate(s, m.width))) }
	var level []string
	if info.Shape == algorithms.ShapeNone {
		label(m.loadLabel())
		level = underLabel(m.loadGraph(cols, v, levelLines, m.width))
	} else {
		label(levelLabel(cfg, lane, info))
		levels := make([]float64, len(cols))
		for j, c := range cols {
			levels[j] = shown(c, info.Shape)
		}
		lo, hi := yRange(cfg, lane)
		level = underLabel(m.graph(levels, levelLines, m.width, lo, hi, v))
	}
	// the level graph keeps its axis labels round (roundRows) and may not fill
	// its room: the counts get what it leaves
	used := len(level)
	for used > 0 && level[used-1] == "" {
		used--
	}
	spare := len(level) - used
	lines = append(lines, level[:used+spare%2]...)
	span := format.Duration(v.span)
	if lane.Deployed() {
		ideal := make([]float64, len(cols))
		for i, c := range cols {
			ideal[i] = float64(c.ideal)
		}
		label(fmt.Sprintf("accepted per column of %s; the second line: what one ideal limiter admits of the same requests", span))
		lines = append(lines, underLabel(m.countGraph(acc, countLines+spare/2, m.styles.AcceptLine, ideal))...)
	} else {
		label(fmt.Sprintf("accepted per column of %s", span))
		lines = append(lines, underLabel(m.countGraph(acc, countLines+spare/2, m.styles.AcceptLine))...)
	}
	label(fmt.Sprintf("denied per column of %s", span))
	lines = append(lines, underLabel(m.countGraph(den, countLines+spare/2, m.styles.DenyLine))...)
	lines = append(lines, m.styles.Subtle.Render(timeAxis(v, boundaries(cfg, lane, v))))
	var top []string
	if shares != "" {
		top = append(top, m.styles.Counters.Render(truncate(shares, m.width)))
	}
	for _, r := range rules {
		top = append(top, m.styles.Counters.Render(truncate(r, m.width)))
	}
	lines = append(top, lines...)
	for i := range lines {
		lines[i] = fit(lines[i], m.width)
	}
	return title + "\n" + strings.Join(lines, "\n")
}

// clientShares is the zoom's line of what each client got through the lane
// so far, the share of its decided attempts accepted ("accepted by client
// (node): via-a (a) 1.8% · via-b (b) 29% · …"), with its node when the
// clients are on several; "" with one client, or before any decision.
func clientShares(cfg *sim.Config, tallies []sim.ClientTally) string {
	if len(cfg.Clients) < 2 || len(tallies) != len(cfg.Clients) {
		return ""
	}
	nodes := map[int]bool{}
	for _, c := range cfg.Clients {
		nodes[c.Node] = true
	}
	var parts []string
	for i, c := range cfg.Clients {
		t := tallies[i]
		if t.Decided == 0 {
			continue
		}
		name := c.Name
		if len(nodes) > 1 {
			name += " (" + cfg.Nodes[c.Node].Name + ")"
		}
		parts = append(parts, name+" "+format.Percent(t.Share()))
	}
	if len(parts) == 0 {
		return ""
	}
	if len(nodes) > 1 {
		return "accepted by client (node): " + strings.Join(parts, " · ")
	}
	return "accepted by client: " + strings.Join(parts, " · ")
}

// zoomCountLines is the fewest lines of the accepted and of the denied graph
// (they get a quarter of the room each when there is more).
const zoomCountLines = 4

// countGraph plots counts per column, from 0 to a round number at or above the
// highest, in exactly `lines` lines with the axis labels of the other graphs;
// a second series (a deployment's ideal) is drawn with it, dimmer.
func (m *Model) countGraph(values []float64, lines int, color asciigraph.AnsiColor, also ...[]float64) []string {
	out := make([]string, lines)
	top := maxFloat(values)
	series, colors := [][]float64{values}, []asciigraph.AnsiColor{color}
	for _, a := range also {
		top = max(top, maxFloat(a))
		series, colors = append(series, a), append(colors, m.styles.Level)
	}
	hi := float64(ladderStep(int64(max(1, top))-1, +1))
	rows := min(roundRows(hi, lines-1), int(hi)) // whole counts on the axis: 0 and 1, not 0.3
	plot := asciigraph.PlotMany(series,
		asciigraph.Height(rows), asciigraph.LowerBound(0), asciigraph.UpperBound(hi),
		asciigraph.SeriesColors(colors...),
		asciigraph.YAxisValueFormatter(func(v float64) string { return fmt.Sprintf("%5s", compactFloat(v)) }))
	copy(out[lines-rows-1:], strings.Split(plot, "\n"))
	return out
}

// underLabel is a graph's lines with the empty ones it starts with (a graph
// shorter than its room) moved to its end, so that it starts under its label.
func underLabel(lines []string) []string {
	i := 0
	for i < len(lines) && lines[i] == "" {
		i++
	}
	return append(lines[i:], lines[:i]...)
}

// metricCell is the comparison table's cell for the metric (by its JSON name) of
// met: what the zoom says agrees with the table ("—" where the table has it).
func metricCell(metric string, met sim.Metrics) string {
	for _, c := range slices.Concat(present.Columns, present.ClassColumns, present.DeploymentColumns) {
		if c.Metric == metric {
			return c.Cell(met)
		}
	}
	return "?"
}
