package sim

import (
	"maps"
	"slices"

	"ratelab/algorithms"
)

// The figures a lane keeps as its decisions land, so that taking its metrics
// does not walk every key: with a trace of 100,000 keys, a walk per frame was
// 78 ms, past the UI's 50 ms frame.
//
// Kept always, exact — the same as a walk over the keys would find, whatever the
// order things happened in, so the run's outputs are the same bytes: the units
// admitted; the peak window over every key (a maximum: the first key, in key
// order, whose peak over its limit is the highest); a fixed window's peak over
// its allowance (a maximum) and its allowances and excess (sums of whole
// numbers, which floating point adds exactly in any order).
//
// Kept only for a live view (Run.KeepLive), within rounding: fairness's sums
// over every identity and the contract's most units and excess over every key.
// Each changes as a key's counts do, so it is kept by taking the key's old term
// out and putting its new one in; floating point then differs from the walk's
// sum in key order in the last bits, so what a run writes (finish) still walks
// the keys, once, at the end.

// tierFigures are the yardsticks a lane holds every key of one tier to,
// computed once: its policy (burst defaulted), the most its algorithm holds
// (algorithms.Capacity), and a fixed window's allowance (limit + rollover).
type tierFigures struct {
	policy    algorithms.Policy
	capacity  int64
	contract  contractCredits // capacity + rate × T in credits (overgrant.go)
	allowance float64
}

// running are the figures kept always (see above).
type running struct {
	best          peakBest
	acceptedUnits int64
	window        windowFigures
}

// peakBest is the key whose peak window is the highest over its limit, and that
// ratio; key -1 before any admission.
type peakBest struct {
	ratio float64
	key   int32
}

// windowFigures are a fixed-window lane's: the highest peak over its allowance
// of any key in one of its windows, the allowances of every key that admitted
// anything, and what keys got past them in their fullest window.
type windowFigures struct {
	peakRatio, most, excess float64
}

func newRunning() running { return running{best: peakBest{key: -1}} }

// peaked notes that key k's peak window grew to peak units.
func (r *recorder) peaked(k int32, peak int64) {
	ratio := float64(peak) / float64(r.tiers[r.cfg.Keys[k].Tier].policy.Limit)
	if b := &r.running.best; ratio > b.ratio || ratio == b.ratio && k < b.key {
		b.ratio, b.key = ratio, k
	}
}

// peaked notes that a fixed window of a key whose allowance is allowance reached
// count units, past the most it had, peak.
func (w *windowFigures) peaked(allowance float64, peak, count int64) {
	w.excess += max(0, float64(count)-allowance) - max(0, float64(peak)-allowance)
	w.peakRatio = max(w.peakRatio, float64(count)/allowance)
}

// liveSums are keySums kept as the keys' counts change (see above), and how many
// keys have an excess: with none, the excess is 0 exactly, however it was
// summed (a claim that over-grant == 0 reads the same live as written).
type liveSums struct {
	sums   keySums
	excess int
}

// keepLive starts keeping the live sums, from a walk over the keys as they are.
func (r *recorder) keepLive() {
	if r.live != nil {
		return
	}
	r.live = &liveSums{sums: r.sumKeys()}
	for i := range r.spans {
		if r.spans[i].excess(&r.tiers[r.cfg.Keys[i].Tier].contract) > 0 {
			r.live.excess++
		}
	}
}

// share adds (sign +1) or takes out (-1) an identity's term of the fairness
// index: its share of requests that succeeded, when it offered any.
func (l *liveSums) share(sign float64, offered, succeeded int64) {
	if offered > 0 {
		x := float64(succeeded) / float64(offered)
		l.sums.fairSum += sign * x
		l.sums.fairSq += sign * x * x
		l.sums.fairN += sign
	}
}

// measure adds (sign +1) or takes out (-1) a key's term of the contract's most
// units: what it may have had since its first admission.
func (l *liveSums) measure(sign float64, t *tierFigures, ks *keyStats) {
	if ks.admitted > 0 {
		l.sums.mostUnits += sign * t.mostUnits(ks)
	}
}

// overshoot adds (sign +1) or takes out (-1) a key's term of the contract's
// excess: the most it got past its contract in any span.
func (l *liveSums) overshoot(sign, excess float64) {
	if excess > 0 {
		l.sums.excess += sign * excess
		l.excess += int(sign)
	}
}

// liveKeySums is the sums as kept, with the keys whose admissions still wait
// to go ahead (a delay, a reservation) counted as finish counts them, as they
// will be (spanExcesses); the excess exactly 0 when no key has one.
func (r *recorder) liveKeySums() keySums {
	s, n := r.live.sums, r.live.excess
	keys := slices.Sorted(maps.Keys(r.waiting))
	for _, k := range keys {
		sl, c := r.spans[k], &r.tiers[r.cfg.Keys[k].Tier].contract // a copy: the run goes on
		before := sl.excess(c)
		for _, a := range r.laterOf(k) {
			sl.add(c, a.at, a.cost)
		}
		after := sl.excess(c)
		s.excess += after - before
		switch {
		case before == 0 && after > 0:
			n++
		case before > 0 && after == 0:
			n--
		}
	}
	if n == 0 {
		s.excess = 0
	}
	return s
}
