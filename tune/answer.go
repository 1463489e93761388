package tune

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"ratelab/internal/format"
	"ratelab/internal/printable"
)

// The answer is what tune prints first, in at most AnswerLines lines of
// AnswerWidth columns: the log in one line, the goal, the recommendation and
// its reason, whom it refuses (named, with the first refusal in the log's own
// time), the back-test, the clients that stand out and what they look like,
// and the layered alternative. The grid and the frontier follow only when
// asked (WriteTable).

// AnswerWidth and AnswerLines bound the answer.
const (
	AnswerWidth = 80
	AnswerLines = 24
)

// SweepHeading begins the sweep in full (--verbose, and tune merge).
const SweepHeading = "The sweep in full:"

// maxListed are the most clients a list of the answer names.
const maxListed = 4

// Answer is the recommendation with whom it refuses, worked out once for the
// answer and the JSON (see Report.Answer).
type Answer struct {
	Goal string `json:"goal"`
	// Recommended and Layered are the limits; the JSON writes them as
	// LimitsJSON (RecommendedJSON, LayeredJSON)
	Recommended     *Limits     `json:"-"`
	RecommendedJSON *LimitsJSON `json:"recommended"`
	Why             string      `json:"why"`
	Refused         []Refusal   `json:"refused"`
	Layered         *Limits     `json:"-"`
	LayeredJSON     *LimitsJSON `json:"alternative,omitempty"`
	LayeredRef      []Refusal   `json:"alternative_refused,omitempty"`
	Standout        []Refusal   `json:"stand_out"`
	BackTest        *BackTest   `json:"back_test,omitempty"`
	// NoBackTest says why a log long enough was not back-tested
	NoBackTest string          `json:"no_back_test,omitempty"`
	Capacity   *CapacityAdvice `json:"capacity,omitempty"`
	// Keys suggest a better key or exclusion, where the log shows one
	Keys []string `json:"key_suggestions,omitempty"`
}

// Answer works out the report's answer: whom the recommendation and the
// layered alternative refuse (one replay each), the clients that stand out
// with their kinds, and the capacity advice for those goals.
func (r *Report) Answer() (*Answer, error) {
	if r.answer != nil {
		return r.answer, nil
	}
	a, err := r.workAnswer()
	r.answer = a
	return a, err
}

func (r *Report) workAnswer() (*Answer, error) {
	a := &Answer{Goal: r.Goal.String(), Why: r.Why, BackTest: r.BackTest, NoBackTest: r.NoBackTest, Keys: r.keySuggestions()}
	if r.Goal.Name == GoalCapacity || r.Goal.Name == GoalFairShare {
		ca, err := r.Capacity()
		if err != nil {
			return nil, err
		}
		a.Capacity = ca
	}
	if r.Best >= 0 {
		l := r.Results[r.Best].Limits
		a.Recommended, a.RecommendedJSON = &l, limitsJSON(l)
		var err error
		if a.Refused, _, err = r.Refusals(l); err != nil {
			return nil, err
		}
	}
	if alt := r.layeredAlternative(); alt >= 0 {
		l := r.Results[alt].Limits
		a.Layered, a.LayeredJSON = &l, limitsJSON(l)
		var err error
		if a.LayeredRef, _, err = r.Refusals(l); err != nil {
			return nil, err
		}
	}
	refused := map[string]int64{}
	for _, f := range a.Refused {
		refused[f.Key] = f.Refused
	}
	a.Standout = []Refusal{}
	for _, k := range r.standout() {
		f := r.refusal(k, refused[r.Trace.Keys[k]], -1)
		f.FirstAt = ""
		a.Standout = append(a.Standout, f)
	}
	if a.Refused == nil {
		a.Refused = []Refusal{}
	}
	return a, nil
}

// LimitsJSON is a limit, or a layered pair, as the JSON writes it: its
// words as the answer prints them, then its fields (the period in ms).
type LimitsJSON struct {
	Text      string      `json:"text"`
	Algorithm string      `json:"algorithm"`
	Limit     int64       `json:"limit"`
	PeriodMS  float64     `json:"period_ms"`
	Burst     int64       `json:"burst"`
	Options   string      `json:"options,omitempty"`
	Long      *LimitsJSON `json:"long,omitempty"`
}

