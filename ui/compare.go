package ui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"ratelab/internal/format"
	"ratelab/present"
	"ratelab/sim"
)

// renderTable draws the comparison: one row per lane, the columns given
// (present.ColumnsFor the configuration) as wide as their widest cell, the focused lane highlighted. It is a pure function
// of its arguments, so no order of resizes and updates can leave rows and columns
// out of step. When not every column fits the width whole, the columns whose
// metric the lesson's claims cite (cited) are kept first, then the others from the
// left; the lane column always stays, cut to make room for the cited columns
// (or to the width) if it must be: then a lane whose name does not fit is
// called by its short name (shortName of lanes, ms's lanes in order, as its
// panel calls it), so that two lanes whose names begin alike are not cut to
// the same cell.
func renderTable(st Styles, columns []present.Column, ms []sim.Metrics, lanes []sim.LaneConfig, width, focus int, cited map[string]bool) string {
	cols := len(columns)
	widths := make([]int, cols)
	cells := make([][]string, len(ms))
	for i, c := range columns {
		widths[i] = lipgloss.Width(c.Title)
	}
	for r, met := range ms {
		cells[r] = make([]string, cols)
		for i, c := range columns {
			cells[r][i] = c.Cell(met)
			widths[i] = max(widths[i], lipgloss.Width(cells[r][i]))
		}
	}
	// the lane column gives way (cut, down to 16 cells) to the cited columns
	need := 0
	for i := 1; i < cols; i++ {
		if cited[columns[i].Metric] {
			need += widths[i] + 2
		}
	}
	if widths[0]+2+need > width {
		widths[0] = max(min(widths[0], 16), width-need-2)
	}
	// keep the columns that fit whole (each is padded by one cell each side)
	kept := make([]bool, cols)
	kept[0] = true
	used := widths[0] + 2
	for _, wantCited := range []bool{true, false} {
		for i := 1; i < cols; i++ {
			if !kept[i] && cited[columns[i].Metric] == wantCited && used+widths[i]+2 <= width {
				kept[i], used = true, used+widths[i]+2
			}
		}
	}
	widths[0] = max(1, min(widths[0], width-2))
	for r := range cells {
		if lipgloss.Width(cells[r][0]) > widths[0] && r < len(lanes) {
			cells[r][0] = shortName(lanes, r)
		}
	}
	line := func(row []string) string {
		var b strings.Builder
		for i := 0; i < cols; i++ {
			if !kept[i] {
				continue
			}
			cell := truncate(row[i], widths[i])
			pad := strings.Repeat(" ", max(0, widths[i]-lipgloss.Width(cell)))
			if i == 0 {
				b.WriteString(" " + cell + pad + " ") // names read from the left
			} else {
				b.WriteString(" " + pad + cell + " ") // numbers line up on the right
			}
		}
		return b.String()
	}
	titles := make([]string, cols)
	for i, c := range columns {
		titles[i] = c.Title
	}
	out := []string{st.TableHeader.Render(line(titles))}
	for r := range cells {
		text := line(cells[r])
		if r == focus {
			out = append(out, st.TableSelected.Render(text))
		} else {
			out = append(out, st.TableCell.Render(text))
		}
	}
	return strings.Join(out, "\n")
}

// renderVerdicts is one line per lane saying what it did, the focused lane's
// highlighted.
func (m *Model) renderVerdicts(verdicts []string) []string {
	out := make([]string, len(verdicts))
	for i, verdict := range verdicts {
		line := truncate(verdict, m.width-2)
		if i == m.focus {
			out[i] = m.styles.TableSelected.Render("▸ " + line)
		} else {
			out[i] = m.styles.Verdict.Render("  " + line)
		}
	}
	return out
}

// renderHeaders is the HTTP response headers the focused lane's latest decision
// would send, in the lane's family (draft, legacy, x-ratelimit, or a product's:
// envoy, spring, traefik).
func (m *Model) renderHeaders() string {
	lane, l := m.runner.cfg.Lanes[m.focus], m.runner.snap.Lanes[m.focus]
	last, ok := l.Last, l.HasLast
	if !ok {
		return m.styles.Subtle.Render("headers: no decision yet")
	}
	d, k := last.Decision, last.Key
	var parts []string
	for _, h := range present.ResponseHeaders(m.runner.cfg, last.Row) {
		parts = append(parts, h.Name+": "+h.Value)
	}
	outcome := "200 allowed"
	if !d.Allowed {
		outcome = "429 denied, retry after " + format.Duration(d.RetryAfter)
	}
	if d.Delay > 0 {
		outcome += ", queued " + format.Duration(d.Delay)
	}
	by := refusedBy(m.runner.cfg, lane, last.Row.Decisive, last.Row.AlsoRefusing)
	if by != "" {
		outcome = "429 denied" + by + ", retry after " + format.Duration(d.RetryAfter)
	}
	code, word, product := present.ProductStatus(lane, d)
	if product { // the product's own answer: nginx's 503 REJECTED, 200 DELAYED…
		switch {
		case word != "":
			outcome = fmt.Sprintf("%d %s", code, word)
		case d.Allowed: // a product that logs nothing for a request it passes (Cloudflare)
			outcome = fmt.Sprintf("%d passed", code)
		default:
			outcome = fmt.Sprintf("%d refused", code)
		}
		if !d.Allowed {
			outcome += by + ", passes again in " + format.Duration(d.RetryAfter)
		}
		if d.Delay > 0 {
			outcome += ", waits " + format.Duration(d.Delay)
		}
	}
	line := fmt.Sprintf("%s for %s: %s, remaining %s · %s", lane.Name, k.Name, outcome, compactFloat(d.Remaining), strings.Join(parts, "  "))
	switch {
	case len(parts) > 0:
	case product:
		line = fmt.Sprintf("%s for %s: %s, remaining %s · %s sends no RateLimit headers", lane.Name, k.Name, outcome, compactFloat(d.Remaining), lane.Algorithm)
	default:
		line = fmt.Sprintf("%s for %s: %s · no limiter, so no RateLimit headers", lane.Name, k.Name, outcome)
	}
	return m.styles.Header.Render(truncate(line, m.width))
}

// citedMetrics are the metrics the configuration's claims name (both sides of a
// ratio), and, for a run whose keys are classed, what tune judges a lane by.
func citedMetrics(cfg *sim.Config) map[string]bool {
	out := map[string]bool{}
	if cfg.Classes != nil {
		for _, c := range present.ClassColumns {
			out[c.Metric] = true
		}
	}
	for _, c := range cfg.Claims {
		for _, name := range strings.Split(c.Metric, "/") {
			out[name] = true
		}
	}
	return out
}
