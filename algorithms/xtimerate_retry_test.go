package algorithms

import (
	"math/rand/v2"
	"testing"
	"time"
)

// x-time-rate's retry-after is computed, not searched: on random policies and
// histories with clocks behind and ahead (requests stamped before the limiter's
// last event) and idle hours, the computed instant is at most a microsecond from
// the first one AllowN accepts, so settling it by the library's rule takes at
// most one step either way.
func TestXTimeRateRetryEstimate(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 2))
	worst, denials, stampedBefore := int64(0), 0, 0
	for trial := 0; trial < 3000; trial++ {
		p := Policy{Limit: 1 + r.Int64N(5000), Period: time.Duration(1+r.Int64N(3_600_000)) * time.Millisecond}
		p.Burst = 1 + r.Int64N(2*p.Limit)
		x := NewXTimeRate(p)
		var at time.Duration
		for i := 0; i < 60; i++ {
			switch r.IntN(10) {
			case 0:
				at += time.Duration(r.Int64N(int64(5 * time.Hour)))
			case 1, 2:
			default:
				at += time.Duration(r.Int64N(int64(p.Period/time.Duration(p.Limit)) * 3))
			}
			stamp := (at + time.Duration(r.Int64N(int64(2*p.Period))) - p.Period).Truncate(time.Microsecond)
			cost := 1 + r.Int64N(p.Burst)
			s, _ := x.state("k")
			d := x.Allow("k", stamp, cost)
			if d.Allowed || s == nil {
				continue
			}
			n := toMicros(stamp)
			from, est := x.retryEstimate(s, n, cost)
			final := n + int64(d.RetryAfter/Resolution)
			if s.last > n {
				stampedBefore++
			}
			denials++
			if off := max(est-final, final-est); off > worst {
				worst = off
			}
			if final < from || !x.acceptsAt(s, final, cost) || (final > from && x.acceptsAt(s, final-1, cost)) {
				t.Fatalf("%s: cost %d at %v: retry-after %v is not the first accepting µs", p, cost, stamp, d.RetryAfter)
			}
		}
	}
	if worst > 1 {
		t.Errorf("the computed retry instant was %dµs from the first accepting one; want at most 1", worst)
	}
	if denials < 1000 || stampedBefore < 200 {
		t.Errorf("only %d denials, %d stamped before the limiter's last: the cases are not exercised", denials, stampedBefore)
	}
	t.Logf("%d denials (%d stamped before the limiter's last): the estimate was at most %dµs off", denials, stampedBefore, worst)
}
