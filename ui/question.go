package ui

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"ratelab/internal/format"
	"ratelab/present"
	"ratelab/scenarios"
	"ratelab/sim"
)

// Predict, then see: a lesson's question (sim.Question) is asked when the run
// reaches its instant by playing or stepping (runner.takeQuestion pauses it
// there; a seek past it does not ask it, and going back before it asks it
// again). The lanes are hidden while it is asked, so the learner predicts
// rather than reads; they type a number, or pick a choice (a, b, c…, or ↑ ↓),
// and enter shows the run's answer — right or not, and by how much for a
// number —, for a wrong answer the scenario's word on the misconception behind
// it, the claim that proves it with its numbers, and where on screen to see
// it. Any key then goes on (the run plays on if it was playing), but enter,
// which zooms the lane the answer points at and stays at the question's
// instant; esc skips the question unanswered.

// quiz is the question being asked, if any.
type quiz struct {
	open     bool
	question int  // in cfg.Questions
	resume   bool // the run was playing when it was asked: it goes on after
	input    textinput.Model
	pick     int    // the choice picked, -1 for none
	problem  string // why enter did not take the answer
	answered bool
	// once answered: what the learner said, and whether it was right
	said  string
	right bool
	off   float64 // a number: what they said less the run's answer
}

func newQuiz() quiz {
	in := textinput.New()
	in.Prompt = "your answer: "
	in.Placeholder = "a number"
	in.CharLimit = 24
	in.SetWidth(24)
	return quiz{input: in, pick: -1}
}

// numberKeys are the characters a number may be typed with (1,500 or 25%).
const numberKeys = "0123456789.,-+%eE"

// askQuestion opens question q, which the run has just reached. Whatever was
// open over the main screen (help, the lesson page, the go-to prompt) gives way
// to it; the picker does not, and the question waits for it (askDue).
func (m *Model) askQuestion(q int, resume bool) {
	in := m.quiz.input
	m.quiz = quiz{open: true, question: q, resume: resume, input: in, pick: -1}
	m.quiz.input.SetValue("")
	m.quiz.input.Focus()
	m.help.open, m.lessonPage.open = false, false
	m.jump.hide()
}

// askDue asks the question the run has reached, if one is due and none is
// being asked.
func (m *Model) askDue() {
	if m.quiz.open || m.picker.open {
		// the picker's keys are the filter's: a question the run reaches
		// meanwhile waits (the run stops at its instant) until it closes
		return
	}
	if q, resume, ok := m.runner.takeQuestion(); ok {
		m.askQuestion(q, resume)
	}
}

// quizKey handles a key while a question is open.
func (m *Model) quizKey(msg tea.KeyPressMsg) tea.Cmd {
	k, z := m.keys, &m.quiz
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case z.answered && key.Matches(msg, k.Zoom):
		// enter zooms what "see it" points at, at the question's instant: the
		// run stays paused there (space plays on)
		z.resume = false
		cmd := m.closeQuiz(false)
		if !m.quiz.open {
			m.zoom = true
			m.status += " · space plays on"
		}
		return cmd
	case z.answered:
		return m.closeQuiz(false) // any key goes on
	case key.Matches(msg, k.Skip):
		return m.closeQuiz(true)
	case key.Matches(msg, k.Answer):
		m.answerQuiz()
		return nil
	}
	q := m.runner.cfg.Questions[z.question]
	if len(q.Choices) > 0 {
		switch s := msg.String(); {
		case s == "up":
			z.pick = max(0, z.pick-1)
		case s == "down":
			z.pick = min(len(q.Choices)-1, z.pick+1)
		case len(s) == 1 && s[0] >= 'a' && int(s[0]-'a') < len(q.Choices):
			z.pick = int(s[0] - 'a')
		default:
			return nil
		}
		z.problem = ""
		return nil
	}
	if t := msg.Key().Text; t != "" && strings.Trim(t, numberKeys) != "" {
		return nil // not a character of a number
	}
	z.problem = ""
	var cmd tea.Cmd
	z.input, cmd = z.input.Update(msg)
	return cmd
}

