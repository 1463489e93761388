package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ratelab/internal/format"
	"ratelab/present"
	"ratelab/scenarios"
	"ratelab/sim"
)

// The lesson page (l): the scenario's lesson with every citation marked ✓ or ✗ for
// the run being shown, then each claim with the numbers behind it, the questions
// the run has passed with its answers, and the verdicts; scrollable, so it works
// at 80×24. On the main screen the lesson's citations are marked the same
// way, and a line counts the claims that hold.

// markCitations replaces each citation [id] in text (sim.Citations) with
// [id ✓], [id ✗] or [id …] for the run's claims (see claimMark); marks styles
// the mark.
func markCitations(text string, cfg *sim.Config, now time.Duration, decided int64, results []sim.ClaimResult, mark func(string) string) string {
	byID := map[string]sim.ClaimResult{}
	for _, r := range results {
		byID[r.ID] = r
	}
	var b strings.Builder
	last := 0
	for _, c := range sim.Citations(text) {
		r, ok := byID[c.ID]
		if !ok {
			continue // a claim dropped with its lanes (--lanes)
		}
		b.WriteString(text[last:c.Start])
		b.WriteString("[" + c.ID + " " + mark(claimMark(cfg, now, decided, r)) + "]")
		last = c.End
	}
	b.WriteString(text[last:])
	return b.String()
}

// notBegun says the stretch of virtual time a claim is about starts after now,
// so the run shown has nothing to judge it on yet (a claim "from 20 s on" at
// 13 s): it is marked … rather than a ✓ that nothing supports.
// So is every claim before the run's first decision (decided: the decisions
// so far), and a claim whose figures have nothing counted yet (a ratio over 0
// for a lane), before the run's end; at the end, nothing counted is a claim
// that does not hold.
func notBegun(cfg *sim.Config, now time.Duration, decided int64, r sim.ClaimResult) bool {
	if stretchAhead(cfg, now, r) {
		return true
	}
	return now < cfg.Duration && (decided == 0 || slices.Contains(r.Undefined, true))
}

// stretchAhead says the stretch of virtual time claim r is about starts after now.
func stretchAhead(cfg *sim.Config, now time.Duration, r sim.ClaimResult) bool {
	return r.Scope >= 0 && r.Scope < len(cfg.Scopes) && cfg.Scopes[r.Scope].From > now
}

// claimMark is ✓ or ✗ for the run so far, or … when its stretch has not begun.
func claimMark(cfg *sim.Config, now time.Duration, decided int64, r sim.ClaimResult) string {
	if notBegun(cfg, now, decided, r) {
		return "…"
	}
	return present.Mark(r)
}

