package tune

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"ratelab/internal/format"
)

// Recommend picks the policy, or the layered pair, that best meets the goal
// (see Goal.better): for a bound, the one that holds every kind of heavy key
// hardest — the least admitted of the requests of the kind it holds least
// (WorstKindAdmitted: the keys heavy over seconds are one kind, those heavy
// over hours another) —, then the least of all the heavy hitters' requests;
// on a tie the lower rate, then the lower burst, then the smaller state, then
// the earlier in the grid. For abuse, the one that lets the abusive kind it
// holds least through least; for the safety net the lowest sustained rate,
// single policies only. A pair is chosen over the best single policy only
// when it lets the kind it holds least through at least a tenth less
// (pairMargin): else one limit does as well and is simpler to run. Limits
// that cannot be judged on a log of span (fitsLog: a period or a burst's
// refill longer than the log) are chosen only when nothing else meets the
// goal. It returns -1 when nothing meets the goal. why is a sentence saying
// what the choice does and what the next tighter rate would cost.
func Recommend(results []Result, g Goal, span time.Duration) (best int, why string) {
	best = pick(results, g, span, true)
	if best < 0 {
		best = pick(results, g, span, false)
	}
	if best < 0 {
		if len(results) == 0 {
			return -1, "no policy was swept"
		}
		loosest := 0
		for i, r := range results {
			if g.measure(r) < g.measure(results[loosest]) {
				loosest = i
			}
		}
		l := results[loosest]
		if g.Name == GoalAbuse {
			if !slices.ContainsFunc(results, func(r Result) bool { return r.AbuseAdmitted >= 0 }) {
				return -1, "No client in this log behaves as an abusive kind does (the kind rules read the log's paths, statuses and User-Agents): nothing for --goal abuse to hold; --goal safety gives the net that refuses nobody."
			}
			return -1, "No limit in the grid holds every abusive kind of client while refusing no other client."
		}
		return -1, fmt.Sprintf("No policy in the grid meets the goal %s: the closest, %s, still denies %s %s of their requests; widen --rate or --burst upwards.",
			g, l.Limits, className(g), percent(g.measure(l)))
	}
	b := results[best]
	what := "the tightest policy"
	if b.Layered() {
		what = "the tightest layered pair"
	}
	switch {
	case g.Name == GoalAbuse:
		why = fmt.Sprintf("%s is %s that refuses no request of a client that is not abusive and a tenth or more of every abusive kind's: the kind it refuses least still gets %s of its requests through",
			b.Limits, what, percent(b.AbuseAdmitted))
	case !g.bound():
		why = fmt.Sprintf("%s is the tightest policy that refuses no request of any client in the log", b.Limits)
	default:
		why = fmt.Sprintf("%s is %s that meets %s: it denies %s %s of their requests and admits %s of the heavy hitters' (the heaviest key: %s)",
			b.Limits, what, g, className(g), percentUnder(g.measure(b), g.Below), percent(b.HeavyAdmitted), heaviest(b))
	}
	// the same algorithm and burst at the next lower rate swept: why not tighter
	next := -1
	for i, r := range results {
		if r.Layered() == b.Layered() && r.Long == b.Long && r.Algorithm == b.Algorithm && r.Period == b.Period && r.Burst == b.Burst && r.Limit < b.Limit && (next < 0 || r.Limit > results[next].Limit) {
			next = i
		}
	}
	if next >= 0 {
		n := results[next]
		why += fmt.Sprintf("; at %s it would deny %s %s", format.LimitRate(n.Limit, n.Period), className(g), percent(g.measure(n)))
	}
	return best, why + "."
}

// pick is the best result that meets g (only those that fit a log of span,
// when fitting), the pair over the single as Recommend says; -1 for none.
func pick(results []Result, g Goal, span time.Duration, fitting bool) int {
	single, pair := -1, -1
	for i, r := range results {
		if !g.Meets(r) || fitting && !fitsLog(r.Limits, span) {
			continue
		}
		at := &single
		if r.Layered() {
			if !g.bound() && g.Name != GoalAbuse {
				continue // the safety net is one limit
			}
			at = &pair
		}
		if *at < 0 || g.better(r, results[*at]) {
			*at = i
		}
	}
	if pair < 0 || single >= 0 && !pairBetter(results[pair], results[single], g) {
		return single
	}
	return pair
}

// pairBetter says the pair holds what g holds at least a tenth better than
// the single policy (pairMargin).
func pairBetter(pair, single Result, g Goal) bool {
	if g.Name == GoalAbuse {
		return pair.AbuseAdmitted <= pairMargin*single.AbuseAdmitted
	}
	return pair.WorstKindAdmitted <= pairMargin*single.WorstKindAdmitted
}

// Closest is the policy that comes closest to the goal (the least denied to the
// goal's class), for when none meets it; -1 with no results.
func (r *Report) Closest() int {
	if r.Goal.Name == GoalAbuse {
		if i := r.closestAbuse(); i >= 0 {
			return i
		}
	}
	best := -1
	for i, res := range r.Results {
		if best < 0 || r.Goal.measure(res) < r.Goal.measure(r.Results[best]) {
			best = i
		}
	}
	return best
}

// closestAbuse is, for the abuse goal when nothing meets it, the limit that
// refuses some of every abusive kind's requests refusing the fewest of the
// others' (then letting the least of the abusive kinds through); -1 when
// none refuses some of every abusive kind.
func (r *Report) closestAbuse() int {
	best := -1
	for i, res := range r.Results {
		if !res.AbuseHeld {
			continue
		}
		if b := best; b < 0 || res.OthersDenied < r.Results[b].OthersDenied || res.OthersDenied == r.Results[b].OthersDenied && res.AbuseAdmitted < r.Results[b].AbuseAdmitted {
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

// className is whose denials g counts.
func className(g Goal) string {
	switch {
	case g.Name == GoalAbuse:
		return "the clients that are not abusive"
	case !g.bound():
		return "all clients"
	}
	switch g.Class {
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
