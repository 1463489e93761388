package ui

import (
	"fmt"
	"regexp"

	"ratelab/internal/format"
	"ratelab/sim"
)

// Predict, then see, unspoiled. A lesson states its numbers, and its title
// often does too ("200 requests in 2 ms"); both answer the lesson's questions.
// So while one of its questions is still to come (its instant ahead of the
// run, or asked and not yet answered or skipped), the lesson under the table
// and on the lesson page is hidden behind a line saying why and how to read it
// anyway (L), and the title's numbers show as "…". Seeking past a question
// reveals them, as answering or skipping it does; L reveals them for the rest
// of the scenario's run. A question answered hides nothing from then on, even
// when a seek back, or the scenario opened again, asks it again; the picker
// shows a scenario's title and lesson once all its questions are answered.

// pendingQuestion is the lesson's question still to be answered, the first of
// them by instant, and whether there is one (not once L revealed the lesson).
func (m *Model) pendingQuestion() (sim.Question, bool) {
	cfg := m.runner.cfg
	if cfg == nil || m.revealed {
		return sim.Question{}, false
	}
	if m.quiz.open && !m.quiz.answered {
		return cfg.Questions[m.quiz.question], true
	}
	now := m.runner.now()
	for i, q := range cfg.Questions {
		if q.At > now && !m.answered[i] {
			return q, true
		}
	}
	return sim.Question{}, false
}

// numbers are the numbers of a title: digits with their separators and unit
// prefixes' decimal point ("200", "1,500", "0.5").
var numbers = regexp.MustCompile(`[0-9][0-9,.]*[0-9]|[0-9]`)

// shownTitle is the scenario's title, its numbers hidden while a question is
// pending.
func (m *Model) shownTitle() string {
	title := m.runner.cfg.Title
	if _, pending := m.pendingQuestion(); pending {
		title = numbers.ReplaceAllString(title, "…")
	}
	return title
}

// hiddenLesson is the line that stands for the lesson while question q is
// pending.
func hiddenLesson(q sim.Question) string {
	return fmt.Sprintf("The lesson is hidden until you answer its question at %s: it gives the answer away. Play on to it (space), or L to read the lesson now.", format.Duration(q.At))
}

// reveal shows the lesson and the title's numbers for the rest of this run of
// the scenario (L).
func (m *Model) reveal() {
	if _, pending := m.pendingQuestion(); !pending {
		m.status, m.statusBad = "the lesson is not hidden: no question of it is still to come", false
		return
	}
	m.revealed = true
	m.status, m.statusBad = "the lesson is shown: its questions will still be asked, with their answers in plain view", false
}
