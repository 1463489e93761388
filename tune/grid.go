package tune

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/present/format"
)

// Policy is one point of the grid: an algorithm enforcing Limit per Period with
// Burst (for the windows, which have no burst, Burst = Limit).
type Policy struct {
	Algorithm algorithms.Name
	Limit     int64
	Period    time.Duration
	Burst     int64
}

// policy is p as the algorithms package takes it.
func (p Policy) policy() algorithms.Policy {
	return algorithms.Policy{Limit: p.Limit, Period: p.Period, Burst: p.Burst}
}

// String is "token-bucket 5/s burst 20", "sliding-log 300/h"; the windows have
// no burst.
func (p Policy) String() string {
	if !hasBurst(p.Algorithm) {
		return fmt.Sprintf("%s %s", p.Algorithm, format.LimitRate(p.Limit, p.Period))
	}
	return fmt.Sprintf("%s %s burst %d", p.Algorithm, format.LimitRate(p.Limit, p.Period), p.Burst)
}

// hasBurst says the algorithm holds a burst (algorithms.Info.HasBurst); the
// windows enforce the limit per period only.
func hasBurst(name algorithms.Name) bool {
	a, _ := algorithms.Lookup(name)
	return a.HasBurst()
}

// Range is an inclusive range of whole numbers, MIN..MAX.
type Range struct{ Min, Max int64 }

// ParseRange reads "MIN..MAX" (or one number N, meaning N..N), for flag.
func ParseRange(s string) (Range, error) {
	lo, hi, found := strings.Cut(s, "..")
	if !found {
		hi = lo
	}
	a, err1 := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
	b, err2 := strconv.ParseInt(strings.TrimSpace(hi), 10, 64)
	switch {
	case err1 != nil || err2 != nil:
		return Range{}, fmt.Errorf("%q is not MIN..MAX with whole numbers, like 1..100", s)
	case a < 1:
		return Range{}, fmt.Errorf("%q starts below 1; the smallest is 1", s)
	case b < a:
		return Range{}, fmt.Errorf("%q is inverted (MAX below MIN); write it as %d..%d", s, b, a)
	}
	return Range{a, b}, nil
}

// String is MIN..MAX.
func (r Range) String() string { return fmt.Sprintf("%d..%d", r.Min, r.Max) }

// Steps returns n whole numbers spaced evenly on a log scale from Min to Max, both
// included, without repeats (fewer when the range holds fewer).
func (r Range) Steps(n int) []int64 {
	if n <= 1 || r.Min == r.Max {
		return []int64{r.Min}
	}
	var out []int64
	lo, hi := math.Log(float64(r.Min)), math.Log(float64(r.Max))
	for i := range n {
		v := int64(math.Round(math.Exp(lo + (hi-lo)*float64(i)/float64(n-1))))
		v = min(max(v, r.Min), r.Max)
		if len(out) == 0 || v > out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

// Grid is the policies to sweep: every algorithm at every rate, and for the
// algorithms with a burst every burst too.
type Grid struct {
	Algorithms []algorithms.Name
	Rates      []int64 // limits per Period
	Bursts     []int64
	Period     time.Duration
}

// Policies lists the grid in a fixed order: by algorithm (as given), then rate,
// then burst. A burst below a request's cost could never accept it and is left out.
func (g Grid) Policies(maxCost int64) []Policy {
	var out []Policy
	for _, a := range g.Algorithms {
		for _, r := range g.Rates {
			if !hasBurst(a) {
				if r >= maxCost {
					out = append(out, Policy{Algorithm: a, Limit: r, Period: g.Period, Burst: r})
				}
				continue
			}
			for _, b := range g.Bursts {
				if b >= maxCost {
					out = append(out, Policy{Algorithm: a, Limit: r, Period: g.Period, Burst: b})
				}
			}
		}
	}
	return out
}

// DefaultAlgorithms are those tune sweeps unless told otherwise, as the registry
// says (algorithms.Info.Tuned): gcra makes exactly the token bucket's decisions
// and x-time-rate is the token bucket by another library, so they add nothing to
// the comparison.
var DefaultAlgorithms = algorithms.Tuned()

// DefaultRanges are the rate and burst ranges for a trace, per period: rates
// from 1 to the most any key sent in one period (above which nobody is ever
// denied), bursts from 1 to twice that.
func (t *Trace) DefaultRanges(period time.Duration) (rate, burst Range) {
	var top int64 = 1
	for _, p := range t.Peak {
		top = max(top, p)
	}
	// Peak counts a second; scale it to the period
	perPeriod := max(1, int64(math.Ceil(float64(top)*period.Seconds())))
	return Range{1, max(perPeriod, 2)}, Range{1, max(2*perPeriod, 2)}
}

// Ranks orders the keys by volume, lightest first (ties by first appearance).
func (t *Trace) ranks() []int {
	idx := make([]int, len(t.Keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return t.Volume[idx[a]] < t.Volume[idx[b]] })
	return idx
}

// Classes split a trace's keys by volume: the median key and the 99th-percentile
// key, the ordinary keys (all but the heaviest 1%, at least one of them heavy)
// and the heavy hitters.
type Classes struct {
	Median, P99 int    // key indexes
	Heavy       []bool // per key
	Heaviest    int    // the key with the most requests
	HeavyCount  int
}

// Classify ranks the trace's keys.
func (t *Trace) Classify() Classes {
	r := t.ranks()
	n := len(r)
	c := Classes{Heavy: make([]bool, n)}
	if n == 0 {
		return c
	}
	c.Median = r[(n-1)/2]
	c.P99 = r[max(0, int(math.Ceil(0.99*float64(n)))-1)]
	c.HeavyCount = max(1, n-int(math.Ceil(0.99*float64(n))))
	for _, k := range r[n-c.HeavyCount:] {
		c.Heavy[k] = true
	}
	c.Heaviest = r[n-1]
	return c
}

// CheckAlgorithms checks names against the registry.
func CheckAlgorithms(names []algorithms.Name) error {
	for _, n := range names {
		if _, err := algorithms.Get(n); err != nil {
			return err
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("no algorithms; name at least one of %s", algorithms.Join(algorithms.Names(), ", "))
	}
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("%s is named twice", n)
		}
	}
	return nil
}
