package ui

import (
	"fmt"
	"strings"

	"ratelab/present"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// helpPages are the pages of the help screen: every key, then what every column
// of the comparison means.
const (
	helpKeys = iota
	helpColumns
	helpPageCount
)

// helpView is the help screen's state: which page, and how far it is scrolled.
type helpView struct {
	open   bool
	page   int
	offset int // the first line shown
}

// update handles a key on the help screen, of lines in pages of room: another
// page, scrolling, or back.
func (h *helpView) update(msg tea.KeyPressMsg, keys KeyMap, lines, room int) {
	switch {
	case key.Matches(msg, keys.Help, keys.Unzoom):
		h.open = false
	case key.Matches(msg, keys.HelpPage):
		h.page, h.offset = (h.page+1)%helpPageCount, 0
	default:
		h.offset, _ = scroll(msg, keys, h.offset, lines, room)
	}
}

// helpLines is the page's content as lines of at most width cells: on the keys
// page every binding of the key map, in as many columns as the width holds (in
// one, a long description wrapped under itself); on the columns page each
// column's title and definition, wrapped.
func helpLines(st Styles, keys KeyMap, columns []present.Column, page, width int) []string {
	if page == helpColumns {
		var out []string
		titleWidth := 0
		for _, c := range columns {
			titleWidth = max(titleWidth, lipgloss.Width(c.Title))
		}
		for _, c := range columns {
			out = append(out, labelled(st, c.Title, c.Help, titleWidth, width)...)
		}
		return out
	}
	var items []key.Binding
	for _, group := range keys.FullHelp() {
		items = append(items, group...)
	}
	keyWidth, descWidth := 0, 0
	for _, b := range items {
		keyWidth = max(keyWidth, lipgloss.Width(b.Help().Key))
		descWidth = max(descWidth, lipgloss.Width(b.Help().Desc))
	}
	cell := keyWidth + 2 + descWidth + 3
	cols := max(1, min(width/cell, 3))
	if cols == 1 { // one column: a description too long for the line goes on under itself
		var out []string
		for _, b := range items {
			for _, line := range labelled(st, b.Help().Key, b.Help().Desc, keyWidth, width) {
				out = append(out, fit(line, width))
			}
		}
		return out
	}
	rows := (len(items) + cols - 1) / cols
	out := make([]string, rows)
	for i, b := range items {
		desc := b.Help().Desc
		if i/rows < cols-1 { // padded to line up the next column; the last needs none
			desc = fmt.Sprintf("%-*s", descWidth, desc)
		}
		text := st.Header.Render(fmt.Sprintf("%-*s", keyWidth, b.Help().Key)) + "  " + st.Status.Render(desc)
		if i/rows > 0 {
			text = "   " + text
		}
		out[i%rows] += text
	}
	for i := range out {
		out[i] = fit(out[i], width)
	}
	return out
}

// labelled is text wrapped beside its label (padded to labelWidth), the label
// on the first line only, in lines of width cells.
func labelled(st Styles, label, text string, labelWidth, width int) []string {
	var out []string
	for i, line := range strings.Split(wrap(text, max(10, width-labelWidth-2)), "\n") {
		if i > 0 {
			label = ""
		}
		out = append(out, st.Header.Render(fmt.Sprintf("%-*s", labelWidth, label))+"  "+st.Status.Render(line))
	}
	return out
}

// render draws the help screen in width × height: a title naming the page, the
// page's lines from the scroll offset, and how to move around.
func (h *helpView) render(st Styles, keys KeyMap, columns []present.Column, width, height int) string {
	lines := helpLines(st, keys, columns, h.page, width)
	room := pageRoom(height)
	offset := min(h.offset, max(0, len(lines)-room))
	shown := lines[offset:min(len(lines), offset+room)]
	title := [...]string{"Keys", "What the columns mean"}[h.page]
	title = fmt.Sprintf("%s (page %d of %d)", title, h.page+1, helpPageCount)
	hint := "tab next page · ↑↓ pgup pgdn home end · ? or esc back"
	if len(lines) > room {
		hint = fmt.Sprintf("lines %d–%d of %d · ", offset+1, offset+len(shown), len(lines)) + hint
	}
	return fit(st.Title.Render(title), width) + "\n" + strings.Join(shown, "\n") + "\n" + fit(st.Subtle.Render(hint), width)
}

// helpLineCount is how many lines the help page shown has, at the width.
func (m *Model) helpLineCount() int {
	return len(helpLines(m.styles, m.keys, present.ColumnsFor(m.runner.cfg), m.help.page, m.width))
}
