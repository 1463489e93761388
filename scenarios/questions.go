package scenarios

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"ratelab/algorithms"
	"ratelab/internal/format"
	"ratelab/internal/suggest"
	"ratelab/sim"
)

// A lesson's questions ([[scenario.question]]) ask the learner to predict what
// the run is about to show. Each names a claim: the claim's value on the run so
// far at the question's instant is the answer, so the file never writes an
// answer down, and one cannot be wrong for the run shown. A question of choices
// offers ranges of that value (the right one holds it) or lanes (the right one
// is the lane on which the claim's comparison holds); which is right is worked
// out on the run, never written.

// MaxChoices is the most choices a question may offer: the learner picks one
// with a letter, a to i.
const MaxChoices = 9

// ChoiceText is one of a question's choices as the file writes it: a lane's
// name, or a range of numbers. It reads a bare number too (choices = [200, 300]),
// as an exact value.
type ChoiceText struct{ Text string }

// UnmarshalText keeps the text; what it means is the compiler's to say, once
// the scenario's lanes are known.
func (c *ChoiceText) UnmarshalText(b []byte) error {
	c.Text = string(b)
	return nil
}

// MarshalText writes the text as written.
func (c ChoiceText) MarshalText() ([]byte, error) { return []byte(c.Text), nil }

// rangeForms are the ways to write a range, for messages.
const rangeForms = `"200", "100–199" (or "100 to 199"), "< 100", "<= 100", "> 200", ">= 200", "under 100", "over 200", "at most 100", "at least 200", "200 or more", "100 or fewer", percentages as "5%"`

// rangeWords are the words that open or close a one-sided range, with what they
// mean: the number is the high end (upper) or the low end, included or not
// (open). "<=" comes before "<", so the longer is read first.
var rangeWords = []struct {
	word, suffix string
	upper, open  bool
}{
	{word: "<=", upper: true}, {word: "≤", upper: true}, {word: "at most ", upper: true},
	{suffix: " or fewer", upper: true}, {suffix: " or less", upper: true},
	{word: "<", upper: true, open: true}, {word: "under ", upper: true, open: true},
	{word: "less than ", upper: true, open: true}, {word: "fewer than ", upper: true, open: true},
	{word: ">="}, {word: "≥"}, {word: "at least "}, {suffix: " or more"},
	{word: ">", open: true}, {word: "over ", open: true}, {word: "more than ", open: true},
}

// parseRange reads a range of numbers as a choice writes it (rangeForms).
func parseRange(text string) (sim.Range, error) {
	s := strings.ToLower(strings.TrimSpace(text))
	inf := math.Inf(1)
	for _, w := range rangeWords {
		var rest string
		switch {
		case w.word != "" && strings.HasPrefix(s, w.word):
			rest = s[len(w.word):]
		case w.suffix != "" && strings.HasSuffix(s, w.suffix):
			rest = s[:len(s)-len(w.suffix)]
		default:
			continue
		}
		n, err := parseNumber(rest)
		if err != nil {
			return sim.Range{}, err
		}
		if w.upper {
			return sim.Range{Lo: -inf, Hi: n, HiOpen: w.open}, nil
		}
		return sim.Range{Lo: n, Hi: inf, LoOpen: w.open}, nil
	}
	for _, dash := range []string{"–", "—", " to ", "-"} {
		i := strings.Index(s, dash)
		if dash == "-" && i == 0 { // a negative number's sign
			i = strings.Index(s[1:], dash)
			if i >= 0 {
				i++
			}
		}
		if i <= 0 {
			continue
		}
		lo, err := parseNumber(s[:i])
		if err != nil {
			return sim.Range{}, err
		}
		hi, err := parseNumber(s[i+len(dash):])
		if err != nil {
			return sim.Range{}, err
		}
		if lo > hi {
			return sim.Range{}, fmt.Errorf("its low end, %s, is above its high end, %s", format.Number(lo), format.Number(hi))
		}
		return sim.Range{Lo: lo, Hi: hi}, nil
	}
	n, err := parseNumber(s)
	if err != nil {
		return sim.Range{}, err
	}
	return sim.Range{Lo: n, Hi: n}, nil
}

// ParseNumber reads a number as a person writes it: "1500", "1,500", "1.5",
// "-3", "25%" (0.25); a finite number, or an error saying what was read.
func ParseNumber(text string) (float64, error) { return parseNumber(text) }

func parseNumber(text string) (float64, error) {
	s := strings.ReplaceAll(strings.TrimSpace(text), ",", "")
	scale := 1.0
	if t, ok := strings.CutSuffix(s, "%"); ok {
		s, scale = strings.TrimSpace(t), 0.01
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number", strings.TrimSpace(text))
	}
	return v * scale, nil
}

// questions compiles the scenario's questions, in the order they are asked (by
// at, then as written). A question whose claim or lanes --lanes left out is
// dropped with them; every other problem is an error naming the question and
// the fix.
func (c *compiler) questions(Overrides) error {
	var out []sim.Question
	for i, spec := range c.s.Questions {
		q, keep, err := c.question(i, spec)
		if err != nil {
			return err
		}
		if keep {
			out = append(out, q)
		}
	}
	slices.SortStableFunc(out, func(a, b sim.Question) int { return cmp.Compare(a.At, b.At) })
	c.cfg.Questions = out
	return nil
}