// answerQuiz takes the answer given, if it is one, and compares it with the
// run's.
func (m *Model) answerQuiz() {
	z, cfg := &m.quiz, m.runner.cfg
	q := cfg.Questions[z.question]
	a, ok := m.answer()
	if !ok {
		z.problem = "the run has no answer yet; esc skips"
		return
	}
	if len(q.Choices) > 0 {
		if z.pick < 0 {
			z.problem = fmt.Sprintf("pick a choice: a to %s (or ↑ ↓), then enter; esc skips", present.ChoiceLabel(len(q.Choices)-1))
			return
		}
		right, _ := a.Choice()
		z.said, z.right = present.ChoiceLabel(z.pick)+") "+q.Choices[z.pick].Text, z.pick == right
		m.markAnswered()
		return
	}
	v, err := scenarios.ParseNumber(z.input.Value())
	if err != nil {
		z.problem = "type a number, like 200, 1,500 or 25%; esc skips"
		return
	}
	z.said, z.off = format.Number(v), v-a.Value
	z.right = !a.Undefined && math.Abs(z.off) <= q.Tolerance
	m.markAnswered()
}

// markAnswered notes that the question asked was answered: the quiz shows the
// answer, and what the question hides stays shown from then on, even once a
// seek back, or the scenario opened again, asks it again; the picker shows
// the scenario's title and lesson once all its questions are answered.
func (m *Model) markAnswered() {
	m.quiz.answered = true
	if m.answered == nil {
		m.answered = map[int]bool{}
		if m.answeredIn == nil {
			m.answeredIn = map[int]map[int]bool{}
		}
		m.answeredIn[m.runner.index] = m.answered
	}
	m.answered[m.quiz.question] = true
	if len(m.answered) == len(m.runner.cfg.Questions) {
		m.picker.answeredAll(m.runner.index)
	}
}

// answer is the run's answer to the question asked.
func (m *Model) answer() (sim.Answer, bool) {
	if s := m.runner.snap; s != nil {
		for _, a := range s.Answers {
			if a.Question == m.quiz.question {
				return a, true
			}
		}
	}
	return sim.Answer{}, false
}

// seeItStatus begins the status that says where an answered question's
// answer shows; it goes when the run plays on.
const seeItStatus = "see it: "

// closeQuiz closes the question — answered, or skipped — and goes on: the run
// plays on if it was playing, and the next question at the same instant, if
// any, is asked.
func (m *Model) closeQuiz(skipped bool) tea.Cmd {
	z := m.quiz
	m.quiz.open = false
	m.quiz.input.Blur()
	q := m.runner.cfg.Questions[z.question]
	m.status, m.statusBad = seeItStatus+q.Show, false
	if lane := questionLane(q, m.answer); lane >= 0 && lane < len(m.runner.cfg.Lanes) {
		m.focus = lane // what "see it" points at is focused: enter zooms it
	}
	if skipped {
		m.status = fmt.Sprintf("skipped the question at %s; going back before it (← or g) asks it again", format.Duration(q.At))
	}
	if m.askDue(); m.quiz.open {
		m.quiz.resume = z.resume
		return nil
	}
	if z.resume && m.runner.paused {
		return m.runner.pause()
	}
	return nil
}

// quizLines is the question's screen at width, in lines: the question, its
// choices or the answer typed, and once answered the run's answer, the claim
// that proves it and where to see it.
func (m *Model) quizLines(width int) []string {
	st, cfg, z := m.styles, m.runner.cfg, &m.quiz
	q := cfg.Questions[z.question]
	var out []string
	add := func(style lipgloss.Style, text string) {
		for _, line := range strings.Split(wrap(text, width), "\n") {
			out = append(out, style.Render(line))
		}
	}
	title := fmt.Sprintf("Predict, then see — question %d of %d, at %s", z.question+1, len(cfg.Questions), format.Duration(q.At))
	add(st.Title, title)
	out = append(out, "")
	add(st.Lesson, q.Ask)
	out = append(out, "")
	a, known := m.answer()
	for i, c := range q.Choices {
		mark, style := "  ", st.Status
		if i == z.pick {
			mark, style = "▸ ", st.TableSelected
		}
		switch {
		case z.answered && known && slices.Contains(a.Right, i):
			mark, style = "✓ ", st.Accept
		case z.answered && i == z.pick:
			mark, style = "✗ ", st.Deny
		}
		line := fit(mark+present.ChoiceLabel(i)+") "+c.Text, width)
		if z.answered && q.LaneChoices() && i < len(a.Values) {
			line = fit(fmt.Sprintf("%-*s  %s %s", 24, mark+present.ChoiceLabel(i)+") "+c.Text, a.Claim.Metric, format.Number(a.Values[i])), width)
		}
		out = append(out, style.Render(line))
	}
	if len(q.Choices) == 0 && !z.answered {
		out = append(out, fit(z.input.View(), width))
	}
	if !z.answered {
		out = append(out, "")
		if z.problem != "" {
			add(st.Error, z.problem)
		}
		hint := "type a number, enter to answer, esc to skip"
		if len(q.Choices) > 0 {
			hint = fmt.Sprintf("a to %s (or ↑ ↓) to pick, enter to answer, esc to skip", present.ChoiceLabel(len(q.Choices)-1))
		}
		add(st.Subtle, hint+" · the lanes are hidden until you answer")
		return out
	}
	if len(q.Choices) > 0 {
		out = append(out, "")
	}
	verdict, style := "✓ Right: ", st.Accept
	if !z.right {
		verdict, style = "✗ Not quite: ", st.Deny
	}
	verdict += present.AnswerText(cfg, a) + ". You said " + z.said
	if len(q.Choices) == 0 && !a.Undefined && z.off != 0 {
		verdict += ": " + offBy(z.off, a.Value)
	}
	add(style, verdict+".")
	if why := whyWrong(q, z); why != "" {
		add(st.Lesson, "Why not: "+why)
	}
	proof := "The proof: [" + a.Claim.ID + "] " + present.ClaimLine(cfg, a.Claim)
	if !settled(cfg, q, a.Claim) {
		proof += fmt.Sprintf(", on the run so far at %s", format.Duration(q.At))
	}
	for _, line := range strings.Split(wrap(proof+".", width), "\n") {
		out = append(out, colourMarks(st, line))
	}
	add(st.Status, "See it: "+q.Show+".")
	return out
}

