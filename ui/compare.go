package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/table"
	"charm.land/lipgloss/v2"

	"ratelab/algorithms"
	"ratelab/sim"
)

// newTable returns the comparison table, its columns those of sim.Columns.
func newTable(st Styles) table.Model {
	t := table.New(table.WithFocused(false))
	t.SetStyles(tableStyles(st))
	return t
}

func tableStyles(st Styles) table.Styles {
	s := table.DefaultStyles()
	s.Header = st.TableHeader.Padding(0, 1)
	s.Cell = s.Cell.Padding(0, 1)
	s.Selected = st.TableSelected
	return s
}

// renderTable fills the table with every lane's metrics, columns as wide as their
// widest cell, the focused lane selected.
func (m *Model) renderTable(ms []sim.Metrics) string {
	cols := make([]table.Column, len(sim.Columns))
	rows := make([]table.Row, len(ms))
	for i, c := range sim.Columns {
		cols[i] = table.Column{Title: c.Title, Width: lipgloss.Width(c.Title)}
	}
	for r, met := range ms {
		row := make(table.Row, len(sim.Columns))
		for i, c := range sim.Columns {
			row[i] = c.Cell(met)
			cols[i].Width = max(cols[i].Width, lipgloss.Width(row[i]))
		}
		rows[r] = row
	}
	// keep the columns that fit the width whole (each is padded by one each side)
	used, keep := 0, 0
	for _, c := range cols {
		if used+c.Width+2 > m.width {
			break
		}
		used, keep = used+c.Width+2, keep+1
	}
	cols = cols[:max(1, keep)]
	for i := range rows {
		rows[i] = rows[i][:len(cols)]
	}
	// Every setter re-renders all rows, so only what changed is set: the rows
	// change every frame, the rest rarely.
	if !slices.Equal(cols, m.table.Columns()) {
		m.table.SetColumns(cols)
	}
	if m.tableHeight != len(rows)+2 { // Height() reports it less the header
		m.tableHeight = len(rows) + 2
		m.table.SetHeight(m.tableHeight)
	}
	if m.table.Width() != m.width {
		m.table.SetWidth(m.width)
	}
	if m.table.Cursor() != m.focus {
		m.table.SetCursor(m.focus)
	}
	m.table.SetRows(rows)
	return m.table.View()
}

// renderVerdicts is one line per lane saying what it did, the focused lane's
// highlighted.
func (m *Model) renderVerdicts(ms []sim.Metrics) []string {
	out := make([]string, len(ms))
	for i, met := range ms {
		line := truncate(sim.Verdict(m.cfg, met), m.width-2)
		if i == m.focus {
			out[i] = m.styles.TableSelected.Render("▸ " + line)
		} else {
			out[i] = m.styles.Verdict.Render("  " + line)
		}
	}
	return out
}

// renderHeaders is the HTTP response headers the focused lane's latest decision
// would send.
func (m *Model) renderHeaders() string {
	l := m.run.Lanes[m.focus]
	d, k, ok := l.LastDecision()
	if !ok {
		return m.styles.Subtle.Render("headers: no decision yet")
	}
	tier := m.cfg.Tiers[k.Tier]
	var parts []string
	for _, h := range algorithms.Headers(tier.Name, l.Config.TierPolicy(m.cfg, k.Tier), d) {
		parts = append(parts, h.Name+": "+h.Value)
	}
	verdict := "200"
	if !d.Allowed {
		verdict = "429"
	}
	line := "headers of " + l.Config.Name + " for " + k.Name + " (" + verdict + "): " + strings.Join(parts, "  ")
	return m.styles.Header.Render(truncate(line, m.width))
}
