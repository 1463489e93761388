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
	"ratelab/internal/format"
)

// Policy is one point of the grid: an algorithm enforcing Limit per Period with
// Burst (for the windows, which have no burst, Burst = Limit).
type Policy struct {
	Algorithm algorithms.Name
	Limit     int64
	Period    time.Duration
	Burst     int64
	// Knobs are a product lane's options the grid sets (ratelab tune
	// --target): the zero Knobs is the algorithm's defaults.
	Knobs Knobs `json:",omitzero"`
}

// policy is p as the algorithms package takes it.
func (p Policy) policy() algorithms.Policy {
	return algorithms.Policy{Limit: p.Limit, Period: p.Period, Burst: p.Burst}
}

// exact says why p cannot be replayed exactly on requests of cost up to
// maxCost over span (none checked when span is 0), nil when it can: its limit
// or burst too large for the period (algorithms.Policy.Validate: (limit +
// cost) × period in µs below 2^53, which the Redis ports' Lua numbers, doubles,
// need as much as the lanes in memory), or the span too long for its credits
// (algorithms.Policy.CheckHorizon). A sweep leaves such a policy out of its
// grid (Grid.LeftOut) and the replay refuses it, by this one test.
func (p Policy) exact(maxCost int64, span time.Duration) error {
	if err := p.policy().Validate(maxCost); err != nil {
		return &inexact{p, err, false}
	}
	if span > 0 {
		if err := p.policy().CheckHorizon(span); err != nil {
			return &inexact{p, err, true}
		}
	}
	return nil
}

// inexact is a policy that cannot be replayed exactly, and why: its size
// (algorithms.Policy.Validate) or, when long, the span (CheckHorizon).
type inexact struct {
	p    Policy
	err  error
	long bool
}

func (e *inexact) Error() string { return fmt.Sprintf("%s: %v", e.p, e.err) }

// mostExact is the largest limit or burst over period that is exact on
// requests of cost up to maxCost (algorithms.Policy.Validate); 0 when none is.
func mostExact(period time.Duration, maxCost int64) int64 {
	return max(0, algorithms.MaxExactLimit(period)+1-max(maxCost, 1))
}

// Options are the options p's limiter runs with: the algorithm's defaults,
// with p's knobs.
func (p Policy) Options() algorithms.Options {
	info, _ := algorithms.Lookup(p.Algorithm)
	o := info.Defaults
	o.Nodelay, o.Delay, o.TrackSC = p.Knobs.Nodelay, p.Knobs.Delay, p.Knobs.TrackSC
	if p.Knobs.MitigationTimeout != 0 {
		o.MitigationTimeout = p.Knobs.MitigationTimeout
	}
	return o
}

// String is "token-bucket 5/s burst 20", "sliding-log 300/h"; the windows have
// no burst; knobs follow ("nginx 10/s burst 21 nodelay").
func (p Policy) String() string {
	s := fmt.Sprintf("%s %s burst %d", p.Algorithm, format.LimitRate(p.Limit, p.Period), p.Burst)
	if !hasBurst(p.Algorithm) {
		s = fmt.Sprintf("%s %s", p.Algorithm, format.LimitRate(p.Limit, p.Period))
	}
	if k := p.Knobs.String(); k != "" {
		s += " " + k
	}
	return s
}

// Knobs are the options of a product's lane that ratelab tune --target sweeps
// beside the rate and the burst: nginx's nodelay and delay=N, where HAProxy's
// track-sc0 sits relative to its deny, and Cloudflare's mitigation_timeout (0:
// throttle).
type Knobs struct {
	Nodelay           bool                    `json:"nodelay,omitempty"`
	Delay             int64                   `json:"delay,omitempty"`
	TrackSC           algorithms.HAProxyTrack `json:"track_sc,omitempty"`
	MitigationTimeout time.Duration           `json:"mitigation_timeout,omitempty"`
}

// String is how the product writes the knobs: "nodelay", "delay=3",
// "after-deny", "mitigation_timeout=60" (seconds, as Cloudflare writes it);
// "" for the defaults.
func (k Knobs) String() string {
	var parts []string
	if k.Nodelay {
		parts = append(parts, "nodelay")
	}
	if k.Delay > 0 {
		parts = append(parts, fmt.Sprintf("delay=%d", k.Delay))
	}
	if k.TrackSC != algorithms.TrackBeforeDeny {
		parts = append(parts, k.TrackSC.String())
	}
	if k.MitigationTimeout > 0 {
		parts = append(parts, fmt.Sprintf("mitigation_timeout=%d", k.MitigationTimeout/time.Second))
	}
	return strings.Join(parts, " ")
}

// Variant is a way a grid sets each policy's knobs, from its burst and its
// period: nginx's nodelay, delay=N at half its burst (the policy's burst less
// one, halved, rounded down; left out when that is 0, the variant without
// delay=), where HAProxy's track-sc0 sits, or Cloudflare's mitigation_timeout
// as a number of the policy's periods (0: throttle).
type Variant struct {
	Nodelay           bool                    `json:"nodelay,omitempty"`
	DelayHalf         bool                    `json:"delay_half,omitempty"`
	TrackSC           algorithms.HAProxyTrack `json:"track_sc,omitempty"`
	MitigationPeriods int64                   `json:"mitigation_periods,omitempty"`
}

