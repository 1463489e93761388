package ui

import (
	"image/color"

	"charm.land/lipgloss/v2"
	"github.com/guptarohit/asciigraph"
)

// Styles is every style the UI draws with, built for a dark or a light
// background (see newStyles); nothing else in the package picks a colour.
type Styles struct {
	Title, Subtle, Status, Error, Warn    lipgloss.Style
	Running, Paused, Finished             lipgloss.Style
	Panel, FocusedPanel                   lipgloss.Style
	PanelTitle, Counters                  lipgloss.Style
	Accept, Deny                          lipgloss.Style
	Lesson, Verdict, Header               lipgloss.Style
	TableHeader, TableCell, TableSelected lipgloss.Style

	// graph colours, as asciigraph wants them
	Level, AcceptLine, DenyLine asciigraph.AnsiColor
}

// newStyles returns the styles for a dark (isDark) or light background.
func newStyles(isDark bool) Styles {
	pick := lipgloss.LightDark(isDark)
	var (
		fg      = pick(lipgloss.Color("#1f2328"), lipgloss.Color("#e6edf3"))
		subtle  = pick(lipgloss.Color("#656d76"), lipgloss.Color("#8b949e"))
		accent  = pick(lipgloss.Color("#0550ae"), lipgloss.Color("#79c0ff"))
		green   = pick(lipgloss.Color("#1a7f37"), lipgloss.Color("#3fb950"))
		red     = pick(lipgloss.Color("#cf222e"), lipgloss.Color("#f85149"))
		amber   = pick(lipgloss.Color("#9a6700"), lipgloss.Color("#d29922"))
		border  = pick(lipgloss.Color("#d0d7de"), lipgloss.Color("#30363d"))
		focused = accent
	)
	text := func(c color.Color) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }
	s := Styles{
		Title:         text(accent).Bold(true),
		Subtle:        text(subtle),
		Status:        text(fg),
		Error:         text(red).Bold(true),
		Warn:          text(amber),
		Running:       text(green).Bold(true),
		Paused:        text(amber).Bold(true),
		Finished:      text(subtle).Bold(true),
		Panel:         lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(border).Padding(0, 1),
		FocusedPanel:  lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(focused).Padding(0, 1),
		PanelTitle:    text(fg).Bold(true),
		Counters:      text(subtle),
		Accept:        text(green),
		Deny:          text(red),
		Lesson:        text(fg),
		Verdict:       text(subtle),
		Header:        text(accent),
		TableHeader:   text(fg).Bold(true).BorderStyle(lipgloss.NormalBorder()).BorderBottom(true).BorderForeground(border),
		TableCell:     text(fg),
		TableSelected: text(accent).Bold(true),
		Level:         asciigraph.Blue,
		AcceptLine:    asciigraph.Green,
		DenyLine:      asciigraph.Red,
	}
	if !isDark {
		s.Level = asciigraph.Navy
		s.AcceptLine = asciigraph.DarkGreen
		s.DenyLine = asciigraph.DarkRed
	}
	return s
}