// limitsJSON is l as LimitsJSON.
func limitsJSON(l Limits) *LimitsJSON {
	j := &LimitsJSON{Text: l.String(), Algorithm: string(l.Algorithm), Limit: l.Limit, PeriodMS: float64(l.Period) / float64(time.Millisecond), Burst: l.Burst, Options: l.Knobs.String()}
	if l.Layered() {
		j.Long = limitsJSON(Limits{Policy: l.Long})
	}
	return j
}

// layeredAlternative is the best layered pair that meets the goal when the
// recommendation is one limit (the best single one when it is a pair); -1
// when there is none.
func (r *Report) layeredAlternative() int {
	if r.Best < 0 {
		return -1
	}
	want := !r.Results[r.Best].Layered()
	best := -1
	for i, res := range r.Results {
		if res.Layered() == want && r.Goal.Meets(res) && fitsLog(res.Limits, r.Trace.Span) && (best < 0 || r.Goal.better(res, r.Results[best])) {
			best = i
		}
	}
	return best
}

// standout are the keys that stand out — the heavy hitters, and the keys of
// an abusive kind however little they sent —, heaviest first.
func (r *Report) standout() []int {
	var keys []int
	for k, h := range r.Classes.Heavy {
		if h || r.Classes.Kinds != nil && Rules[r.Classes.Kinds[k]].Abusive {
			keys = append(keys, k)
		}
	}
	v := r.Trace.Volume
	abusive := func(k int) bool { return r.Classes.Kinds != nil && Rules[r.Classes.Kinds[k]].Abusive }
	slices.SortStableFunc(keys, func(a, b int) int {
		if abusive(a) != abusive(b) {
			return cmp.Compare(boolInt(abusive(b)), boolInt(abusive(a))) // the abusive kinds first: what a site owner looks for
		}
		return cmp.Or(cmp.Compare(v[b], v[a]), cmp.Compare(a, b))
	})
	return keys
}

// WriteAnswer prints the answer (a, from Answer), snippet after it when not
// empty (a product's configuration lines).
func (r *Report) WriteAnswer(w io.Writer, a *Answer, key, snippet string) error {
	// what gives way, in order, when the answer would pass AnswerLines: the
	// pointer to --verbose; the alternative; the clients that stand out, one
	// by one (the abusive kinds last); the key suggestions
	stand, keys, alt, hint := maxListed, true, true, true
	text := r.answerText(a, key, snippet, stand, keys, alt, hint)
	for lines(text) > AnswerLines {
		switch {
		case hint:
			hint = false
		case alt && a.Layered != nil:
			alt = false
		case stand > 0:
			stand--
		case keys && len(a.Keys) > 0:
			keys = false
		default:
			_, err := io.WriteString(w, text) // a snippet longer than the page
			return err
		}
		text = r.answerText(a, key, snippet, stand, keys, alt, hint)
	}
	_, err := io.WriteString(w, text)
	return err
}

// lines counts s's lines.
func lines(s string) int { return strings.Count(s, "\n") }