// knobs are the variant's knobs for a policy of burst b and period period;
// false when it is another variant's.
func (v Variant) knobs(b int64, period time.Duration) (Knobs, bool) {
	k := Knobs{Nodelay: v.Nodelay, TrackSC: v.TrackSC, MitigationTimeout: time.Duration(v.MitigationPeriods) * period}
	if v.DelayHalf {
		if k.Delay = (b - 1) / 2; k.Delay == 0 {
			return k, false
		}
	}
	return k, true
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
	// Variants are the knobs each policy is swept with (ratelab tune
	// --target); none: the algorithms' defaults.
	Variants []Variant `json:",omitempty"`
	// RateRange and BurstRange are the ranges Rates and Bursts were drawn from,
	// when known: a recommendation on their edge says so.
	RateRange, BurstRange Range
	// Span is the time the trace covers, when known: a policy whose exact
	// arithmetic cannot reach that far (a large rate per hour that shares few
	// factors with the period, over a long log) is left out of Policies and
	// counted by LeftOut, instead of failing the whole sweep.
	Span time.Duration
}

// Policies lists the grid in a fixed order: by algorithm (as given), then rate,
// then burst. A burst below a request's cost could never accept it and is left
// out, and so is a policy the algorithm cannot enforce as its product writes it
// (algorithms.Info.CheckPolicy: nginx sweeps the periods of 1s and 1m only) and
// one that cannot be replayed exactly (LeftOut).
func (g Grid) Policies(maxCost int64) []Policy {
	all, _ := g.policies(maxCost)
	return all
}

// LeftOut lists the grid's policies that could accept the largest request but
// cannot be replayed exactly (Policy.exact): a limit or burst too large for its
// period (the day's 2 × the most a key sent, on a log with a key of 60,000 a
// day), or credits that cannot span g.Span; in the order of Policies.
func (g Grid) LeftOut(maxCost int64) []Policy {
	_, out := g.policies(maxCost)
	return out
}

func (g Grid) policies(maxCost int64) (in, out []Policy) {
	add := func(p Policy) {
		if p.exact(maxCost, g.Span) != nil {
			out = append(out, p)
			return
		}
		in = append(in, p)
	}
	variants := g.Variants
	if len(variants) == 0 {
		variants = []Variant{{}}
	}
	for _, a := range g.Algorithms {
		info, _ := algorithms.Lookup(a)
		enforceable := func(p Policy) bool {
			return info.CheckPolicy == nil || info.CheckPolicy(p.policy(), p.Options()) == nil
		}
		each := func(p Policy) {
			for _, v := range variants {
				var ok bool
				if p.Knobs, ok = v.knobs(p.Burst, p.Period); ok && enforceable(p) {
					add(p)
				}
			}
		}
		for _, r := range g.Rates {
			if !hasBurst(a) {
				if r >= maxCost {
					each(Policy{Algorithm: a, Limit: r, Period: g.Period, Burst: r})
				}
				continue
			}
			for _, b := range g.Bursts {
				if b >= maxCost {
					each(Policy{Algorithm: a, Limit: r, Period: g.Period, Burst: b})
				}
			}
		}
	}
	return in, out
}

// DefaultAlgorithms are those tune sweeps unless told otherwise, as the registry
// says (algorithms.Info.Tuned): gcra makes exactly the token bucket's decisions
// and x-time-rate is the token bucket by another library, so they add nothing to
// the comparison.
var DefaultAlgorithms = algorithms.Tuned()

// MaxPoints is the most rates and bursts a grid takes across its ranges
// (ratelab tune's --points).
const MaxPoints = 64

// DefaultPoints is how many rates and bursts a grid takes across its ranges
// unless told otherwise (ratelab tune's --points), and what ratelab tui --trace
// sweeps, so that both recommend the same policy.
const DefaultPoints = 8

// DefaultRanges are the rate and burst ranges for a trace, per period: rates
// from 1 to the most any key sent in one window of the period (above which
// nobody is ever denied), bursts from 1 to twice that.
func (t *Trace) DefaultRanges(period time.Duration) (rate, burst Range, err error) {
	top, err := t.mostOver(period)
	if err != nil {
		return Range{}, Range{}, err
	}
	return Range{1, max(top, 2)}, Range{1, max(2*top, 2)}, nil
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

// HeavyFactor is how far above the ordinary a key must go, over some period, to
// be a heavy hitter: its peak over that period at least this many times the
// 99th-percentile ordinary key's (and at least minHeavyPeak requests).
const HeavyFactor = 2

// maxClassRounds bounds the rounds of Classify's search for the ordinary level.
const maxClassRounds = 20

// minHeavyPeak is the fewest requests in one window that can make a key heavy,
// so that 2 against 1 does not.
const minHeavyPeak = 3

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
