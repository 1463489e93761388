package present

import (
	"fmt"
	"strings"

	"ratelab/internal/format"
	"ratelab/sim"
)

// A lesson's questions and the run's answers in words: the table's lines, the
// JSON, and what the UI shows once the learner has answered.

// ChoiceLabel is the letter a choice is picked with: a, b, c…
func ChoiceLabel(i int) string { return string(rune('a' + i)) }

// Choices lists a question's choices with their letters: "a) under 200  b) …".
func Choices(q sim.Question) string {
	var parts []string
	for i, c := range q.Choices {
		parts = append(parts, ChoiceLabel(i)+") "+c.Text)
	}
	return strings.Join(parts, "  ")
}

// AnswerText is the run's answer in words: the number, or the right choice
// (with the number it holds, for a range); or why there is no one answer.
func AnswerText(cfg *sim.Config, a sim.Answer) string {
	q := cfg.Questions[a.Question]
	switch {
	case len(q.Choices) == 0 && a.Undefined:
		return "none: the value is a ratio over 0 on this run"
	case len(q.Choices) == 0 && q.Tolerance > 0:
		return fmt.Sprintf("%s (±%s)", format.Number(a.Value), format.Number(q.Tolerance))
	case len(q.Choices) == 0:
		return format.Number(a.Value)
	}
	if i, ok := a.Choice(); ok {
		s := ChoiceLabel(i) + ") " + q.Choices[i].Text
		if !q.LaneChoices() {
			s += " — the run: " + Value(q, a.Value)
		}
		return s
	}
	var fits []string
	for _, i := range a.Right {
		fits = append(fits, ChoiceLabel(i)+") "+q.Choices[i].Text)
	}
	switch {
	case q.LaneChoices() && len(fits) == 0:
		return fmt.Sprintf("none: claim [%s] holds on none of these lanes on this run", a.Claim.ID)
	case q.LaneChoices():
		return fmt.Sprintf("no single one: claim [%s] holds on %s", a.Claim.ID, strings.Join(fits, " and "))
	case a.Undefined:
		return "none: the value is a ratio over 0 on this run"
	}
	return fmt.Sprintf("none of the choices: the run's value is %s", Value(q, a.Value))
}

// Value is v as q's choices write numbers: a percentage when they do.
func Value(q sim.Question, v float64) string {
	for _, c := range q.Choices {
		if strings.Contains(c.Text, "%") {
			return format.Number(format.RoundTo(v*100, 0.01)) + "%"
		}
	}
	return format.Number(v)
}

// AnswerLine is a question and the run's answer on one line, as ratelab run
// prints it: "? at 1.002s: How many …? → 200 (the claim [fw-200] ✓)".
func AnswerLine(cfg *sim.Config, a sim.Answer) string {
	q := cfg.Questions[a.Question]
	ask := q.Ask
	if len(q.Choices) > 0 {
		ask += " " + Choices(q)
	}
	return fmt.Sprintf("? at %s: %s → %s (the claim [%s] %s)", format.Duration(q.At), ask, AnswerText(cfg, a), a.Claim.ID, Mark(a.Claim))
}

// QuestionJSON is a question and the run's answer in Report.
type QuestionJSON struct {
	AtMS    float64  `json:"at_ms"`
	Ask     string   `json:"ask"`
	Show    string   `json:"show"`
	Claim   string   `json:"claim"`
	Lane    string   `json:"lane,omitempty"`
	Choices []string `json:"choices,omitempty"`
	// Tolerance is how far a number may be from Value and be right.
	Tolerance float64 `json:"tolerance,omitempty"`
	// Answer is the run's answer in words (see AnswerText); Value the number
	// behind it (a question of a number or ranges), Right the choices that fit.
	Answer string   `json:"answer"`
	Value  *float64 `json:"value,omitempty"`
	Right  []string `json:"right,omitempty"`
	// Holds says the claim holds on the run so far at the question's instant.
	Holds bool `json:"claim_holds"`
}

// questionsJSON are the answers as Report holds them.
func questionsJSON(cfg *sim.Config, answers []sim.Answer) []QuestionJSON {
	var out []QuestionJSON
	for _, a := range answers {
		q := cfg.Questions[a.Question]
		j := QuestionJSON{AtMS: format.Millis(q.At), Ask: q.Ask, Show: q.Show, Claim: a.Claim.ID, Tolerance: q.Tolerance, Answer: AnswerText(cfg, a), Holds: a.Claim.Holds}
		if q.Lane >= 0 {
			j.Lane = cfg.Lanes[q.Lane].Name
			if !a.Undefined {
				v := a.Value
				j.Value = &v
			}
		}
		for _, c := range q.Choices {
			j.Choices = append(j.Choices, c.Text)
		}
		for _, i := range a.Right {
			j.Right = append(j.Right, q.Choices[i].Text)
		}
		out = append(out, j)
	}
	return out
}