// question compiles question i; keep is false when --lanes left out what it
// is about.
func (c *compiler) question(i int, spec QuestionSpec) (q sim.Question, keep bool, err error) {
	at := func(key string, more ...any) []any { return append([]any{"question", i, key}, more...) }
	bad := func(key, format string, args ...any) error {
		return c.fail(at(key), "question %d (at %s): %s", i+1, spec.At, fmt.Sprintf(format, args...))
	}
	q = sim.Question{At: spec.At.Duration, Ask: strings.Join(strings.Fields(spec.Ask), " "), Show: strings.Join(strings.Fields(spec.Show), " "), Lane: -1}
	switch d := c.cfg.Duration; {
	case q.At <= 0:
		return q, false, bad("at", "at must be a virtual time after the start and at most the duration, %s (got %q): when to pause and ask, like at = \"1002ms\"", d, spec.At.String())
	case q.At > d:
		return q, false, bad("at", "at %s is past the end of the run, %s; ask within it", q.At, d)
	case q.At%algorithms.Resolution != 0:
		return q, false, bad("at", "at must be a whole number of microseconds (got %s)", q.At)
	case q.Ask == "":
		return q, false, bad("ask", "ask is missing: the question to put to the learner")
	case q.Show == "":
		return q, false, bad("show", "show is missing: a sentence saying where on screen the answer can be seen, like \"zoom the fixed window: tab to focus it, enter to zoom\"")
	}
	for _, text := range []struct{ key, s string }{{"ask", spec.Ask}, {"show", spec.Show}} {
		if err := plainExcept(text.key, text.s, "\n\r\t"); err != nil {
			return q, false, bad(text.key, "%v", err)
		}
	}

	// the claim that answers it, as the file declares it and as compiled
	var ids []string
	declared := -1
	for j, cs := range c.s.Claims {
		ids = append(ids, cs.ID)
		if cs.ID == spec.Claim {
			declared = j
		}
	}
	if declared < 0 {
		msg := "claim is missing: the id of the claim whose value on the run answers it"
		if spec.Claim != "" {
			msg = fmt.Sprintf("no claim %q in this scenario", spec.Claim)
		}
		if len(ids) == 0 {
			return q, false, bad("claim", "%s; add a [[scenario.claim]] measuring the answer", msg)
		}
		msg += "; the claims are: " + strings.Join(ids, ", ")
		if near := suggest.Nearest(spec.Claim, ids); near != "" && spec.Claim != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		return q, false, bad("claim", "%s", msg)
	}
	cs := c.s.Claims[declared]
	lanes := cs.laneNames()
	if cs.From != nil && cs.From.Duration >= q.At {
		return q, false, bad("at", "claim %q counts from %s, and nothing is counted by %s; ask after %s", cs.ID, cs.From.Duration, q.At, cs.From.Duration)
	}
	if cs.To != nil && cs.To.Duration > q.At {
		return q, false, bad("at", "claim %q counts until %s, so its answer is not known at %s; ask at = %q or later", cs.ID, cs.To.Duration, q.At, cs.To.Duration.String())
	}
	ci := slices.IndexFunc(c.cfg.Claims, func(cl sim.Claim) bool { return cl.ID == spec.Claim })
	keep = ci >= 0
	q.Claim = ci

	// choices: lanes, or ranges of the value
	if n := len(spec.Choices); n == 1 || n > MaxChoices {
		return q, false, bad("choices", "give from 2 to %d choices (got %d), or none for a number", MaxChoices, n)
	}
	lanesChosen := 0
	for j, ch := range spec.Choices {
		text := strings.TrimSpace(ch.Text)
		where := at("choices", j)
		fail := func(format string, args ...any) error {
			return c.fail(where, "question %d (at %s): choice %q: %s", i+1, spec.At, ch.Text, fmt.Sprintf(format, args...))
		}
		if err := plain("choice", text); err != nil || text == "" {
			if err == nil {
				err = fmt.Errorf("a choice is empty")
			}
			return q, false, c.fail(where, "question %d (at %s): %v", i+1, spec.At, err)
		}
		if slices.ContainsFunc(spec.Choices[:j], func(o ChoiceText) bool { return strings.TrimSpace(o.Text) == text }) {
			return q, false, fail("it is given twice; give each choice once")
		}
		choice := sim.Choice{Text: text, Lane: -1}
		if c.declared(text) {
			lanesChosen++
			lane, ok := c.laneIndex(text)
			if !ok {
				keep = false // left out by --lanes
			}
			choice.Lane = lane
		} else {
			r, err := parseRange(text)
			if err != nil {
				return q, false, fail("it is neither a lane of this scenario (%s) nor a range of numbers (%v); write a lane's name, or a range: %s", strings.Join(c.laneNames(), ", "), err, rangeForms)
			}
			for _, o := range q.Choices {
				if o.Lane < 0 && o.Range.Overlaps(r) {
					return q, false, fail("it overlaps choice %q: a value could be in both; make the ranges apart", o.Text)
				}
			}
			choice.Range = r
		}
		if lanesChosen > 0 && lanesChosen != j+1 {
			return q, false, fail("the choices mix lanes and ranges of numbers; give all lanes, or all ranges")
		}
		q.Choices = append(q.Choices, choice)
	}
	byLanes := lanesChosen > 0
	switch {
	case spec.Tolerance != nil && len(spec.Choices) > 0:
		return q, false, bad("tolerance", "tolerance is for a question answered with a number; this one has choices: remove it")
	case spec.Tolerance != nil && (math.IsNaN(*spec.Tolerance) || math.IsInf(*spec.Tolerance, 0) || *spec.Tolerance < 0):
		return q, false, bad("tolerance", "tolerance must be a number >= 0 (got %g): how far from the run's answer a number may be and still be right", *spec.Tolerance)
	case byLanes && spec.Lane != "":
		return q, false, bad("lane", "the choices are lanes, and the answer is the one on which claim %q holds: remove lane", cs.ID)
	case byLanes && len(lanes) != 1:
		return q, false, bad("claim", "a question of lanes needs a claim about one lane, the right choice (claim %q names %d: %s)", cs.ID, len(lanes), strings.Join(lanes, ", "))
	case byLanes && keep && !slices.ContainsFunc(q.Choices, func(o sim.Choice) bool { return c.sameLane(o.Text, lanes[0]) }):
		return q, false, bad("choices", "claim %q is about %q, which is not among the choices; offer it", cs.ID, lanes[0])
	case byLanes && cs.Than != "" && slices.ContainsFunc(q.Choices, func(o sim.Choice) bool { return c.sameLane(o.Text, cs.Than) }):
		return q, false, bad("choices", "claim %q compares with %q, so that choice would be compared with itself; offer another lane", cs.ID, cs.Than)
	}
	if spec.Tolerance != nil {
		q.Tolerance = *spec.Tolerance
	}
	if err := whys(&q, spec, func(key, format string, args ...any) error {
		return c.fail(at("why", key), "question %d (at %s): why %q: %s", i+1, spec.At, key, fmt.Sprintf(format, args...))
	}); err != nil {
		return q, false, err
	}
	if byLanes {
		return q, keep, nil
	}
	// a number, or ranges of it: whose value
	name := spec.Lane
	switch {
	case name == "" && len(lanes) > 1:
		return q, false, bad("claim", "claim %q is about several lanes (%s); say whose value answers, with lane = \"…\"", cs.ID, strings.Join(lanes, ", "))
	case name == "":
		name = lanes[0]
	case !c.declared(name):
		return q, false, bad("lane", "%s", c.noLane(name))
	}
	lane, ok := c.laneIndex(name)
	if !ok || !keep {
		return q, false, nil // left out by --lanes
	}
	if !slices.Contains(c.cfg.Claims[ci].Lanes, lane) {
		return q, false, bad("lane", "claim %q is about %s, not %q; name one of its lanes", cs.ID, strings.Join(lanes, ", "), name)
	}
	q.Lane = lane
	return q, true, nil
}

