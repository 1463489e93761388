package tune

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

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
	Goal        string    `json:"goal"`
	Recommended *Limits   `json:"recommended,omitempty"`
	Why         string    `json:"why"`
	Refused     []Refusal `json:"refused"`
	Layered     *Limits   `json:"layered_alternative,omitempty"`
	LayeredRef  []Refusal `json:"layered_refused,omitempty"`
	Standout    []Refusal `json:"stand_out"`
	BackTest    *BackTest `json:"back_test,omitempty"`
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
		a.Recommended = &l
		var err error
		if a.Refused, _, err = r.Refusals(l); err != nil {
			return nil, err
		}
	}
	if alt := r.layeredAlternative(); alt >= 0 {
		l := r.Results[alt].Limits
		a.Layered = &l
		var err error
		if a.LayeredRef, _, err = r.Refusals(l); err != nil {
			return nil, err
		}
	}
	refused := map[string]int64{}
	for _, f := range a.Refused {
		refused[f.Key] = f.Refused
	}
	for _, k := range r.standout() {
		f := r.refusal(k, refused[r.Trace.Keys[k]], -1)
		f.FirstAt = ""
		a.Standout = append(a.Standout, f)
	}
	return a, nil
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

// standout are the keys that stand out (the heavy hitters), heaviest first.
func (r *Report) standout() []int {
	var keys []int
	for k, h := range r.Classes.Heavy {
		if h {
			keys = append(keys, k)
		}
	}
	v := r.Trace.Volume
	slicesSortBy(keys, func(a, b int) bool { return v[a] > v[b] || v[a] == v[b] && a < b })
	return keys
}

