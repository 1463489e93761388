package audit

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// DefaultBound is the share of the ordinary clients' requests past which a
// rule's refusals of them are a finding, when --fail-on gives no bound on
// ordinary: tune's default bound, 0.1%.
const DefaultBound = 0.001

// A Check is one bound of --fail-on: CLASS>PERCENT, failed when some context
// refuses more than PERCENT of the requests of CLASS's clients: ordinary
// (neither heavy hitters nor of an abusive kind), heavy, abusive, all, or a
// kind tune tells (crawler, browser, feed reader…; spaces as written there,
// or with dashes).
type Check struct {
	Class string
	Above float64 // a share, 0 to 1
}

// String is the check as written: ordinary>0.1%.
func (c Check) String() string {
	return c.Class + ">" + strconv.FormatFloat(100*c.Above, 'g', -1, 64) + "%"
}

// classes are the classes a check names besides the kinds.
var classes = []string{"ordinary", "heavy", "abusive", "all"}

// ParseChecks reads --fail-on: checks separated by commas (a --fail-on given
// several times is joined so). kinds are the kinds a class may also name;
// "ordinary" is always the class (Key.Ordinary), not tune's kind of that name.
func ParseChecks(s string, kinds []string) ([]Check, error) {
	var out []Check
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		class, pct, ok := strings.Cut(part, ">")
		class = strings.ReplaceAll(strings.TrimSpace(class), "-", " ")
		pct = strings.TrimSpace(pct)
		if !ok || !strings.HasSuffix(pct, "%") {
			return nil, fmt.Errorf("%q is not a bound: write CLASS>PERCENT, like ordinary>0.1%%", part)
		}
		v, err := strconv.ParseFloat(strings.TrimSuffix(pct, "%"), 64)
		if err != nil || math.IsNaN(v) || v < 0 || v >= 100 {
			return nil, fmt.Errorf("%q: the percent is a number from 0 to under 100", part)
		}
		if !slices.Contains(classes, class) && !slices.Contains(kinds, class) {
			var others []string // the kinds that are not also a class's name
			for _, k := range kinds {
				if !slices.Contains(classes, k) {
					others = append(others, k)
				}
			}
			return nil, fmt.Errorf("%q: the class is %s, or a kind (%s)", part, strings.Join(classes, ", "), strings.Join(others, ", "))
		}
		out = append(out, Check{Class: class, Above: v / 100})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no bound in %q: write CLASS>PERCENT, like ordinary>0.1%%", s)
	}
	return out, nil
}

// Result is a check judged on every context: the share refused of the
// class's requests in the context that refuses most of them.
type Result struct {
	Check    string  `json:"check"`
	Lane     string  `json:"lane"`
	Refused  int64   `json:"refused"`
	Requests int64   `json:"requests"`
	Share    float64 `json:"share"`
	Failed   bool    `json:"failed"`
}

// in says key k is of class.
func (c Check) in(k Key) bool {
	switch c.Class {
	case "ordinary":
		return k.Ordinary()
	case "heavy":
		return k.Heavy
	case "abusive":
		return k.Abusive
	case "all":
		return true
	}
	return k.Kind == c.Class
}

// judge judges the checks on the tally.
func (t *Tally) judge(checks []Check) []Result {
	var out []Result
	for _, c := range checks {
		worst := Result{Check: c.String(), Share: -1}
		for i, l := range t.lanes {
			var req, ref int64
			for k, n := range l.requests {
				if c.in(t.in.Keys[k]) {
					req += n
					ref += l.refused[k]
				}
			}
			if s := share(ref, req); s > worst.Share {
				worst = Result{Check: c.String(), Lane: t.in.Config.Lanes[i].Name, Refused: ref, Requests: req, Share: s}
			}
		}
		worst.Share = max(worst.Share, 0)
		worst.Failed = worst.Share > c.Above
		out = append(out, worst)
	}
	return out
}

// FailedChecks are the checks that failed, as written.
func (r *Report) FailedChecks() []string {
	var out []string
	for _, c := range r.Checks {
		if c.Failed {
			out = append(out, c.Check)
		}
	}
	return out
}

// AddFindings adds findings, and keeps the most pressing first.
func (r *Report) AddFindings(fs []Finding) {
	r.Findings = append(r.Findings, fs...)
	sortFindings(r.Findings)
}

// sortFindings puts the most pressing first: by kind, then the most refusals.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int { return severity[a.Kind] - severity[b.Kind] })
}
