package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// A page that scrolls (the help, the lesson) shows room lines of its own
// between its title and its hint, from its first line shown; that moves a line
// (↑ ↓), a page keeping one line of the page before (pgup pgdn), or to the top
// or the last page (home end), never past the last page.

// pageHeight is the rows a page has below the header.
func (m *Model) pageHeight() int { return m.height - 2 }

// pageRoom is the lines a page of height rows shows: all but its title and hint.
func pageRoom(height int) int { return max(1, height-2) }

// scroll is the first line shown after msg, on a page of lines shown room at a
// time; false when msg does not scroll.
func scroll(msg tea.KeyPressMsg, k KeyMap, offset, lines, room int) (int, bool) {
	last := max(0, lines-room)
	offset = min(offset, last) // a screen grown since shows more: the page drawn starts at last
	switch {
	case key.Matches(msg, k.ScrollDown):
		offset++
	case key.Matches(msg, k.ScrollUp):
		offset--
	case key.Matches(msg, k.PageDown):
		offset += max(1, room-1)
	case key.Matches(msg, k.PageUp):
		offset -= max(1, room-1)
	case key.Matches(msg, k.Top):
		offset = 0
	case key.Matches(msg, k.Bottom):
		offset = last
	default:
		return offset, false
	}
	return max(0, min(offset, last)), true
}
