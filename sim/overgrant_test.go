package sim

import (
	"cmp"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"ratelab/algorithms"
)

// bruteSpanExcess is the most admitted units past capacity + limit × T / period
// in any span [a, b] of admission times, by trying every pair, in exact
// rationals: the definition spanLevel computes in one pass.
func bruteSpanExcess(adm []laterAdmission, p algorithms.Policy, capacity int64) *big.Rat {
	sorted := slices.Clone(adm)
	slices.SortStableFunc(sorted, func(x, y laterAdmission) int { return cmp.Compare(x.at, y.at) })
	best := new(big.Rat)
	for i := range sorted {
		from := sorted[i].at
		if i > 0 && sorted[i-1].at == from {
			continue // a span starts with every admission at its first instant
		}
		var units int64
		for j := i; j < len(sorted); j++ {
			units += sorted[j].cost
			if j+1 < len(sorted) && sorted[j+1].at == sorted[j].at {
				continue // and ends with every admission at its last
			}
			span := new(big.Int).Mul(big.NewInt(p.Limit), big.NewInt(int64(sorted[j].at-from)))
			bound := new(big.Rat).SetFrac(span, big.NewInt(int64(p.Period)))
			bound.Add(bound, new(big.Rat).SetInt64(capacity))
			excess := new(big.Rat).Sub(new(big.Rat).SetInt64(units), bound)
			if excess.Cmp(best) > 0 {
				best = excess
			}
		}
	}
	return best
}