// sameLane says a and b name the same lane of the scenario (by its name, or by
// the algorithm it alone runs), whether or not --lanes kept it.
func (c *compiler) sameLane(a, b string) bool {
	if a == b {
		return true
	}
	ia, okA := c.laneIndex(a)
	ib, okB := c.laneIndex(b)
	return okA && okB && ia == ib
}

// laneNames are the compiled lanes' names.
func (c *compiler) laneNames() []string {
	var names []string
	for _, l := range c.cfg.Lanes {
		names = append(names, l.Name)
	}
	return names
}

// whys sets question q's feedback for wrong answers from spec's why table: a
// choice's by its text, a number question's "low" and "high".
func whys(q *sim.Question, spec QuestionSpec, bad func(key, format string, args ...any) error) error {
	keys := slices.Sorted(maps.Keys(spec.Why))
	for _, k := range keys {
		text := strings.Join(strings.Fields(spec.Why[k]), " ")
		if text == "" {
			return bad(k, "the feedback is empty; say what a learner who answers this likely believes, and what the run shows instead")
		}
		if err := plainExcept("why", spec.Why[k], "\n\r\t"); err != nil {
			return bad(k, "%v", err)
		}
		if len(q.Choices) == 0 {
			switch k {
			case "low":
				q.WhyLow = text
			case "high":
				q.WhyHigh = text
			default:
				return bad(k, "a question answered with a number takes why.low and why.high (for answers below and above the run's)")
			}
			continue
		}
		j := slices.IndexFunc(q.Choices, func(c sim.Choice) bool { return c.Text == k })
		if j < 0 {
			var texts []string
			for _, c := range q.Choices {
				texts = append(texts, fmt.Sprintf("%q", c.Text))
			}
			return bad(k, "it is not one of the choices (%s); key each explanation by its choice's text", strings.Join(texts, ", "))
		}
		q.Choices[j].Why = text
	}
	return nil
}
