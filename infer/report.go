package infer

import (
	"math"
	"slices"
	"time"
)

// Report is what the observations say about the limiter.
type Report struct {
	Requests, Refused int
	Span              time.Duration
	// Tolerance is the mismatches a hypothesis may have and still be
	// consistent.
	Tolerance int
	// Fits are every variant, ranked (Fit).
	Fits []VariantFit
	// Families are each family's best variant, ranked the same way.
	Families []VariantFit
	// Next is the request that best tells the consistent families apart, when
	// some would decide it differently.
	Next *Split
	// Claims are what the server's rate-limit headers said, each checked
	// against the fit.
	Claims []Claim
}

// Split is a run of requests that consistent families decide differently:
// sent at After after the last observed request, then at each of Offsets
// from that first (Offsets[0] is 0). Allowed gives, per family (in the order
// of Family), how many of them it would let through.
type Split struct {
	After   time.Duration   `json:"after_ns"`
	Offsets []time.Duration `json:"offsets_ns"`
	Family  []Family        `json:"families"`
	Allowed []int           `json:"allowed"`
}

// Span is how long the run lasts.
func (s *Split) Span() time.Duration { return s.Offsets[len(s.Offsets)-1] }

// Analyze fits obs with at most tolerance mismatches and reports.
func Analyze(obs []Observation, tolerance int, claims []Claim) *Report {
	obs = slices.Clone(obs)
	sortObs(obs)
	r := &Report{Requests: len(obs), Tolerance: tolerance, Fits: Fit(obs, tolerance)}
	for _, o := range obs {
		if o.Refused {
			r.Refused++
		}
	}
	if len(obs) > 0 {
		r.Span = obs[len(obs)-1].At - obs[0].At
	}
	seen := map[Family]bool{}
	for _, f := range r.Fits {
		if !seen[f.Family] {
			seen[f.Family] = true
			r.Families = append(r.Families, f)
		}
	}
	r.Next = nextSplit(obs, r.Consistent(), 0)
	r.Claims = checkClaims(claims, r.Consistent())
	return r
}

// Consistent are the families with a consistent variant, each by its best.
func (r *Report) Consistent() []VariantFit {
	var out []VariantFit
	for _, f := range r.Families {
		if f.Consistent() {
			out = append(out, f)
		}
	}
	return out
}

// Top is the best fitting family's variant; ok false when none is consistent.
func (r *Report) Top() (VariantFit, bool) {
	c := r.Consistent()
	if len(c) == 0 {
		return VariantFit{}, false
	}
	return c[0], true
}

// splitGaps are the delays after the last request a split is looked for at.
var splitGaps = func() []time.Duration {
	var gs []time.Duration
	for g := time.Millisecond; g <= time.Minute; g = g * 5 / 4 {
		gs = append(gs, g)
	}
	return gs
}()

// SplitSpacing is how far apart a split's burst is sent (the default rate cap).
var SplitSpacing = time.Duration(float64(time.Second) / DefaultMaxRate)

// nextSplit is the earliest run of requests after the last that divides the
// consistent families most (the most families outside the largest group that
// agree, then the widest difference), each family's best hypothesis deciding
// it. The runs tried: a burst at SplitSpacing a little longer than the largest
// size any of them allows; twice that spread over one and a half of the best
// fit's windows; and two half bursts half a window apart then a burst just
// after the first's window (a sliding log lets only the first half go, a window
// that starts at its first request lets all of them). nil when they agree on
// every one, or differ by a single request (what a boundary's jitter does).
//
// earliest is the soonest after the last request the run may start (a probe
// spends time deciding).
func nextSplit(obs []Observation, fits []VariantFit, earliest time.Duration) *Split {
	if len(fits) < 2 || len(obs) == 0 {
		return nil
	}
	count := 2
	for _, f := range fits {
		_, size := f.Best()
		count = max(count, int(min(size, 100))+2)
	}
	burst := func(n int, spacing time.Duration) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = time.Duration(i) * spacing
		}
		return out
	}
	shapes := [][]time.Duration{burst(count, SplitSpacing)}
	for _, f := range fits {
		g, size := f.Best()
		if !f.windowed() || size <= 0 {
			continue
		}
		w := time.Duration(g * float64(time.Second))
		if spacing := time.Duration(0.75 * float64(w) / float64(size)); spacing > SplitSpacing {
			shapes = append(shapes, burst(2*count-2, spacing))
		}
		half := burst(count/2, SplitSpacing)
		two := slices.Clone(half)
		for _, o := range half {
			two = append(two, w/2+o)
		}
		for _, o := range burst(count, SplitSpacing) {
			two = append(two, w+w/8+o)
		}
		shapes = append(shapes, two)
		break
	}
	var best *Split
	bestScore := 0
	last := obs[len(obs)-1].At
	for _, g := range splitGaps {
		if g < earliest {
			continue
		}
		for _, offsets := range shapes {
			s := &Split{After: g, Offsets: offsets}
			groups := map[int]int{}
			lo, hi := math.MaxInt, 0
			for _, f := range fits {
				n := predictRun(f, obs, last+g, offsets)
				s.Family, s.Allowed = append(s.Family, f.Family), append(s.Allowed, n)
				groups[n]++
				lo, hi = min(lo, n), max(hi, n)
			}
			largest := 0
			for _, c := range groups {
				largest = max(largest, c)
			}
			if hi-lo < 2 {
				continue
			}
			if score := (len(fits)-largest)*1000 + hi - lo; score > bestScore {
				best, bestScore = s, score
			}
		}
	}
	return best
}

// predictRun is how many requests at from+offsets f's best hypothesis lets
// through, after obs.
func predictRun(f VariantFit, obs []Observation, from time.Duration, offsets []time.Duration) int {
	g, size := f.Best()
	probe := slices.Grow(slices.Clone(obs), len(offsets))
	need := make([]int64, len(obs)+len(offsets))
	allowed := 0
	for _, o := range offsets {
		probe = append(probe, Observation{At: from + o})
		f.needs(probe, nil, g, need[:len(probe)])
		if need[len(probe)-1] > size {
			probe[len(probe)-1].Refused = true
		} else {
			allowed++
		}
	}
	return allowed
}

// RateOf is the rate a second of f's best hypothesis (a window's: its limit over it).
func RateOf(f VariantFit) float64 {
	g, size := f.Best()
	if f.windowed() {
		return float64(size) / g
	}
	return g
}

// finite says x is a number (not an unbounded end).
func finite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }
