package ui

import (
	"fmt"
	"strings"

	"github.com/guptarohit/asciigraph"

	"ratelab/algorithms"
	"ratelab/present/format"
)

// renderZoom draws the focused lane across the whole width in rows lines: its
// level, accepted and denied per column as three series with a legend, and the
// time axis with the lane's window boundaries.
func (m *Model) renderZoom(rows int) string {
	cfg := m.runner.cfg
	lane, l := cfg.Lanes[m.focus], m.runner.snap.Lanes[m.focus]
	met := m.runner.snap.Metrics[m.focus]
	info, _ := algorithms.Lookup(lane.Algorithm)
	title := m.styles.PanelTitle.Render(lane.Name) + m.styles.Counters.Render(fmt.Sprintf("  %s  accepted %d  denied %d  errors %d  peak %.2f× the limit",
		lane.Algorithm, met.Accepted, met.Denied, met.Errors, met.PeakWindowRatio))
	title = fit(title, m.width)
	v := m.view(max(2, m.width-axisWidth-2))
	cols := bin(l.Series, v)
	if len(cols) < 2 {
		return title + "\n" + m.styles.Subtle.Render(truncate(fmt.Sprintf("a column every %s; the graph is drawn once two are whole, at %s (w: the whole run)", format.Duration(v.span), format.Duration(v.from+2*v.span)), m.width)) + strings.Repeat("\n", max(0, rows-2))
	}
	level, acc, den := make([]float64, len(cols)), make([]float64, len(cols)), make([]float64, len(cols))
	lo, hi := yRange(cfg, lane)
	for i, c := range cols {
		level[i], acc[i], den[i] = shown(c, info.Shape), float64(c.accepted), float64(c.denied)
		hi = max(hi, acc[i], den[i])
	}
	hi = float64(ladderStep(int64(hi)-1, +1)) // a round top, so the labels are round
	plot := asciigraph.PlotMany([][]float64{level, acc, den},
		asciigraph.Height(roundRows(hi-lo, max(3, rows-5))), asciigraph.LowerBound(lo), asciigraph.UpperBound(hi),
		asciigraph.SeriesColors(m.styles.Level, m.styles.AcceptLine, m.styles.DenyLine),
		asciigraph.SeriesLegends(levelLabel(cfg, lane, info), "accepted per column", "denied per column"),
		asciigraph.YAxisValueFormatter(func(v float64) string { return fmt.Sprintf("%5s", compactFloat(v)) }))
	lines := strings.Split(plot, "\n")
	legend := lines[len(lines)-1]
	lines = append(lines[:len(lines)-1], timeAxis(v, boundaries(cfg, lane, v)), legend)
	for i := range lines {
		lines[i] = fit(lines[i], m.width)
	}
	return title + "\n" + strings.Join(lines, "\n")
}