// answerText is the answer with at most stand clients that stand out (those
// not in the table of refusals), the key suggestions, the alternative and
// the pointer to --verbose when asked.
func (r *Report) answerText(a *Answer, key, snippet string, stand int, keys, alt, hint bool) string {
	var b answerWriter
	t := r.Trace
	clients := plural(int64(t.KeyCount), "client", "clients")
	from, to := t.When(0), t.When(int64(t.Span/time.Microsecond)-1)
	left := ""
	if n := t.Stats.Excluded; n > 0 {
		left = fmt.Sprintf("; %s left out by --exclude", plural(n, "request", "requests"))
	}
	b.para(fmt.Sprintf("%s: %s from %s, %s to %s (%s%s).", printable.String(t.Name), plural(t.Count, "request", "requests"), clients, from, to, format.Period(t.Span), left))
	b.para("Goal: " + goalLine(r.Goal))
	listed := map[string]bool{}
	table := func(rs []Refusal) {
		b.refusedTable("It refuses", rs, t)
		for _, f := range rs[:min(len(rs), maxListed)] {
			listed[f.Key] = true
		}
	}
	if c := a.Capacity; c != nil {
		b.para(c.describe(r.Goal, key))
		if !c.NoLimitNeeded {
			table(c.Refused)
		}
		if a.Recommended != nil {
			b.para(fmt.Sprintf("Safety net beside it: %s per %s refuses no client in the log.", *a.Recommended, key))
		}
	} else if a.Recommended != nil {
		b.para(fmt.Sprintf("Recommended: %s per %s.", *a.Recommended, key))
		b.indent(r.Why)
		table(a.Refused)
	} else {
		b.para(r.Why)
		if s := r.abuseUnheld(); s != "" {
			b.indent(s)
		}
	}
	if bt := a.BackTest; bt != nil {
		flag := ""
		if bt.Flagged {
			flag = " Flagged: it fits the days it was tuned on, not the rest."
		}
		if bt.Thin != "" {
			flag += " But " + bt.Thin + "."
		}
		b.indent(fmt.Sprintf("Back-test: fitted on all but the last %s (%s), it refuses %s of the other clients' requests before that and %s in it (%d clients).%s",
			format.Period(bt.Holdout), bt.Fit, percent(bt.Predicted), percent(bt.Realised), bt.RealisedKeys, flag))
	}
	if a.NoBackTest != "" {
		b.indent("No back-test: " + a.NoBackTest)
	}
	var others []Refusal
	for _, s := range a.Standout {
		if !listed[s.Key] {
			others = append(others, s)
		}
	}
	if len(others) > 0 && stand > 0 {
		title := "Clients that stand out:"
		if len(listed) > 0 {
			title = "Other clients that stand out:"
		}
		b.line(title)
		kw := keyWidth(others)
		for i, s := range others {
			if i == stand {
				b.line(fmt.Sprintf("  and %d more (--json - lists them all)", len(others)-stand))
				break
			}
			kind := s.Kind
			if kind == "" {
				kind = "heavy"
			}
			if s.Why != "" && s.Kind != "ordinary" && s.Kind != "unknown" {
				kind += ": " + s.Why
			}
			// the description wrapped, whole words, under its own column
			for j, l := range format.Wrap(fmt.Sprintf("%d sent, %d refused; %s", s.Sent, s.Refused, kind), AnswerWidth-3-kw) {
				head := cell(printable.String(s.Key), kw)
				if j > 0 {
					head = strings.Repeat(" ", kw)
				}
				b.line("  " + head + " " + l)
			}
		}
	}
	if a.Layered != nil && alt && a.Capacity == nil {
		what := "Layered alternative"
		if !a.Layered.Layered() {
			what = "One-limit alternative"
		}
		b.para(fmt.Sprintf("%s: %s; it refuses %s.", what, *a.Layered, refusedSummary(a.LayeredRef)))
	}
	for _, s := range a.Keys {
		if keys {
			b.para("Key: " + s)
		}
	}
	if snippet != "" {
		for _, l := range strings.Split(strings.TrimRight(snippet, "\n"), "\n") {
			if strings.HasPrefix(l, "    ") || l == "" {
				b.line(l) // configuration lines, as they are pasted
			} else {
				b.para(l)
			}
		}
	}
	if hint {
		b.line("The grid and the frontier: --verbose; everything as JSON: --json -.")
	}
	return b.String()
}

// goalLine says what the goal is for, in a line.
func goalLine(g Goal) string {
	switch g.Name {
	case GoalSafety:
		return fmt.Sprintf("safety: refuse no client seen in the log, with %s× headroom (--goal abuse, capacity or fair-share for others).", trimFloat(g.headroom()))
	case GoalAbuse:
		return "abuse: hold the clients whose behaviour is abusive (scanners, credential stuffers, scrapers), refusing no other."
	case GoalCapacity:
		return fmt.Sprintf("capacity: keep the backend under %s.", format.Rate(g.Capacity))
	case GoalFairShare:
		return fmt.Sprintf("fair-share: no client takes more than %s of %s.", percent(g.share()), format.Rate(g.Capacity))
	}
	return fmt.Sprintf("%s: %s denied less than %s of their requests.", g, className(g), percent(g.Below))
}

// refusedSummary is "nobody" or "3 clients (2 abusive), 250 requests".
func refusedSummary(rs []Refusal) string {
	if len(rs) == 0 {
		return "nobody in this log"
	}
	var n, abusive int64
	for _, f := range rs {
		n += f.Refused
		if f.Abusive {
			abusive++
		}
	}
	return fmt.Sprintf("%s (%d of an abusive kind), %s", plural(int64(len(rs)), "client", "clients"), abusive, plural(n, "request", "requests"))
}

// boolInt is 1 for true, 0 for false.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
