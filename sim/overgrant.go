package sim

import (
	"math/big"
	"math/bits"
	"slices"
	"time"

	"ratelab/algorithms"
)

// Over-grant: the most units a key was admitted past its algorithm's contract,
// capacity + rate × T, in any span T — not only from its first admission to its
// last, where a burst forgiven in the middle of a run (a store flushed, then quiet
// traffic) hides inside a long span's slack.
//
// The largest excess over every span ending at an admission is the level of a
// bucket that fills by each admission's cost and drains at the policy's rate,
// never below empty (Lindley's recursion for a queue's workload):
//
//	level_j = max(0, level_{j-1} − rate × (t_j − t_{j-1})) + cost_j
//	        = max over i ≤ j of (units admitted in [t_i, t_j] − rate × (t_j − t_i))
//
// so a key's largest excess over any span is its highest level less its
// capacity: O(1) a key, one step an admission. The level is kept exactly, in
// credits (a unit of cost is period/g credits and the rate limit/g credits a
// nanosecond, g = gcd(period in ns, limit), as the buckets themselves count in
// microseconds: algorithms/credits.go), in 128 bits so that no admitted total
// overflows it, on the admissions' own times, to the nanosecond (the request
// CSV's admitted_at_ms): the limiters that decide in whole microseconds admit at
// whole microseconds, and those that delay to the nanosecond (x/time/rate's
// reservations) are held to their own times.
//
// The recursion needs each key's admissions in time order. An admission is
// recorded when it is decided, at the time it goes ahead, which for queued or
// reserved work is later than now, and may be later than an admission of the
// same key decided after it (nginx's delay=N lets a request through at once
// past those it delayed). So a key's admissions that go ahead later than now
// wait in the key's own list, in time order (a queue's, FIFO, are appended),
// and are stepped over at the key's next admission once the run's time has
// reached them, or when the figures are taken. Every admission decided now goes
// ahead now or later, so each key's are stepped over in (time, order decided).

// uint128 is an unsigned 128-bit count of credits.
type uint128 struct{ hi, lo uint64 }

// addProduct is x + a × b (it cannot overflow: a key's admitted units times a
// unit stay far below 2^128).
func (x uint128) addProduct(a, b uint64) uint128 {
	hi, lo := bits.Mul64(a, b)
	var carry uint64
	x.lo, carry = bits.Add64(x.lo, lo, 0)
	x.hi += hi + carry
	return x
}

// subProductFloor is x − a × b, or 0 when that is negative.
func (x uint128) subProductFloor(a, b uint64) uint128 {
	hi, lo := bits.Mul64(a, b)
	d := uint128{hi, lo}
	if x.less(d) {
		return uint128{}
	}
	return x.minus(d)
}

// minus is x − y, for y <= x.
func (x uint128) minus(y uint128) uint128 {
	var borrow uint64
	x.lo, borrow = bits.Sub64(x.lo, y.lo, 0)
	x.hi -= y.hi + borrow
	return x
}

func (x uint128) less(y uint128) bool { return x.hi < y.hi || x.hi == y.hi && x.lo < y.lo }

// float is x as the nearest float64.
func (x uint128) float() float64 {
	if x.hi == 0 {
		return float64(x.lo)
	}
	// past 2^64 credits (a lane far past its contract): rounded once, as the
	// halves added in floating point would not be
	n := new(big.Int).Lsh(new(big.Int).SetUint64(x.hi), 64)
	f, _ := new(big.Float).SetInt(n.Or(n, new(big.Int).SetUint64(x.lo))).Float64()
	return f
}

// contractCredits is one tier's contract in credits: a unit of cost, the rate's
// credits a nanosecond, and the capacity.
type contractCredits struct {
	unit, perNano uint64
	capacity      uint128
}

// newContractCredits is the contract of a policy p (defaults applied) whose
// algorithm holds capacity units.
func newContractCredits(p algorithms.Policy, capacity int64) contractCredits {
	period := uint64(max(1, p.Period))
	limit := uint64(max(0, p.Limit))
	g := period
	if limit > 0 {
		g = gcd64(period, limit)
	}
	c := contractCredits{unit: period / g, perNano: limit / g}
	c.capacity = uint128{}.addProduct(uint64(max(0, capacity)), c.unit)
	return c
}

