package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// The lesson page and the help scroll a line, a page (one line kept) or to
// either end, and never past the last page, at 80×24 where the lesson is
// longest: its hint says which lines show.
func TestPagesScrollByThePage(t *testing.T) {
	for _, page := range []string{"l", "?"} {
		m := newModel(t, "retry-storm")
		seekTo(m, m.runner.cfg.Duration) // the whole lesson, its claims and answers
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		press(m, page)
		room := pageRoom(m.pageHeight())
		lines := len(m.lessonLines(m.width))
		if page == "?" {
			lines = m.helpLineCount()
		}
		if lines <= 2*room {
			t.Fatalf("page %q: %d lines of %d a page; the test wants more than two pages", page, lines, room)
		}
		shown := func() string {
			view := m.View().Content
			i := strings.LastIndex(view, "lines ")
			if i < 0 {
				t.Fatalf("page %q: no line count in its hint:\n%s", page, view)
			}
			return strings.Fields(view[i:])[1]
		}
		last := lines - room
		for _, step := range []struct {
			key   string
			first int
		}{
			{"pgdown", room - 1}, {"down", room}, {"pgup", 1},
			{"end", last}, {"pgdown", last}, {"down", last}, {"pgup", last - (room - 1)},
			{"home", 0}, {"up", 0}, {"pgup", 0},
		} {
			press(m, step.key)
			if got, want := shown(), fmt.Sprintf("%d–%d", step.first+1, step.first+room); got != want {
				t.Errorf("page %q, after %s: lines %s shown, want %s (of %d, %d a page)", page, step.key, got, want, lines, room)
			}
		}
	}
}

// A page scrolled to its end on a small screen, then shown on a taller one,
// starts at its new last page: ↑ moves from there at once.
func TestScrollAfterTheScreenGrew(t *testing.T) {
	k := DefaultKeyMap()
	// 51 lines, 20 a page: scrolled to 31; now 36 a page, so 15 is drawn
	if got, _ := scroll(keyPress("up"), k, 31, 51, 36); got != 14 {
		t.Errorf("↑ from the end after the screen grew: first line %d, want 14", got)
	}
	if got, ok := scroll(keyPress("x"), k, 31, 51, 36); ok || got != 15 {
		t.Errorf("another key: %d, %v; want 15 (what is drawn), false", got, ok)
	}
}

// Under the "needs at least 80×24" notice no key acts unseen: space does not
// play, ? opens no help, n switches no scenario; q still quits. Grown again,
// the screen is as it was left.
func TestKeysUnderTheSizeNoticeDoNothing(t *testing.T) {
	m := newModel(t, "retry-storm")
	paused, scenario := m.runner.paused, m.runner.cfg.Name
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	if !strings.Contains(m.View().Content, "needs a terminal of at least") {
		t.Fatalf("no size notice at 60×20:\n%s", m.View().Content)
	}
	for _, k := range []string{"space", "?", "n", "l", "tab"} {
		if cmd := press(m, k); cmd != nil {
			if _, quit := cmd().(tea.QuitMsg); quit {
				t.Fatalf("%s quit under the notice", k)
			}
		}
	}
	// a paste into the picker's filter, opened before the screen shrank
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	for _, k := range []string{"s", "/", "r", "e", "t"} { // the picker, filtering by "ret"
		press(m, k)
	}
	if !m.picker.open || !strings.Contains(m.picker.view(), "ret") {
		t.Fatalf("s / r e t opened no picker filtering by ret:\n%s", m.picker.view())
	}
	filter := m.picker.view()
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	m.Update(tea.PasteMsg{Content: "ZZZ"})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	if got := m.picker.view(); got != filter {
		t.Errorf("a paste under the notice changed the picker:\n%s\nwas\n%s", got, filter)
	}
	press(m, "esc")
	press(m, "esc")
	press(m, "esc")
	if m.picker.open {
		t.Fatal("esc did not close the picker")
	}
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	if m.runner.paused != paused || m.help.open || m.lessonPage.open || m.runner.cfg.Name != scenario {
		t.Errorf("keys acted under the notice: paused %v (was %v), help %v, lesson %v, scenario %q (was %q)",
			m.runner.paused, paused, m.help.open, m.lessonPage.open, m.runner.cfg.Name, scenario)
	}
	cmd := press(m, "q")
	if cmd == nil {
		t.Fatal("q under the notice did not quit")
	}
	if _, quit := cmd().(tea.QuitMsg); !quit {
		t.Error("q under the notice did not quit")
	}
}
