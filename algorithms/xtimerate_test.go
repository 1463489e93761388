package algorithms

import (
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// x/time/rate's retry-after is the first whole microsecond at which AllowN would
// accept the request: the case (100 per 1s, burst 1, requests at 0 and
// 1 ms) waits 9 ms, where the float estimate said 9.001 ms.
func TestXTimeRateRetryAfterIsExact(t *testing.T) {
	runSteps(t, NewXTimeRate(Policy{Limit: 100, Period: time.Second, Burst: 1}), []step{
		{at: 0, allowed: true, remaining: anyRemaining},
		{at: ms(1), allowed: false, retry: ms(9), remaining: anyRemaining},
	})

	// on many random histories: the same history replayed, then the request again
	// at now + retry-after, is accepted; a microsecond earlier, it is not
	r := rand.New(rand.NewPCG(8, 8))
	for trial := 0; trial < 2000; trial++ {
		p := Policy{Limit: 1 + r.Int64N(1000), Period: time.Duration(1+r.Int64N(5000)) * time.Millisecond, Burst: 1 + r.Int64N(20)}
		var history []time.Duration
		var at time.Duration
		for i := 0; i < 1+r.IntN(30); i++ {
			at += time.Duration(r.Int64N(3000)) * time.Microsecond
			history = append(history, at)
		}
		cost := 1 + r.Int64N(p.Burst)
		replay := func() (*XTimeRate, Decision) {
			x := NewXTimeRate(p)
			var d Decision
			for i, h := range history {
				c := int64(1)
				if i == len(history)-1 {
					c = cost
				}
				d = x.Allow("k", h, c)
			}
			return x, d
		}
		_, d := replay()
		if d.Allowed {
			continue
		}
		now := history[len(history)-1]
		x, _ := replay()
		if !x.Allow("k", now+d.RetryAfter, cost).Allowed {
			t.Fatalf("%s, history %v, cost %d: denied again at now + retry-after %v", p, history, cost, d.RetryAfter)
		}
		if d.RetryAfter > 0 {
			x, _ = replay()
			if x.Allow("k", now+d.RetryAfter-time.Microsecond, cost).Allowed {
				t.Fatalf("%s, history %v, cost %d: accepted a microsecond before the retry-after %v", p, history, cost, d.RetryAfter)
			}
		}
	}
}

// xAccepts is AllowN's rule: on fresh limiters brought to random states, it says
// what AllowN says at every instant tried.
func TestXAcceptsIsAllowNsRule(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	origin := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for trial := 0; trial < 5000; trial++ {
		limit := rate.Limit(float64(1+r.IntN(1000)) / float64(1+r.IntN(7)))
		burst := 1 + r.IntN(10)
		spent := time.Duration(r.Int64N(int64(time.Second)))
		at := origin.Add(spent + time.Duration(r.Int64N(int64(time.Second))))
		n := 1 + r.IntN(burst)
		build := func() *rate.Limiter {
			lim := rate.NewLimiter(limit, burst)
			lim.AllowN(origin.Add(spent), burst) // empty it
			return lim
		}
		lim := build()
		if got, want := xAccepts(lim.TokensAt(at), int64(n), limit), build().AllowN(at, n); got != want {
			t.Fatalf("limit %v, burst %d, n %d at %v: xAccepts = %v, AllowN = %v", limit, burst, n, at.Sub(origin), got, want)
		}
	}
}
