package algorithms

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// Issue 18, case 4: a balance of c whole units must read as c whole units. Over
// limits 1 to 1,000 and balances of 0 to 1,000 units, multiplying by a rounded
// 1/unit read 321,447 (limit, units) pairs at a 7 s period off the whole number,
// 303,898 of them a hair under it (a header one unit short), and 46,271 at an
// hour (1,600 under). The quotient rounded once is always exact here
// (credits.units).
func TestWholeUnitsReadWhole(t *testing.T) {
	for _, period := range []time.Duration{7 * time.Second, time.Hour} {
		wrong := 0
		for limit := int64(1); limit <= 1000; limit++ {
			c := newCredits(Policy{Limit: limit, Period: period, Burst: 1000})
			for units := int64(0); units <= 1000; units++ {
				if got := c.units(units * c.unit); got != float64(units) {
					if wrong++; wrong <= 3 {
						t.Errorf("%d per %s: %d units of credits read as %v", limit, period, units, got)
					}
				}
			}
		}
		if wrong > 0 {
			t.Errorf("%s: %d (limit, units) pairs read wrong", period, wrong)
		}
	}
}

// The floor of Remaining is the whole units the integer state holds, for any
// balance, not only whole ones: floor(units(cr)) = floorDiv(cr, unit), on random
// policies up to the exact-arithmetic bound.
func TestRemainingFloorsToTheIntegerState(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 4))
	periods := []time.Duration{time.Microsecond * 7, time.Millisecond, 7 * time.Second, time.Hour, 24 * time.Hour}
	for trial := 0; trial < 200000; trial++ {
		p := Policy{Limit: 1 + r.Int64N(1_000_000), Period: periods[r.IntN(len(periods))]}
		p.Burst = 1 + r.Int64N(max(1, MaxExact/int64(p.Period/Resolution)/2))
		if p.Validate(1) != nil {
			continue
		}
		c := newCredits(p)
		cr := r.Int64N(c.capacity + 1)
		if trial%3 == 0 { // a whole number of units, or one credit short of one
			cr = r.Int64N(p.Burst+1)*c.unit - r.Int64N(2)
			cr = max(cr, 0)
		}
		if got, want := int64(math.Floor(c.units(cr))), floorDiv(cr, c.unit); got != want {
			t.Fatalf("%s: %d credits of %d each: floor(units) = %d, want %d", p, cr, c.unit, got, want)
		}
	}
}

// Through the limiters and the header: one request at 1 per 7 s, burst 2, leaves
// r=1 for every bucket-shaped algorithm, and at every limit from 1 to 1,000
// (burst = the limit + 1) one request leaves r = the limit.
func TestHeaderRemainingIsWhole(t *testing.T) {
	for limit := int64(1); limit <= 1000; limit++ {
		p := Policy{Limit: limit, Period: 7 * time.Second, Burst: limit + 1}
		for _, lim := range []Limiter{NewTokenBucket(p, true, 0), NewGCRA(p), NewLeakyBucket(p, LeakyMeter), NewXTimeRate(p)} {
			d := lim.Allow("k", 0, 1)
			if got := remainingOf(d); got != limit {
				t.Fatalf("%s at %s: one request leaves remaining %v, header r=%d, want %d", lim.Algorithm(), p, d.Remaining, got, limit)
			}
		}
	}
}