// claimsSummary is one line: how many claims hold, and where to read them.
// Before the run's end the counts are of the run so far: a claim about the whole
// run (tens of thousands of errors) may not hold yet, and one about a later
// stretch has nothing to be judged on.
func claimsSummary(cfg *sim.Config, now time.Duration, decided int64, results []sim.ClaimResult, adjusted bool) string {
	held, waiting := 0, 0
	for _, r := range results {
		switch {
		case notBegun(cfg, now, decided, r):
			waiting++
		case r.Holds:
			held++
		}
	}
	var s string
	if now < cfg.Duration {
		s = fmt.Sprintf("claims so far, at %s of %s: %d of %d hold", format.Duration(now), format.Duration(cfg.Duration), held, len(results))
		if waiting > 0 {
			s += fmt.Sprintf(", %d not begun (marked …)", waiting)
		}
	} else {
		s = fmt.Sprintf("claims: %d of %d hold on this run", held, len(results))
	}
	if adjusted {
		s += " (written for the scenario's own policy)"
	}
	return s + " · l: the lesson, its claims and the verdicts in full"
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
	now := cfg.Duration // no run: nothing is judged so far
	var decided int64
	if s := m.runner.snap; s != nil {
		results, now, decided = s.Claims, s.Now, s.Decisions
	}
	var out []string
	if q, pending := m.pendingQuestion(); pending {
		for _, line := range strings.Split(wrap(hiddenLesson(q), width), "\n") {
			out = append(out, st.Subtle.Render(line))
		}
		return out
	}
	if now < cfg.Duration {
		note := wrap(fmt.Sprintf("The run is at %s of %s: each mark is for the run so far, and … marks a claim about a stretch that has not begun, or with nothing counted yet.",
			format.Duration(now), format.Duration(cfg.Duration)), width)
		for _, line := range strings.Split(note, "\n") {
			out = append(out, m.styles.Subtle.Render(line))
		}
		out = append(out, "")
	}
	for _, line := range strings.Split(wrap(markCitations(cfg.Lesson, cfg, now, decided, results, func(s string) string { return s }), width), "\n") {
		out = append(out, colourMarks(st, line))
	}
	if len(results) > 0 {
		out = append(out, "")
	}
	for _, r := range results {
		line := present.ClaimLine(cfg, r)
		if notBegun(cfg, now, decided, r) {
			why := "its stretch has not begun"
			if !stretchAhead(cfg, now, r) {
				why = "nothing it measures has been counted yet"
			}
			line = "… " + strings.TrimPrefix(line, present.Mark(r)+" ") + " — " + why
		}
		text := wrap(line, width-2)
		for i, line := range strings.Split(text, "\n") {
			prefix := "  "
			if i == 0 {
				prefix = ""
			}
			out = append(out, colourMarks(st, prefix+line))
		}
	}
	if s := m.runner.snap; s != nil && len(s.Answers) > 0 {
		// the questions the run has passed, with its answers
		out = append(out, "", st.Title.Render("Questions the run has passed"))
		for _, a := range s.Answers {
			for _, line := range strings.Split(wrap(present.AnswerLine(cfg, a), width-2), "\n") {
				out = append(out, colourMarks(st, "  "+line))
			}
		}
	}
	if ex := m.exercise(); ex != nil {
		out = append(out, "", st.Title.Render("Exercise"))
		file := ""
		if src := m.runner.catalogue.Source; src.Path != nil {
			file = " --file " + src.Name
		}
		text := fmt.Sprintf("The change: %s. Predict: %s Check it: ratelab run%s --scenario %s --exercise",
			strings.TrimSuffix(strings.Join(strings.Fields(ex.Change), " "), "."), strings.Join(strings.Fields(ex.Predict), " "), file, cfg.Name)
		if m.byHand(ex) {
			text += ", or here with { } (the limit) and [ ] (the burst), then l."
		} else {
			text += "."
		}
		for _, line := range strings.Split(wrap(text, width-2), "\n") {
			out = append(out, "  "+line)
		}
	}
	if s := m.runner.snap; s != nil {
		// the verdicts in full: the main screen has a line for each, cut to its width
		out = append(out, "", st.Title.Render("Verdicts"))
		for _, verdict := range s.verdicts {
			for _, line := range strings.Split(wrap(verdict, width-2), "\n") {
				out = append(out, "  "+line)
			}
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
	room := pageRoom(height)
	offset := min(m.lessonPage.offset, max(0, len(lines)-room))
	shown := lines[offset:min(len(lines), offset+room)]
	hint := "↑↓ pgup pgdn home end · l or esc back"
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
	case key.Matches(msg, k.Reveal):
		m.reveal() // the hidden lesson, on this page
	default:
		p.offset, _ = scroll(msg, k, p.offset, len(m.lessonLines(m.width)), pageRoom(m.pageHeight()))
	}
}

// byHand says the UI's { } and [ ] keys can make the exercise's change: it is
// to the policy alone, and to values the keys step through.
func (m *Model) byHand(ex *scenarios.ExerciseSpec) bool {
	r := &m.runner
	if !ex.HandChange() || r.catalogue == nil || r.catalogue.Scenarios[r.index].Policy == nil {
		return false
	}
	own := r.catalogue.Scenarios[r.index].Policy // as written: a burst left out is the limit
	ownBurst := cmp.Or(own.Burst, own.Limit)
	limit, burst := ex.Policy(own)
	return (limit == 0 || reachable(limit, own.Limit)) && (burst == 0 || reachable(burst, ownBurst))
}

// exercise is the lesson's exercise (scenarios.ExerciseSpec), if it has one.
func (m *Model) exercise() *scenarios.ExerciseSpec {
	r := &m.runner
	if r.catalogue == nil || r.index < 0 || r.index >= len(r.catalogue.Scenarios) || r.cfg == nil || r.catalogue.Scenarios[r.index].Name != r.cfg.Name {
		return nil
	}
	return r.catalogue.Scenarios[r.index].Exercise
}

// nextLesson is the course's next lesson after the one shown: its name and
// part, and false after the last.
func (m *Model) nextLesson() (string, string, bool) {
	r := &m.runner
	if r.catalogue == nil || r.index+1 >= len(r.catalogue.Scenarios) {
		return "", "", false
	}
	next := r.catalogue.Scenarios[r.index+1]
	return next.Name, next.Part.Heading(), true
}
