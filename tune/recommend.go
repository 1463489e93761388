package tune

import (
	"fmt"
	"strconv"
	"strings"

	"ratelab/internal/format"
)

// Goal is what a recommended policy must meet: a key class's share of requests
// denied below a bound.
type Goal struct {
	// Class is whose denials count: "ordinary" (all but the heaviest 1% of keys),
	// "median" (the median key by volume), "p99" (the 99th-percentile key) or
	// "all" (every request).
	Class string
	Below float64 // a fraction: 0.001 is 0.1%
}

// DefaultGoal: ordinary keys denied less than 0.1% of their requests.
var DefaultGoal = Goal{Class: "ordinary", Below: 0.001}

// String is the goal as written: ordinary<0.1%.
func (g Goal) String() string { return fmt.Sprintf("%s<%s", g.Class, percent(g.Below)) }

// ParseGoal reads CLASS<PERCENT, like ordinary<0.1% or p99<1%.
func ParseGoal(s string) (Goal, error) {
	class, bound, ok := strings.Cut(s, "<")
	class = strings.TrimSpace(class)
	bound = strings.TrimSuffix(strings.TrimSpace(bound), "%")
	v, err := strconv.ParseFloat(bound, 64)
	switch {
	case !ok || err != nil:
		return Goal{}, fmt.Errorf("%q is not CLASS<PERCENT, like ordinary<0.1%%", s)
	case class != "ordinary" && class != "median" && class != "p99" && class != "all":
		return Goal{}, fmt.Errorf("%q: the class is ordinary, median, p99 or all (got %q)", s, class)
	case !(v > 0) || v > 100:
		return Goal{}, fmt.Errorf("%q: the bound must be a percentage above 0 and at most 100", s)
	}
	return Goal{Class: class, Below: v / 100}, nil
}

// measure is the share of requests denied that the goal bounds.
func (g Goal) measure(r Result) float64 {
	switch g.Class {
	case "median":
		return r.MedianKeyDenied
	case "p99":
		return r.P99KeyDenied
	case "all":
		return r.DeniedShare
	}
	return r.OrdinaryDenied
}

// Meets says r meets the goal.
func (g Goal) Meets(r Result) bool { return g.measure(r) < g.Below }

// Recommend picks the policy, or the layered pair, that best separates the heavy
// hitters from the ordinary keys within the goal: the one that holds every kind
// of heavy key hardest — the least admitted of the requests of the kind it holds
// least (WorstKindAdmitted: the keys heavy over seconds are one kind, those
// heavy over hours another) —, then the least of all the heavy hitters'
// requests; on a tie the lower rate, then the lower burst, then the smaller
// state, then the earlier in the grid. A pair is chosen over the best single
// policy only when it lets the kind it holds least through at least a tenth
// less (pairMargin): else one limit does as well and is simpler to run. It returns -1
// when nothing meets the goal. why is a sentence saying what the choice does and
// what the next tighter rate would cost.
func Recommend(results []Result, g Goal) (best int, why string) {
	single, pair := -1, -1
	for i, r := range results {
		if !g.Meets(r) {
			continue
		}
		at := &single
		if r.Layered() {
			at = &pair
		}
		if *at < 0 || tighter(r, results[*at]) {
			*at = i
		}
	}
	best = single
	if pair >= 0 && (single < 0 || results[pair].WorstKindAdmitted <= pairMargin*results[single].WorstKindAdmitted) {
		best = pair
	}
	if best < 0 {
		loosest := 0
		for i, r := range results {
			if g.measure(r) < g.measure(results[loosest]) {
				loosest = i
			}
		}
		if len(results) == 0 {
			return -1, "no policy was swept"
		}
		l := results[loosest]
		return -1, fmt.Sprintf("No policy in the grid meets the goal %s: the closest, %s, still denies %s %s of their requests; widen --rate or --burst upwards.",
			g, l.Limits, className(g.Class), percent(g.measure(l)))
	}
	b := results[best]
	what := "the tightest policy"
	if b.Layered() {
		what = "the tightest layered pair"
	}
	why = fmt.Sprintf("%s is %s that meets %s: it denies %s %s of their requests and admits %s of the heavy hitters' (the heaviest key: %s)",
		b.Limits, what, g, className(g.Class), percentUnder(g.measure(b), g.Below), percent(b.HeavyAdmitted), heaviest(b))
	// the same algorithm and burst at the next lower rate swept: why not tighter
	next := -1
	for i, r := range results {
		if r.Layered() == b.Layered() && r.Long == b.Long && r.Algorithm == b.Algorithm && r.Period == b.Period && r.Burst == b.Burst && r.Limit < b.Limit && (next < 0 || r.Limit > results[next].Limit) {
			next = i
		}
	}
	if next >= 0 {
		n := results[next]
		why += fmt.Sprintf("; at %s it would deny %s %s", format.LimitRate(n.Limit, n.Period), className(g.Class), percent(g.measure(n)))
	}
	return best, why + "."
}

