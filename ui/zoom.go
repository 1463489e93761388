package ui

import (
	"fmt"
	"strings"

	"github.com/guptarohit/asciigraph"
)

// renderZoom draws the focused lane across the whole width in rows lines: its
// level, accepted and denied per tick as three series with a legend.
func (m *Model) renderZoom(rows int) string {
	l := m.runner.run.Lanes[m.focus]
	met := l.Metrics()
	title := m.styles.PanelTitle.Render(l.Config.Name) + m.styles.Counters.Render(fmt.Sprintf("  %s  accepted %d  denied %d  errors %d  peak %.2f× the limit",
		l.Config.Algorithm, met.Accepted, met.Denied, met.Errors, met.PeakWindowRatio))
	title = fit(title, m.width)
	samples := columns(l, m.runner.cfg, max(2, m.width-axisWidth-2))
	if len(samples) < 2 {
		return title + "\n" + m.styles.Subtle.Render("waiting for the first ticks") + strings.Repeat("\n", max(0, rows-2))
	}
	level, acc, den := make([]float64, len(samples)), make([]float64, len(samples)), make([]float64, len(samples))
	lo, hi := yRange(m.runner.cfg, l.Config)
	for i, s := range samples {
		level[i], acc[i], den[i] = s.Level, float64(s.Accepted), float64(s.Denied)
		hi = max(hi, acc[i], den[i])
	}
	hi = float64(ladderStep(int64(hi)-1, +1)) // a round top, so the labels are round
	plot := asciigraph.PlotMany([][]float64{level, acc, den},
		asciigraph.Height(roundRows(hi-lo, max(3, rows-4))), asciigraph.LowerBound(lo), asciigraph.UpperBound(hi),
		asciigraph.SeriesColors(m.styles.Level, m.styles.AcceptLine, m.styles.DenyLine),
		asciigraph.SeriesLegends("level (tokens, window count, queue)", "accepted per tick", "denied per tick"),
		asciigraph.YAxisValueFormatter(func(v float64) string { return fmt.Sprintf("%5s", compactFloat(v)) }))
	lines := strings.Split(plot, "\n")
	for i := range lines {
		lines[i] = fit(lines[i], m.width)
	}
	return title + "\n" + strings.Join(lines, "\n")
}