// A key's over-grant is its largest excess over capacity + rate × T in any span
// T, not only the span from its first admission to its last: on random
// admissions (bursts, quiet stretches, queued work decided before it goes ahead
// and so out of time order) under random policies, the recorder's excess is the
// brute force's over every pair of admissions, exactly zero where that is zero;
// and on what a token bucket or GCRA lets through of such traffic — often
// exactly at the bound — it is exactly zero.
func TestOverGrantIsTheLargestExcessOverAnySpan(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 31))
	broke, kept, outOfOrder := 0, 0, 0
	for trial := range 400 {
		limit := int64(1 + rng.IntN(50))
		period := time.Duration(1+rng.IntN(3000)) * time.Millisecond
		burst := int64(1 + rng.IntN(40))
		if trial%7 == 0 {
			period = time.Duration(1+rng.IntN(9999)) * time.Microsecond // odd periods: credits that do not divide
		}
		p := algorithms.Policy{Limit: limit, Period: period, Burst: burst}
		cfg := newConfig(p, time.Hour, []LaneConfig{lane("l", "token-bucket")})
		cfg.Keys = []Key{{Name: "k0"}, {Name: "k1"}, {Name: "k2"}} // each key held on its own, their admissions interleaved
		r := newRecorder(cfg, cfg.Lanes[0])
		var limiter algorithms.Limiter // nil: every request admitted
		if name := []algorithms.Name{"", algorithms.TokenBucketName, algorithms.GCRAName}[trial%3]; name != "" {
			var err error
			if limiter, err = algorithms.New(name, p, algorithms.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		adm := make([][]laterAdmission, len(cfg.Keys))
		now := time.Duration(0)
		lastAt := make([]time.Duration, len(cfg.Keys))
		for range 1 + rng.IntN(300) {
			k := rng.IntN(len(cfg.Keys))
			// decisions at whole µs, as the engine makes them (arrivals, retries)
			now += (time.Duration(rng.IntN(int(2*period/time.Microsecond)+1)) * time.Microsecond / time.Duration(1+rng.IntN(8))).Truncate(time.Microsecond)
			cost := int64(1 + rng.IntN(int(burst)))
			at := now
			if limiter != nil {
				if !limiter.Allow(cfg.Keys[k].Name, now, cost).Allowed {
					continue
				}
			} else if rng.IntN(5) == 0 { // queued or reserved: goes ahead later, to the ns
				at += time.Duration(rng.Int64N(int64(period) + 1))
			}
			if at < lastAt[k] {
				outOfOrder++
			}
			lastAt[k] = max(lastAt[k], at)
			r.admit(int32(k), at, now, cost, period)
			adm[k] = append(adm[k], laterAdmission{at: at, cost: cost})
		}
		got := make([]float64, len(cfg.Keys))
		r.spanExcesses(func(k int32, e float64) { got[k] = e })
		for k := range cfg.Keys {
			if len(adm[k]) == 0 {
				continue
			}
			want, _ := bruteSpanExcess(adm[k], r.tiers[0].policy, r.tiers[0].capacity).Float64()
			if (got[k] == 0) != (want == 0) || math.Abs(got[k]-want) > 1e-9*max(1, want) {
				t.Fatalf("trial %d: %v, key %d's %d admissions: excess %v, brute force over every span %v", trial, p, k, len(adm[k]), got[k], want)
			}
			if limiter != nil && got[k] != 0 {
				t.Fatalf("trial %d: %s %v kept its contract by construction, yet key %d's excess is %v", trial, limiter.Algorithm(), p, k, got[k])
			}
			if want > 0 {
				broke++
			} else if limiter != nil {
				kept++
			}
		}
		// taking the figures leaves the admissions still waiting as they were
		waiting := 0
		for k := range r.spans {
			waiting += len(r.laterOf(int32(k)))
		}
		if waiting > 0 {
			r.finish()
			for k := range r.spans {
				waiting -= len(r.laterOf(int32(k)))
			}
			if waiting != 0 {
				t.Fatalf("trial %d: finish took %d admissions out of the waiting lists", trial, waiting)
			}
		}
	}
	// the traffic tried both: a check that only ever sees 0 (or only excess) tests nothing
	t.Logf("%d trials broke the contract, %d limiters kept it, %d admissions out of time order", broke, kept, outOfOrder)
	if broke < 50 || kept < 50 || outOfOrder < 50 {
		t.Errorf("%d trials broke the contract, %d limiters kept it, %d admissions out of time order: want at least 50 of each", broke, kept, outOfOrder)
	}
}

// A bucket refilled at once mid-run (its store flushed) and then quiet: the
// burst forgiven is an excess in the span around the flush, though the span from
// the key's first admission to its last has room to spare.
func TestOverGrantSeesAnExcessInsideALongSpan(t *testing.T) {
	p := algorithms.Policy{Limit: 10, Period: time.Second, Burst: 20}
	cfg := newConfig(p, time.Minute, []LaneConfig{lane("l", "token-bucket")})
	cfg.Keys = []Key{{Name: "k"}}
	r := newRecorder(cfg, cfg.Lanes[0])
	at := func(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
	r.admit(0, 0, 0, 20, time.Second)                 // the burst
	r.admit(0, at(10000), at(10000), 20, time.Second) // refilled by 10 s, spent again
	r.admit(0, at(10001), at(10001), 20, time.Second) // a flush: a whole burst again
	r.admit(0, at(60000), at(60000), 1, time.Second)  // then quiet
	m := r.finish()
	// [10 s, 10.001 s]: 40 admitted against 20 + 10 × 0.001
	if want := 40 - 20.01; math.Abs(m.ExcessUnits-want) > 1e-9 {
		t.Errorf("excess %v units, want %v (the span around the flush)", m.ExcessUnits, want)
	}
	// the whole span, 0..60 s, allows 20 + 600: 61 admitted is far inside it
	if m.OverGrant <= 0 {
		t.Errorf("over-grant %v: the flush's excess is missed", m.OverGrant)
	}
}

func TestUint128(t *testing.T) {
	x := uint128{}.addProduct(math.MaxUint64, math.MaxUint64) // 2^128 − 2^65 + 1
	if x != (uint128{math.MaxUint64 - 1, 1}) {
		t.Fatalf("MaxUint64² = %+v", x)
	}
	if y := x.subProductFloor(math.MaxUint64, math.MaxUint64); y != (uint128{}) {
		t.Errorf("x − x = %+v", y)
	}
	if y := x.subProductFloor(1, 2); y != (uint128{math.MaxUint64 - 2, math.MaxUint64}) {
		t.Errorf("x − 2 = %+v (a borrow across the halves)", y)
	}
	if y := (uint128{0, 5}).subProductFloor(2, 3); y != (uint128{}) {
		t.Errorf("5 − 6 floors at 0, got %+v", y)
	}
	if f := (uint128{1, 0}).float(); f != math.Exp2(64) {
		t.Errorf("2^64 as float %v", f)
	}
}