// Closest is the policy that comes closest to the goal (the least denied to the
// goal's class), for when none meets it; -1 with no results.
func (r *Report) Closest() int {
	best := -1
	for i, res := range r.Results {
		if best < 0 || r.Goal.measure(res) < r.Goal.measure(r.Results[best]) {
			best = i
		}
	}
	return best
}

// tighter says a holds the heavy hitters harder than b, by Recommend's order.
func tighter(a, b Result) bool {
	switch {
	case a.WorstKindAdmitted != b.WorstKindAdmitted:
		return a.WorstKindAdmitted < b.WorstKindAdmitted
	case a.HeavyAdmitted != b.HeavyAdmitted:
		return a.HeavyAdmitted < b.HeavyAdmitted
	case rateOf(a.Policy) != rateOf(b.Policy):
		return rateOf(a.Policy) < rateOf(b.Policy)
	case rateOf(a.Long) != rateOf(b.Long):
		return rateOf(a.Long) < rateOf(b.Long)
	case a.Burst != b.Burst:
		return a.Burst < b.Burst
	}
	return a.PeakStateBytes < b.PeakStateBytes
}

// rateOf is p's rate per second; 0 for no policy.
func rateOf(p Policy) float64 {
	if p.Limit == 0 {
		return 0
	}
	return float64(p.Limit) / p.Period.Seconds()
}

// Neighbours are the policies next to results[best] in the grid: the same
// algorithm at the adjacent rates (same burst) and bursts (same rate), and the
// other algorithms at its rate and burst; at most max of them, nearest first.
func Neighbours(results []Result, best, most int) []int {
	if best < 0 {
		return nil
	}
	b := results[best]
	var out []int
	add := func(i int) {
		if i >= 0 && i != best && len(out) < most {
			for _, j := range out {
				if j == i {
					return
				}
			}
			out = append(out, i)
		}
	}
	adjacent := func(same func(Result) bool, value func(Result) int64, below bool) int {
		pick := -1
		for i, r := range results {
			if !same(r) {
				continue
			}
			v, bv := value(r), value(b)
			if (below && v < bv && (pick < 0 || v > value(results[pick]))) || (!below && v > bv && (pick < 0 || v < value(results[pick]))) {
				pick = i
			}
		}
		return pick
	}
	sameAlgBurst := func(r Result) bool { return r.Algorithm == b.Algorithm && r.Burst == b.Burst }
	sameAlgRate := func(r Result) bool { return r.Algorithm == b.Algorithm && r.Limit == b.Limit }
	limit := func(r Result) int64 { return r.Limit }
	burst := func(r Result) int64 { return r.Burst }
	add(adjacent(sameAlgBurst, limit, true))
	add(adjacent(sameAlgBurst, limit, false))
	add(adjacent(sameAlgRate, burst, true))
	add(adjacent(sameAlgRate, burst, false))
	for i, r := range results {
		if r.Algorithm != b.Algorithm && r.Limit == b.Limit && (r.Burst == b.Burst || !hasBurst(r.Algorithm)) {
			add(i)
		}
	}
	return out
}

func className(class string) string {
	switch class {
	case "median":
		return "the median key"
	case "p99":
		return "the 99th-percentile key"
	case "all":
		return "all keys"
	}
	return "ordinary keys"
}

// percentUnder renders f, which is below bound, so that it reads below it:
// 0.0996% rather than the 0.10% percent rounds it to against a bound of 0.10%.
func percentUnder(f, bound float64) string {
	if f < bound && percent(f) == percent(bound) {
		return strconv.FormatFloat(100*f, 'g', 3, 64) + "%"
	}
	return percent(f)
}

// percent renders a fraction as a percentage with as many decimals as it needs
// to show its size: 12%, 0.35%, 0.012%.
func percent(f float64) string {
	p := 100 * f
	switch {
	case p == 0:
		return "0%"
	case p >= 10:
		return fmt.Sprintf("%.0f%%", p)
	case p >= 1:
		return fmt.Sprintf("%.1f%%", p)
	case p >= 0.01:
		return fmt.Sprintf("%.2f%%", p)
	}
	return fmt.Sprintf("%.4f%%", p)
}

// Percent renders a share as the report does: 12%, 0.35%, 0.012%.
func Percent(f float64) string { return percent(f) }
