package sim

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// A lesson may ask the learner to predict what is about to be seen ("How many of
// these 320 requests does the fixed window accept?"): a Question, asked at a
// moment of the run. Its answer is never written down: it is measured on the run
// being shown, as the value of one of the lesson's claims at that moment, so it
// cannot be wrong for the run, whatever the seed, the lanes or the policy. The
// run records each question's Answer as it passes the question's instant (see
// Run.AdvanceTo); the UI pauses there and asks, and run and report print them.

// Question is one question of a lesson.
type Question struct {
	// At is the virtual time it is asked at, > 0 and at most the run's end: the
	// answer is the claim's value on the run so far then.
	At  time.Duration
	Ask string // the question
	// Show says where on screen the answer can be seen ("zoom the fixed window:
	// tab, enter").
	Show string
	// Claim is the index in Config.Claims of the claim whose value answers it.
	Claim int
	// Lane is the lane (of the claim's) whose value answers a question of a
	// number or of ranges; -1 for a question of lanes.
	Lane int
	// Tolerance is how far from the answer a number may be and still be right;
	// for a question with no choices.
	Tolerance float64
	// Choices, when not empty, are what the learner picks from: ranges of the
	// value (the right one holds it), or lanes (the right one is the lane, of
	// those, on which the claim's comparison holds).
	Choices []Choice
	// WhyLow and WhyHigh, for a question answered with a number, say what a
	// learner who answered too low (too high) likely believed and why the run
	// says otherwise; empty when the scenario gives none.
	WhyLow, WhyHigh string
}

// Choice is one choice of a question: a range of numbers, or a lane.
type Choice struct {
	Text  string // as the scenario writes it
	Lane  int    // a lane, by index; -1 for a range
	Range Range
	// Why, for a wrong choice, says what a learner who picks it likely
	// believes and why the run says otherwise; empty when the scenario gives
	// none.
	Why string
}

// Range is the numbers from Lo to Hi, each end included unless open; an end at
// ±Inf is no end.
type Range struct {
	Lo, Hi         float64
	LoOpen, HiOpen bool
}

// Contains says whether v is in r (never NaN).
func (r Range) Contains(v float64) bool {
	switch {
	case math.IsNaN(v), v < r.Lo, v > r.Hi:
		return false
	case v == r.Lo && r.LoOpen, v == r.Hi && r.HiOpen:
		return false
	}
	return true
}

// Overlaps says whether some number is in both r and o.
func (r Range) Overlaps(o Range) bool {
	lo, loOpen := r.Lo, r.LoOpen
	if o.Lo > lo || (o.Lo == lo && o.LoOpen) {
		lo, loOpen = o.Lo, o.LoOpen
	}
	hi, hiOpen := r.Hi, r.HiOpen
	if o.Hi < hi || (o.Hi == hi && o.HiOpen) {
		hi, hiOpen = o.Hi, o.HiOpen
	}
	return lo < hi || (lo == hi && !loOpen && !hiOpen)
}

// LaneChoices says the question's choices are lanes.
func (q Question) LaneChoices() bool { return len(q.Choices) > 0 && q.Choices[0].Lane >= 0 }

// Answer is a question answered by the run, at the question's instant.
type Answer struct {
	Question int // its index in Config.Questions
	// Claim is the claim judged on the run so far at the question's instant:
	// the proof, shown with its numbers.
	Claim ClaimResult
	// Value is the question's lane's value of the claim's metric (a question of
	// a number or of ranges); Undefined when it is a ratio over 0.
	Value     float64
	Undefined bool
	// Values are, for a question of lanes, each choice lane's value of the
	// claim's metric, in Choices order.
	Values []float64
	// Right are the choices that fit, by index: those whose range holds Value,
	// or the lanes on which the claim's comparison holds. A question made well
	// has exactly one, on every seed (the tests check the shipped ones).
	Right []int
}

// Choice is the one right choice, if exactly one fits.
func (a Answer) Choice() (int, bool) {
	if len(a.Right) != 1 {
		return -1, false
	}
	return a.Right[0], true
}

// answer answers question qi of cfg on the run's metrics and scope counts at
// its instant.
func answer(cfg *Config, qi int, ms []Metrics, scoped [][]ScopeCounts) Answer {
	q := cfg.Questions[qi]
	c := cfg.Claims[q.Claim]
	a := Answer{Question: qi, Claim: judge(cfg, c, ms, scoped)}
	if !q.LaneChoices() {
		if i := slices.Index(c.Lanes, q.Lane); i >= 0 {
			a.Value, a.Undefined = a.Claim.Got[i], a.Claim.Undefined[i]
		}
		for i, ch := range q.Choices {
			if !a.Undefined && ch.Range.Contains(a.Value) {
				a.Right = append(a.Right, i)
			}
		}
		return a
	}
	// a question of lanes: the claim's comparison on each choice lane
	on := c
	on.Lanes = nil
	for _, ch := range q.Choices {
		on.Lanes = append(on.Lanes, ch.Lane)
	}
	r := judge(cfg, on, ms, scoped)
	a.Values = r.Got
	for i := range q.Choices {
		if !r.Undefined[i] && compare(r.Got[i], c.Op, r.Want[i]) {
			a.Right = append(a.Right, i)
		}
	}
	return a
}

// askAt are the questions of cfg in the order they are asked: by instant, then
// as written.
func askAt(cfg *Config) []int {
	order := make([]int, len(cfg.Questions))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(cfg.Questions[a].At, cfg.Questions[b].At)
	})
	return order
}

// Answers are the questions the run has answered so far (those whose instant
// it has reached), in the order asked; a copy.
func (r *Run) Answers() []Answer { return slices.Clone(r.answers) }

// answerDue records the answers of the questions asked at the run's instant.
func (r *Run) answerDue() {
	var ms []Metrics
	for r.asked < len(r.order) && r.Config.Questions[r.order[r.asked]].At <= r.now {
		if ms == nil {
			ms = r.Metrics()
		}
		scoped := make([][]ScopeCounts, len(r.Lanes))
		for i, l := range r.Lanes {
			scoped[i] = l.rec.scopes.counts
		}
		r.answers = append(r.answers, answer(r.Config, r.order[r.asked], ms, scoped))
		r.asked++
	}
}

// nextQuestion is the instant of the next question the run has not reached,
// or never.
func (r *Run) nextQuestion() time.Duration {
	if r.asked < len(r.order) {
		return r.Config.Questions[r.order[r.asked]].At
	}
	return time.Duration(math.MaxInt64)
}
