package infer

import (
	"fmt"
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
	// Hypotheses are the ones asked, each "family rate size window", and
	// Allowed what each would let through.
	Hypotheses []string `json:"hypotheses"`
	Family     []Family `json:"families"`
	Allowed    []int    `json:"allowed"`
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
	r.Next = nextSplit(obs, r.consistentVariants(), 0)
	r.Claims = checkClaims(claims, r.Consistent())
	return r
}

// Consistent are the families with a consistent variant, each by its best.
func (r *Report) Consistent() []VariantFit { return consistent(r.Families) }

// consistentVariants are every consistent variant, ranked.
func (r *Report) consistentVariants() []VariantFit { return consistent(r.Fits) }

// consistent are the fits of fs that some hypothesis keeps, in order.
func consistent(fs []VariantFit) []VariantFit {
	var out []VariantFit
	for _, f := range fs {
		if f.Consistent() {
			out = append(out, f)
		}
	}
	return out
}

// Top is the best fitting family's variant; ok false when none is consistent,
// or nothing was allowed (every family fits that with a size of 0).
func (r *Report) Top() (VariantFit, bool) {
	c := r.Consistent()
	if len(c) == 0 || r.Refused == r.Requests {
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

// hypothesis is one variant with its parameters, for a split to ask.
type hypothesis struct {
	v    Variant
	g    float64
	size int64
}

func (h hypothesis) String() string {
	if h.v.windowed() {
		return fmt.Sprintf("%s %d per %s", h.v.Family, h.size, seconds(h.g))
	}
	return fmt.Sprintf("%s %s burst %d", h.v.Family, rate(h.g), h.size)
}

// hypotheses are, of each consistent variant, its best point and the
// consistent points of its least and greatest grid value (each with its
// fewest-mismatch size): what a split must tell apart, between families and
// within one.
func hypotheses(fits []VariantFit) []hypothesis {
	var hs []hypothesis
	for _, f := range fits {
		if len(f.Points) == 0 {
			continue
		}
		g, size := f.Best()
		first, last := f.Points[0], f.Points[len(f.Points)-1]
		for _, h := range []hypothesis{{f.Variant, g, size}, {f.Variant, first.G, first.Size}, {f.Variant, last.G, last.Size}} {
			// once each as the report says it (a variant's clock of ms
			// reads the same)
			if !slices.ContainsFunc(hs, func(o hypothesis) bool { return o.String() == h.String() }) {
				hs = append(hs, h)
			}
		}
		if len(hs) >= 30 {
			break
		}
	}
	return hs
}

// nextSplit is the earliest run of requests after the last that divides the
// consistent hypotheses most — the families first (the most pairs of families
// whose best hypotheses differ by two requests or more), then the hypotheses
// (the most outside the largest group that agrees), then the widest difference. The runs tried: a burst at SplitSpacing a little
// longer than the largest size any of them allows; twice that spread over one
// and a half of the best windowed fit's windows; and two half bursts half a
// window apart then a burst just after the first's window (a sliding log lets
// only the first half go, a window that starts at its first request lets all
// of them). nil when they agree on every one, or differ by a single request
// (what a boundary's jitter does).
//
// earliest is the soonest after the last request the run may start (a probe
// spends time deciding).
func nextSplit(obs []Observation, fits []VariantFit, earliest time.Duration) *Split {
	hs := hypotheses(fits)
	if len(hs) < 2 || len(obs) == 0 {
		return nil
	}
	count := 2
	for _, h := range hs {
		count = max(count, int(min(h.size, 100))+2)
	}
	burst := func(n int, spacing time.Duration) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = time.Duration(i) * spacing
		}
		return out
	}
	shapes := [][]time.Duration{burst(count, SplitSpacing)}
	for _, h := range hs {
		if !h.v.windowed() || h.size <= 0 {
			continue
		}
		w := time.Duration(h.g * float64(time.Second))
		if spacing := time.Duration(0.75 * float64(w) / float64(h.size)); spacing > SplitSpacing {
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
			for _, h := range hs {
				n := predictRun(h, obs, last+g, offsets)
				s.Hypotheses, s.Family, s.Allowed = append(s.Hypotheses, h.String()), append(s.Family, h.v.Family), append(s.Allowed, n)
				groups[n]++
				lo, hi = min(lo, n), max(hi, n)
			}
			if hi-lo < 2 {
				continue
			}
			largest := 0
			for _, c := range groups {
				largest = max(largest, c)
			}
			// families told apart: pairs whose best hypotheses (each
			// family's first) differ by two or more
			apart := 0
			for i := range hs {
				for j := i + 1; j < len(hs); j++ {
					if isFirst(hs, i) && isFirst(hs, j) && abs(s.Allowed[i]-s.Allowed[j]) >= 2 {
						apart++
					}
				}
			}
			if score := apart*100000 + (len(hs)-largest)*100 + hi - lo; score > bestScore {
				best, bestScore = s, score
			}
		}
	}
	return best
}

// isFirst says hs[i] is its family's first hypothesis (its best variant's best).
func isFirst(hs []hypothesis, i int) bool {
	return !slices.ContainsFunc(hs[:i], func(h hypothesis) bool { return h.v.Family == hs[i].v.Family })
}

func abs(x int) int { return max(x, -x) }

// predictRun is how many requests at from+offsets h lets through, after obs.
func predictRun(h hypothesis, obs []Observation, from time.Duration, offsets []time.Duration) int {
	probe := slices.Grow(slices.Clone(obs), len(offsets))
	need := make([]int64, len(obs)+len(offsets))
	allowed := 0
	for _, o := range offsets {
		probe = append(probe, Observation{At: from + o})
		h.v.needs(probe, nil, h.g, need[:len(probe)])
		if need[len(probe)-1] > h.size {
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