func gcd64(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// spanLevel is a key's contract level (see above): its level after its latest
// admission in time order, the highest it reached, and that admission's time.
type spanLevel struct {
	level, most uint128
	last        time.Duration
	seen        bool
	waits       bool // the key has admissions that go ahead later than its latest decision (recorder.later)
}

// add steps sl over an admission of cost units at `at` under contract c. An
// admission earlier than the last (which the heap keeps from happening) counts
// as at the last.
func (sl *spanLevel) add(c *contractCredits, at time.Duration, cost int64) {
	if sl.seen && at > sl.last {
		sl.level = sl.level.subProductFloor(uint64(at-sl.last), c.perNano)
	}
	if !sl.seen || at > sl.last {
		sl.last, sl.seen = at, true
	}
	sl.level = sl.level.addProduct(uint64(cost), c.unit)
	if sl.most.less(sl.level) {
		sl.most = sl.level
	}
}

// excess is the most units sl went past contract c in any span: 0 when it kept it.
func (sl *spanLevel) excess(c *contractCredits) float64 {
	if !c.capacity.less(sl.most) {
		return 0
	}
	return sl.most.minus(c.capacity).float() / float64(c.unit)
}

// laterAdmission is an admission that goes ahead later than it was decided,
// waiting for the run's time to reach it (see above).
type laterAdmission struct {
	at   time.Duration
	cost int64
}

// spanAdmit records cost units of key going ahead at `at`, decided at now (at >=
// now), in its contract level: after the key's admissions waiting that go ahead
// no later than now, at once if it goes ahead now, or else in the key's list.
func (r *recorder) spanAdmit(key int32, c *contractCredits, at, now time.Duration, cost int64) {
	sl := &r.spans[key]
	if sl.waits {
		later := r.later[key]
		gone := 0
		for gone < len(later) && later[gone].at <= now {
			r.stepSpan(sl, c, later[gone].at, later[gone].cost)
			gone++
		}
		r.later[key] = later[:copy(later, later[gone:])]
		if len(r.later[key]) == 0 {
			sl.waits = false
			delete(r.waiting, key)
		}
	}
	if at <= now { // before every admission still waiting: they go ahead later than now
		r.stepSpan(sl, c, at, cost)
		return
	}
	if r.later == nil {
		r.later = make([][]laterAdmission, len(r.spans))
		r.waiting = map[int32]bool{}
	}
	later := r.later[key]
	i := len(later)
	for i > 0 && later[i-1].at > at { // after those at the same time, decided before it
		i--
	}
	r.later[key] = slices.Insert(later, i, laterAdmission{at, cost})
	if !sl.waits {
		sl.waits = true
		r.waiting[key] = true
	}
}

// laterOf is key's admissions waiting to go ahead, in time order.
func (r *recorder) laterOf(key int32) []laterAdmission {
	if r.later == nil {
		return nil
	}
	return r.later[key]
}

// stepSpan steps a key's contract level sl, under contract c, over an
// admission, keeping the live sums' term of the key up to date when they are
// kept.
func (r *recorder) stepSpan(sl *spanLevel, c *contractCredits, at time.Duration, cost int64) {
	if r.live != nil {
		r.live.overshoot(-1, sl.excess(c))
	}
	sl.add(c, at, cost)
	if r.live != nil {
		r.live.overshoot(+1, sl.excess(c))
	}
}

// spanExcesses is each key's excess (see spanLevel.excess) with the admissions
// still waiting counted as they will be: the recorder is left as it was, so the
// run can go on.
func (r *recorder) spanExcesses(each func(key int32, excess float64)) {
	for i := range r.spans {
		sl, c := r.spans[i], &r.tiers[r.cfg.Keys[i].Tier].contract // a copy: the run goes on
		for _, a := range r.laterOf(int32(i)) {
			sl.add(c, a.at, a.cost)
		}
		if sl.seen {
			each(int32(i), sl.excess(c))
		}
	}
}