// questionLane is the lane question q is about: the lane whose value answers
// it, or for a question of lanes the right one; -1 when there is none yet.
func questionLane(q sim.Question, answer func() (sim.Answer, bool)) int {
	if q.Lane >= 0 {
		return q.Lane
	}
	if a, ok := answer(); ok {
		if right, ok := a.Choice(); ok && right < len(q.Choices) {
			return q.Choices[right].Lane
		}
	}
	return -1
}

// whyWrong is the question's feedback for the wrong answer z gave: the
// picked choice's, or a number's too low or too high; empty for a right answer
// or when the scenario gives none.
func whyWrong(q sim.Question, z *quiz) string {
	switch {
	case z.right:
		return ""
	case len(q.Choices) > 0 && z.pick >= 0 && z.pick < len(q.Choices):
		return q.Choices[z.pick].Why
	case z.off < 0:
		return q.WhyLow
	case z.off > 0:
		return q.WhyHigh
	}
	return ""
}

// settled says claim c's value can no longer change once the run is at q's
// instant: it counts decisions up to then, or the run is over.
func settled(cfg *sim.Config, q sim.Question, c sim.ClaimResult) bool {
	if q.At >= cfg.Duration {
		return true
	}
	return c.Scope >= 0 && c.Scope < len(cfg.Scopes) && cfg.Scopes[c.Scope].To > 0 && cfg.Scopes[c.Scope].To <= q.At
}

// offBy says how far a number said is from the run's: "50 under (25% low)".
func offBy(off, answer float64) string {
	s := format.Number(math.Abs(off)) + " over"
	if off < 0 {
		s = format.Number(-off) + " under"
	}
	if answer != 0 {
		s += fmt.Sprintf(", %s%%", format.Number(format.RoundTo(math.Abs(off)/math.Abs(answer)*100, 1)))
		if off < 0 {
			s += " low"
		} else {
			s += " high"
		}
	}
	return s
}

// renderQuiz draws the question in a box of at most width × height.
func (m *Model) renderQuiz(width, height int) string {
	boxWidth := min(width, 100)
	inner := max(1, boxWidth-4) // the border and a column of padding each side
	lines := m.quizLines(inner)
	room := max(1, height-2)
	if len(lines) > room { // short of room: the blank lines go first
		kept := lines[:0:0]
		for _, l := range lines {
			if l != "" {
				kept = append(kept, l)
			}
		}
		lines = kept
	}
	if len(lines) > room {
		lines = lines[:room]
	}
	for i, l := range lines {
		lines[i] = fit(l, inner)
	}
	box := m.styles.FocusedPanel.Width(boxWidth).Render(strings.Join(lines, "\n"))
	if lipgloss.Width(box) > width || lipgloss.Height(box) > height {
		return strings.Join(lines, "\n") // no room for the border
	}
	return box
}

// quizHelp is the help line while a question is open.
func (m *Model) quizHelp() string {
	if m.quiz.answered {
		return m.styles.Subtle.Render(fit("enter zooms the answer · any other key goes on · q quit", m.width))
	}
	return m.styles.Subtle.Render(fit("enter answer · esc skip · q quit", m.width))
}
