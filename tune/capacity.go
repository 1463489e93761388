package tune

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/format"
)

// The capacity and fair-share goals are about the backend, not about any one
// client: capacity keeps all the traffic together under what the backend
// serves, at every timescale; fair-share keeps any one key under a share of
// it. Neither is a trade-off to sweep: the limit follows from the capacity,
// and the log says whom it would refuse.

// CapacityAdvice is what the capacity or fair-share goal recommends.
type CapacityAdvice struct {
	// Capacity is the backend's requests a second; Busiest the most requests
	// of all clients together in one second of the log (fixed seconds from its
	// first), at BusiestAt (µs from the origin).
	Capacity  float64 `json:"capacity_per_second"`
	Busiest   int64   `json:"busiest_second"`
	BusiestAt string  `json:"busiest_at"`
	// NoLimitNeeded says the busiest second is at most half the capacity: no
	// window of a second (aligned or not) then holds more than the capacity,
	// so no limit is needed for it.
	NoLimitNeeded bool `json:"no_limit_needed"`
	// Limit is the limit that keeps to the goal (when one is needed): one
	// limit over all clients (Global) for capacity, one per key for
	// fair-share; Refused whom it refuses.
	Limit     Policy      `json:"-"`
	LimitJSON *LimitsJSON `json:"limit,omitempty"`
	Global    bool        `json:"global"`
	Refused   []Refusal   `json:"refused"`
}

// ParseCapacity reads --capacity: N/s, N/min, N/h or a bare N (per second).
func ParseCapacity(s string) (float64, error) {
	n, unit, _ := strings.Cut(strings.TrimSpace(s), "/")
	v, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
	per := map[string]float64{"": 1, "s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600, "hour": 3600}[strings.TrimSpace(unit)]
	switch {
	case err != nil || per == 0:
		return 0, fmt.Errorf("%q is not a rate like 200/s, 5000/min or 100000/h", s)
	case !(v > 0) || math.IsInf(v, 0) || v/per > maxCapacity:
		return 0, fmt.Errorf("%q: the capacity must be a number above 0 and at most %g a second", s, float64(maxCapacity))
	}
	return v / per, nil
}

// busiestSecond is the most requests in one second of the trace (seconds laid
// from its origin), and when that second starts (µs).
func (t *Trace) busiestSecond() (int64, int64) {
	var most, at int64
	busier := func(second, n int64) {
		if n > most || n == most && second < at {
			most, at = n, second
		}
	}
	// a count per second of the span, or per second seen when the span is
	// long and sparse (a log from 1970 to now)
	if seconds := int64(t.Span / time.Second); seconds < 1<<22 || seconds < 4*t.Count {
		counts := make([]int64, seconds+1)
		t.each(func(q Request) { counts[q.At/1e6]++ })
		for s, n := range counts {
			busier(int64(s), n)
		}
		return most, at * 1e6
	}
	counts := map[int64]int64{}
	t.each(func(q Request) { counts[q.At/1e6]++ })
	for s, n := range counts {
		busier(s, n)
	}
	return most, at * 1e6
}

// Capacity works out the capacity or fair-share goal's advice on the report's
// trace.
func (r *Report) Capacity() (*CapacityAdvice, error) {
	g := r.Goal
	if g.Capacity <= 0 {
		return nil, fmt.Errorf("the %s goal needs the backend's capacity: give --capacity N/s", g.Name)
	}
	t := r.Trace
	if t.Spilled() {
		return nil, fmt.Errorf("the %s goal replays the whole log at once, and it did not fit --memory; give more --memory", g.Name)
	}
	busiest, at := t.busiestSecond()
	a := &CapacityAdvice{Capacity: g.Capacity, Busiest: busiest, BusiestAt: t.When(at)}
	var lim Limits
	var err error
	switch g.Name {
	case GoalCapacity:
		a.NoLimitNeeded = float64(busiest) <= g.Capacity/2
		if a.NoLimitNeeded {
			return a, nil
		}
		a.Global = true
		if lim.Policy, err = perSecondPolicy(algorithms.SlidingLogName, g.Capacity); err != nil {
			return nil, err
		}
	case GoalFairShare:
		if lim.Policy, err = perSecondPolicy(algorithms.TokenBucketName, g.share()*g.Capacity); err != nil {
			return nil, fmt.Errorf("--share %s of --capacity %s: %v", percent(g.share()), format.Rate(g.Capacity), err)
		}
	default:
		return nil, fmt.Errorf("goal %s has no capacity advice", g)
	}
	if err := lim.Policy.exact(t.MaxRequestCost(), t.Span); err != nil {
		return nil, err
	}
	a.Limit, a.LimitJSON = lim.Policy, limitsJSON(lim)
	kd, err := denialsOf(t, lim, r.holdoutCut(), a.Global)
	if err != nil {
		return nil, err
	}
	a.Refused = r.refusals(kd)
	return a, nil
}

// maxCapacity is the most --capacity takes, a second.
const maxCapacity = 1e9

// DefaultShare is the fair-share goal's share of the capacity per key.
const DefaultShare = 0.1

// perSecondPolicy is alg at no more than perSecond a second, burst its
// limit: in the shortest of a second, a minute, an hour and a day whose whole
// number of requests (rounded down, never past the rate) is within 1% of the
// rate, else the day's; an error when not one request a day is left.
func perSecondPolicy(alg algorithms.Name, perSecond float64) (Policy, error) {
	for _, period := range []time.Duration{time.Second, time.Minute, time.Hour, format.Day} {
		exact := perSecond * period.Seconds()
		limit := int64(math.Floor(exact + 1e-9))
		if limit >= 1 && (float64(limit) >= 0.99*exact || period == format.Day) {
			return Policy{Algorithm: alg, Limit: limit, Period: period, Burst: limit}, nil
		}
	}
	return Policy{}, fmt.Errorf("%s is less than one request a day: no limit holds a client to it", format.Rate(perSecond))
}

// describe is the advice in a sentence, the limit per key (ip, user, …).
func (a *CapacityAdvice) describe(g Goal, key string) string {
	cap := format.Rate(a.Capacity)
	if a.NoLimitNeeded {
		return fmt.Sprintf("No limit needed for capacity: the busiest second of the log (%s) had %s, at most half of %s, so no second's window holds more than the backend serves.", a.BusiestAt, plural(a.Busiest, "request", "requests"), cap)
	}
	if a.Global {
		return fmt.Sprintf("The busiest second (%s) had %s, more than half of %s: one limit over all clients, %s, keeps every window of %s within the capacity.", a.BusiestAt, plural(a.Busiest, "request", "requests"), cap, a.Limit, format.Period(a.Limit.Period))
	}
	return fmt.Sprintf("No client may take more than %s of %s: %s per %s.", percent(g.share()), cap, a.Limit, key)
}

// share is g's share of the capacity per key, DefaultShare when unset.
func (g Goal) share() float64 {
	if g.Share > 0 {
		return g.Share
	}
	return DefaultShare
}
