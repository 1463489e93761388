package tune

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Goal is what the limit is for, and so what a recommendation must meet and
// how the candidates that meet it are ranked (see Recommend):
//
//   - safety: refuse no request of any client in the log; the tightest such
//     single policy, with Headroom times its limit and burst, is the net that
//     stops a runaway client without touching anyone seen.
//   - abuse: refuse no request of any key whose kind is not abusive (Rules),
//     and hold every abusive kind (at least minHeld of its requests denied),
//     the one held least as hard as possible.
//   - capacity: keep the backend under Capacity requests a second at every
//     timescale; when the log's busiest second is at most half of it, no limit
//     is needed for capacity, and the safety net is recommended beside that
//     answer (see CapacityAdvice).
//   - fair-share: no key takes more than Share of Capacity: a per-key limit of
//     Share × Capacity a second, whoever it refuses (see CapacityAdvice).
//   - bound (CLASS<PERCENT, the trade-off of earlier versions): a class's
//     share of requests denied below Below; the policy that holds every kind
//     of heavy hitter hardest within it.
//
// The sweep ranks safety, capacity and fair-share by the safety net's rule.
type Goal struct {
	Name string
	// Class and Below are a bound goal's: whose denials count, "ordinary"
	// (all but the heavy hitters), "median", "p99" or "all", and the share
	// they must stay below (0.001 is 0.1%).
	Class string
	Below float64
	// Headroom multiplies the safety net's limit and burst (2 when 0).
	Headroom float64 `json:",omitempty"`
	// Capacity is the backend's requests a second (capacity, fair-share);
	// Share the most of it one key may take (fair-share).
	Capacity float64 `json:",omitempty"`
	Share    float64 `json:",omitempty"`
}

// The goals' names.
const (
	GoalSafety    = "safety"
	GoalAbuse     = "abuse"
	GoalCapacity  = "capacity"
	GoalFairShare = "fair-share"
	GoalBound     = "bound"
)

// GoalNames are the goals --goal takes by name (a bound is CLASS<PERCENT).
var GoalNames = []string{GoalSafety, GoalCapacity, GoalFairShare, GoalAbuse}

// DefaultGoal is the safety net.
var DefaultGoal = Goal{Name: GoalSafety}

// TradeOffGoal is the bound of earlier versions: ordinary keys denied less
// than 0.1% of their requests.
var TradeOffGoal = Goal{Name: GoalBound, Class: "ordinary", Below: 0.001}

// DefaultHeadroom is the safety net's headroom.
const DefaultHeadroom = 2

// headroom is g's headroom, DefaultHeadroom when unset.
func (g Goal) headroom() float64 {
	if g.Headroom > 0 {
		return g.Headroom
	}
	return DefaultHeadroom
}

// String is the goal as --goal writes it: safety, abuse, ordinary<0.1%.
func (g Goal) String() string {
	if g.Name == GoalBound || g.Name == "" {
		return fmt.Sprintf("%s<%s", g.Class, percent(g.Below))
	}
	return g.Name
}

// ParseGoal reads --goal: safety, capacity, fair-share, abuse, or
// CLASS<PERCENT (ordinary<0.1%, p99<1%) for a bound.
func ParseGoal(s string) (Goal, error) {
	s = strings.TrimSpace(s)
	for _, n := range GoalNames {
		if s == n {
			return Goal{Name: n}, nil
		}
	}
	class, bound, ok := strings.Cut(s, "<")
	class = strings.TrimSpace(class)
	bound = strings.TrimSuffix(strings.TrimSpace(bound), "%")
	v, err := strconv.ParseFloat(bound, 64)
	switch {
	case !ok || err != nil:
		return Goal{}, fmt.Errorf("%q is not a goal: give %s, or a bound CLASS<PERCENT like ordinary<0.1%%", s, strings.Join(GoalNames, ", "))
	case class != "ordinary" && class != "median" && class != "p99" && class != "all":
		return Goal{}, fmt.Errorf("%q: the class is ordinary, median, p99 or all (got %q)", s, class)
	case !(v > 0) || v > 100:
		return Goal{}, fmt.Errorf("%q: the bound must be a percentage above 0 and at most 100", s)
	}
	return Goal{Name: GoalBound, Class: class, Below: v / 100}, nil
}

// bound says g is a bound on a class's denials.
func (g Goal) bound() bool { return g.Name == GoalBound || g.Name == "" }

// measure is the share of requests denied that the goal bounds: a bound's
// class's; for the other goals, the share of the requests they must not
// deny (every request for safety, the keys that are not abusive for abuse).
func (g Goal) measure(r Result) float64 {
	switch {
	case g.Name == GoalAbuse:
		if r.Requests == 0 {
			return 0
		}
		return float64(r.OthersDenied) / float64(r.Requests)
	case !g.bound():
		return r.DeniedShare
	case g.Class == "median":
		return r.MedianKeyDenied
	case g.Class == "p99":
		return r.P99KeyDenied
	case g.Class == "all":
		return r.DeniedShare
	}
	return r.OrdinaryDenied
}

// Meets says r meets the goal: a bound's class denied below it; for abuse,
// no request of a key that is not abusive denied and every abusive kind held;
// for the others, no request denied at all.
func (g Goal) Meets(r Result) bool {
	switch {
	case g.bound():
		return g.measure(r) < g.Below
	case g.Name == GoalAbuse:
		return r.OthersDenied == 0 && r.AbuseHeld
	}
	return r.Denied == 0
}

// better says a is a better choice than b among the results that meet g: for
// a bound and abuse, the one that holds the heavy (abusive) keys harder (see
// tighter); for the safety net, the lower sustained rate, then the smaller
// burst.
func (g Goal) better(a, b Result) bool {
	switch {
	case g.Name == GoalAbuse:
		if a.AbuseAdmitted != b.AbuseAdmitted {
			return a.AbuseAdmitted < b.AbuseAdmitted
		}
		return tighter(a, b)
	case g.bound():
		return tighter(a, b)
	}
	if ra, rb := rateOf(a.Policy)+rateOf(a.Long), rateOf(b.Policy)+rateOf(b.Long); ra != rb {
		return ra < rb
	}
	if a.Burst != b.Burst {
		return a.Burst < b.Burst
	}
	return a.PeakStateBytes < b.PeakStateBytes
}

// fitsLog says the limits can be judged on a log of span: no period longer
// than the log, and no burst that takes longer than the log to refill (the
// log saw such a burst as a budget for its whole length, see ShortLog).
func fitsLog(l Limits, span time.Duration) bool {
	for _, q := range []Policy{l.Policy, l.Long} {
		if q.Limit <= 0 {
			continue
		}
		if q.Period > span || hasBurst(q.Algorithm) && refillTime(q) > span {
			return false
		}
	}
	return true
}
