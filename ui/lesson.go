package ui

import (
	"fmt"
	"regexp"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ratelab/sim"
)

// The lesson page (l): the scenario's lesson with every citation marked ✓ or ✗ for
// the run being shown, then each claim with the numbers behind it; scrollable, so
// it works at 80×24. On the main screen the lesson's citations are marked the same
// way, and a line counts the claims that hold.

// citation matches a claim cited in a lesson: [id].
var citation = regexp.MustCompile(`\[([a-z0-9][a-z0-9-]*)\]`)

// markCitations replaces each [id] in text with [id ✓] or [id ✗] for the run's
// claims; marks is called with ✓ or ✗ to style it.
func markCitations(text string, results []sim.ClaimResult, mark func(holds bool) string) string {
	holds := map[string]bool{}
	for _, r := range results {
		holds[r.ID] = r.Holds
	}
	return citation.ReplaceAllStringFunc(text, func(m string) string {
		id := m[1 : len(m)-1]
		h, ok := holds[id]
		if !ok {
			return m // a claim dropped with its lanes (--lanes)
		}
		return "[" + id + " " + mark(h) + "]"
	})
}

// claimsSummary is one line: how many claims hold, and where to read them.
func claimsSummary(results []sim.ClaimResult, adjusted bool) string {
	held := 0
	for _, r := range results {
		if r.Holds {
			held++
		}
	}
	s := fmt.Sprintf("claims: %d of %d hold on this run", held, len(results))
	if adjusted {
		s += " (written for the scenario's own policy)"
	}
	return s + " · l: the lesson and its claims"
}

// lessonLines is the lesson page's content at width: the lesson with its
// citations marked, then every claim with its evidence.
func (m *Model) lessonLines(width int) []string {
	cfg := m.runner.cfg
	st := m.styles
	if cfg == nil {
		return []string{m.runner.problem}
	}
	var results []sim.ClaimResult
	if m.runner.run != nil {
		results = m.runner.run.Claims()
	}
	plainMark := func(h bool) string {
		if h {
			return "✓"
		}
		return "✗"
	}
	var out []string
	for _, line := range strings.Split(wrap(markCitations(cfg.Lesson, results, plainMark), width), "\n") {
		out = append(out, colourMarks(st, line))
	}
	if len(results) > 0 {
		out = append(out, "")
	}
	for _, r := range results {
		text := wrap(r.Line(cfg), width-2)
		for i, line := range strings.Split(text, "\n") {
			prefix := "  "
			if i == 0 {
				prefix = ""
			}
			out = append(out, colourMarks(st, prefix+line))
		}
	}
	return out
}

// colourMarks colours the ✓ and ✗ of a line.
func colourMarks(st Styles, line string) string {
	line = strings.ReplaceAll(line, "✓", st.Accept.Render("✓"))
	return strings.ReplaceAll(line, "✗", st.Deny.Render("✗"))
}

// renderLesson draws the lesson page in width × height, from its scroll offset.
func (m *Model) renderLesson(width, height int) string {
	lines := m.lessonLines(width)
	room := max(1, height-2)
	offset := min(m.lessonPage.offset, max(0, len(lines)-room))
	shown := lines[offset:min(len(lines), offset+room)]
	hint := "↑↓ scroll · l or esc back"
	if len(lines) > room {
		hint = fmt.Sprintf("lines %d–%d of %d · ", offset+1, offset+len(shown), len(lines)) + hint
	}
	title := "Lesson: " + m.runner.cfg.Name
	return fit(m.styles.Title.Render(title), width) + "\n" + strings.Join(shown, "\n") + "\n" + fit(m.styles.Subtle.Render(hint), width)
}

// lessonKey handles a key on the lesson page: scroll, or back.
func (m *Model) lessonKey(msg tea.KeyPressMsg) {
	p := &m.lessonPage
	switch k := m.keys; {
	case key.Matches(msg, k.Lesson, k.Unzoom):
		p.open = false
	case key.Matches(msg, k.ScrollDown):
		p.offset = max(0, min(p.offset+1, len(m.lessonLines(m.width))-1))
	case key.Matches(msg, k.ScrollUp):
		p.offset = max(p.offset-1, 0)
	}
}