// WriteAnswer prints the answer (a, from Answer), snippet after it when not
// empty (a product's configuration lines).
func (r *Report) WriteAnswer(w io.Writer, a *Answer, key, snippet string) error {
	// what gives way, in order, when the answer would pass AnswerLines: the
	// clients that stand out, one by one; the key suggestions; the
	// alternative; the pointer to --verbose
	stand, keys, alt, hint := maxListed, true, true, true
	text := r.answerText(a, key, snippet, stand, keys, alt, hint)
	for lines(text) > AnswerLines {
		switch {
		case stand > 0:
			stand--
		case keys && len(a.Keys) > 0:
			keys = false
		case alt && a.Layered != nil:
			alt = false
		case hint:
			hint = false
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
	b.para(fmt.Sprintf("%s: %s from %s, %s to %s (%s).", printable.String(t.Name), plural(t.Count, "request", "requests"), clients, from, to, format.Period(t.Span)))
	b.para("Goal: " + goalLine(r.Goal))
	listed := map[string]bool{}
	table := func(rs []Refusal) {
		b.refusedTable("It refuses", rs, t)
		for _, f := range rs[:min(len(rs), maxListed)] {
			listed[f.Key] = true
		}
	}
	if c := a.Capacity; c != nil {
		b.para(c.describe(r.Goal))
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
			b.line(fmt.Sprintf("  %s %s", cell(printable.String(s.Key), kw), clip(fmt.Sprintf("%d sent, %d refused; %s", s.Sent, s.Refused, kind), AnswerWidth-3-kw)))
		}
	}
	if a.Layered != nil && alt {
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

// answerWriter gathers the answer's lines, wrapped to AnswerWidth.
type answerWriter struct{ strings.Builder }

func (b *answerWriter) line(s string) { b.WriteString(s + "\n") }

// para writes s wrapped, continued lines indented by two.
func (b *answerWriter) para(s string) { b.wrapped(s, "", "  ") }

// indent writes s wrapped, every line indented by two.
func (b *answerWriter) indent(s string) { b.wrapped(s, "  ", "  ") }

func (b *answerWriter) wrapped(s, first, rest string) {
	for i, l := range wrap(s, AnswerWidth-max(len(first), len(rest))) {
		if i > 0 {
			first = rest
		}
		b.line(first + l)
	}
}

// refusedTable writes whom a limit refuses: a line, then a row per client.
func (b *answerWriter) refusedTable(what string, rs []Refusal, t *Trace) {
	if len(rs) == 0 {
		b.indent(what + " nobody in this log.")
		return
	}
	b.indent(fmt.Sprintf("%s %s:", what, refusedSummary(rs)))
	// the columns: the key, the kind, "refused of sent" and the time, each
	// as wide as its widest listed cell; the kind gives way first
	kw, rw, tw := keyWidth(rs), len("refused"), len("first refused")
	for i, f := range rs[:min(len(rs), maxListed)] {
		rw = max(rw, len(fmt.Sprintf("%d of %d", f.Refused, f.Sent)))
		tw = max(tw, utf8.RuneCountInString(rs[i].FirstAt))
	}
	kindW := max(8, min(18, AnswerWidth-2-kw-rw-tw-3))
	b.line(clip("  "+cell("client", kw)+" "+cell("kind", kindW)+" "+cell("refused", rw)+" first refused", AnswerWidth))
	for i, f := range rs {
		if i == maxListed {
			b.line(fmt.Sprintf("  and %d more (--json - lists them all)", len(rs)-maxListed))
			break
		}
		kind := f.Kind
		if kind == "" {
			kind = "-"
		}
		b.line(clip("  "+cell(printable.String(f.Key), kw)+" "+cell(kind, kindW)+" "+cell(fmt.Sprintf("%d of %d", f.Refused, f.Sent), rw)+" "+f.FirstAt, AnswerWidth))
	}
}

// keyWidth is the columns the keys of a list take: the longest listed (as
// printed), from 15 (an IPv4 address) to 24.
func keyWidth(rs []Refusal) int {
	w := 15
	for i, f := range rs {
		if i == maxListed {
			break
		}
		w = max(w, utf8.RuneCountInString(printable.String(f.Key)))
	}
	return min(w, 24)
}

// cell is s in exactly n columns: padded, or clipped with an ellipsis.
func cell(s string, n int) string {
	s = clip(s, n)
	return s + strings.Repeat(" ", n-utf8.RuneCountInString(s))
}

// clip is s in at most n columns, an ellipsis ending what was cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// wrap breaks s into lines of at most width columns at spaces (a word longer
// than a line is cut).
func wrap(s string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		for utf8.RuneCountInString(w) > width {
			r := []rune(w)
			if line != "" {
				out, line = append(out, line), ""
			}
			out, w = append(out, string(r[:width])), string(r[width:])
		}
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
			line += " " + w
		default:
			out, line = append(out, line), w
		}
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

// slicesSortBy sorts s by less.
func slicesSortBy(s []int, less func(a, b int) bool) {
	sort.SliceStable(s, func(i, j int) bool { return less(s[i], s[j]) })
}

// keySuggestions are better keys or exclusions the log points to: several
// User-Agents behind one address that stands out (people behind one NAT, or a
// crawler beside them) are told apart by --key ip+agent; a page view's
// assets, when people's page views are among the clients that stand out,
// are better limited apart (--exclude assets).
func (r *Report) keySuggestions() []string {
	t := r.Trace
	if t.Profiles == nil {
		return nil
	}
	var out []string
	shared, browsers := 0, 0
	for _, k := range r.standout() {
		p := &t.Profiles[k]
		if p.Agents >= sharedAgents {
			shared++
		}
		if r.Classes.Kinds != nil && Rules[r.Classes.Kinds[k]].Kind == "browser" {
			browsers++
		}
	}
	if shared > 0 {
		out = append(out, fmt.Sprintf("of the keys that stand out, %d gave %d or more User-Agents each: several clients behind one address; --key ip+agent tells them apart.", shared, sharedAgents))
	}
	if browsers > 0 {
		are := "are"
		if browsers == 1 {
			are = "is"
		}
		out = append(out, fmt.Sprintf("of the keys that stand out, %d %s people's page views pulling their assets; --exclude assets leaves the assets out (limit them apart).", browsers, are))
	}
	return out
}

// sharedAgents are the User-Agents one key gives that say it is several
// clients.
const sharedAgents = 3

// abuseUnheld says, for the abuse goal when nothing meets it, which abusive
// kinds no limit in the grid holds without refusing other clients, what the
// one that holds them refusing the fewest refuses, and, when those are
// browsers pulling a page's assets, that leaving the assets out
// (--exclude assets) separates them; "" otherwise.
func (r *Report) abuseUnheld() string {
	if r.Goal.Name != GoalAbuse || r.Best >= 0 || r.Classes.Kinds == nil {
		return ""
	}
	present := map[int]bool{}
	for _, k := range r.Classes.Kinds {
		present[int(k)] = true
	}
	var parts []string
	assets := false
	for i, rule := range Rules {
		if !rule.Abusive || !present[i] {
			continue
		}
		best := -1
		for j, res := range r.Results {
			if res.KindDenied[i] > 0 && (best < 0 || res.OthersDenied < r.Results[best].OthersDenied) {
				best = j
			}
		}
		if best < 0 {
			parts = append(parts, fmt.Sprintf("no limit in the grid refuses the %s anything", rule.Kind))
			continue
		}
		res := r.Results[best]
		if res.OthersDenied == 0 {
			continue
		}
		var whom []string
		for k, other := range Rules {
			if !other.Abusive && res.KindDenied[k] > 0 {
				whom = append(whom, fmt.Sprintf("%d requests of %s clients", res.KindDenied[k], other.Kind))
				assets = assets || other.Kind == "browser"
			}
		}
		parts = append(parts, fmt.Sprintf("the limit that holds the %s refusing fewest others, %s, refuses %s", rule.Kind, res.Limits, strings.Join(whom, ", ")))
	}
	if len(parts) == 0 {
		return ""
	}
	s := "Per key, " + strings.Join(parts, "; ") + "."
	if assets {
		s += " A page view pulls its assets in a burst: leave them out with --exclude assets (limit them apart) and ask again."
	}
	return s
}
