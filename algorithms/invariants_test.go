package algorithms

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// request is one request of a random trace.
type request struct {
	at   time.Duration
	key  string
	cost int64
}

// outcome is one decision made on a trace.
type outcome struct {
	request
	Decision
}

// randomPolicy draws a policy small enough to make many decisions interesting.
func randomPolicy(r *rand.Rand) Policy {
	periods := []time.Duration{100 * time.Millisecond, time.Second, 1500 * time.Millisecond, 7 * time.Second, time.Minute}
	limit := 1 + r.Int64N(50)
	return Policy{Limit: limit, Period: periods[r.IntN(len(periods))], Burst: 1 + r.Int64N(2*limit)}
}

// randomTrace draws n requests at microsecond-aligned, non-decreasing instants, over
// one to three keys: a mix of bursts (zero gaps) and gaps from a fraction of an
// emission interval to several, with costs from 1 to maxCost.
func randomTrace(r *rand.Rand, p Policy, n int, maxCost int64) []request {
	interval := p.Period / time.Duration(p.Limit)
	keys := []string{"a", "b", "c"}[:1+r.IntN(3)]
	var at time.Duration
	out := make([]request, n)
	for i := range out {
		if r.IntN(10) >= 3 {
			gap := time.Duration(r.ExpFloat64() * r.Float64() * 3 * float64(interval))
			at += gap.Truncate(time.Microsecond)
		}
		out[i] = request{at: at, key: keys[r.IntN(len(keys))], cost: 1 + r.Int64N(maxCost)}
	}
	return out
}

// decide runs trace through lim.
func decide(lim Limiter, trace []request) []outcome {
	out := make([]outcome, len(trace))
	for i, q := range trace {
		out[i] = outcome{q, lim.Allow(q.key, q.at, q.cost)}
	}
	return out
}

// accepted groups the accepted outcomes by key, in order.
func accepted(outs []outcome) map[string][]outcome {
	byKey := map[string][]outcome{}
	for _, o := range outs {
		if o.Allowed {
			byKey[o.key] = append(byKey[o.key], o)
		}
	}
	return byKey
}

// checkBucketBound: the accepted cost over any [t0, t1] is at most
// burst + rate × (t1 − t0), compared exactly: × Period in µs on both sides.
func checkBucketBound(p Policy, outs []outcome) error {
	periodUS := int64(p.Period / time.Microsecond)
	for key, acc := range accepted(outs) {
		for i := range acc {
			var sum int64
			for j := i; j < len(acc); j++ {
				sum += acc[j].cost
				spanUS := int64((acc[j].at - acc[i].at) / time.Microsecond)
				if sum*periodUS > p.Burst*periodUS+p.Limit*spanUS {
					return fmt.Errorf("key %s: %d units accepted in [%v, %v], more than burst %d + rate × %v", key, sum, acc[i].at, acc[j].at, p.Burst, acc[j].at-acc[i].at)
				}
			}
		}
	}
	return nil
}

// checkSlidingBound: no window (t − Period, t] holds more than Limit accepted units.
func checkSlidingBound(p Policy, outs []outcome) error {
	for key, acc := range accepted(outs) {
		for j := range acc {
			var sum int64
			for i := j; i >= 0 && acc[i].at > acc[j].at-p.Period; i-- {
				sum += acc[i].cost
			}
			if sum > p.Limit {
				return fmt.Errorf("key %s: %d units accepted in the window ending %v, limit %d", key, sum, acc[j].at, p.Limit)
			}
		}
	}
	return nil
}

// checkWindowBound: no window [k × Period + offset(key), (k+1) × Period + offset)
// holds more than Limit accepted units.
func checkWindowBound(p Policy, offset func(string) time.Duration, outs []outcome) error {
	for key, acc := range accepted(outs) {
		counts := map[int64]int64{}
		for _, o := range acc {
			w := floorDiv(int64(o.at-offset(key)), int64(p.Period))
			counts[w] += o.cost
			if counts[w] > p.Limit {
				return fmt.Errorf("key %s: %d units accepted in window %d, limit %d", key, counts[w], w, p.Limit)
			}
		}
	}
	return nil
}

// checkSpringBound: Spring's bucket gains its tokens at whole seconds, so over
// any [t0, t1] it accepts at most burst + rate × (whole seconds begun in
// between), ⌊t1⌋ − ⌊t0⌋, compared exactly in Spring's tokens; in the ttl trap
// (nothing stored) it accepts every request within the capacity.
func checkSpringBound(p Policy, outs []outcome) error {
	c := SpringConfigOf(p)
	sec := func(at time.Duration) int64 { return floorDiv(int64(at), int64(time.Second)) }
	if c.TTL() == 0 {
		for i, o := range outs {
			if !o.Allowed && o.cost <= p.WithDefaults().Burst {
				return fmt.Errorf("ttl trap: request %d (%s at %v, cost %d) refused; nothing is stored, so nothing within the capacity is", i, o.key, o.at, o.cost)
			}
		}
		return nil
	}
	for key, acc := range accepted(outs) {
		for i := range acc {
			var tokens int64
			for j := i; j < len(acc); j++ {
				tokens += acc[j].cost * c.RequestedTokens
				if most := c.BurstCapacity + c.ReplenishRate*(sec(acc[j].at)-sec(acc[i].at)); tokens > most {
					return fmt.Errorf("key %s: %d tokens accepted in [%v, %v], more than burstCapacity %d + replenishRate %d × %d whole seconds", key, tokens, acc[i].at, acc[j].at, c.BurstCapacity, c.ReplenishRate, sec(acc[j].at)-sec(acc[i].at))
				}
			}
		}
	}
	return nil
}

// checkTraefikBound: Traefik's bucket is x/time/rate's, one token a request: the
// requests it lets go (at + Delay) within any [t0, t1] number at most burst +
// rate × (t1 − t0), up to the library's float64 rounding; the bound starts over
// where a request finds its key's bucket expired (its whole second ttl or more
// after the key's previous request's), which makes it full again.
func checkTraefikBound(p Policy, outs []outcome) error {
	p = p.WithDefaults()
	c := TraefikConfigOf(p)
	sec := func(at time.Duration) int64 { return floorDiv(int64(at), int64(time.Second)) }
	type run struct {
		key   string
		first int
	}
	last := map[string]time.Duration{}
	start := map[string]int{}
	gone := map[run][]time.Duration{} // departures of each key's run of requests between expiries
	for i, o := range outs {
		if at, seen := last[o.key]; !seen || sec(o.at)-sec(at) >= c.TTL {
			start[o.key] = i
		}
		last[o.key] = o.at
		if o.Allowed {
			r := run{o.key, start[o.key]}
			gone[r] = append(gone[r], o.at+o.Delay)
		}
	}
	for r, deps := range gone {
		slices.Sort(deps)
		for i := range deps {
			for j := i; j < len(deps); j++ {
				if n := float64(j - i + 1); n > float64(p.Burst)+float64(c.Rate)*(deps[j]-deps[i]).Seconds()+1e-6 {
					return fmt.Errorf("key %s: %g requests let go in [%v, %v], more than burst %d + %g a second", r.key, n, deps[i], deps[j], p.Burst, float64(c.Rate))
				}
			}
		}
	}
	return nil
}

// checkKongBound: with its increments landing before the next request, Kong
// admits at most each window's limit of requests (not costs) in each of its
// UTC windows, whatever the policy.
func checkKongBound(limits KongWindows, outs []outcome) error {
	for key, acc := range accepted(outs) {
		for w, limit := range limits {
			if limit == 0 {
				continue
			}
			counts := map[int64]int64{}
			for _, o := range acc {
				unix, _ := kongClock(toMicros(o.at))
				start := kongWindowStart(w, unix)
				if counts[start]++; counts[start] > limit {
					return fmt.Errorf("key %s: %d requests admitted in the %s from %v, limit %d", key, counts[start], kongWindowNames[w], time.Unix(start, 0).UTC(), limit)
				}
			}
		}
	}
	return nil
}

// checkSameDecisions: a and b accepted and denied the same requests.
func checkSameDecisions(a, b []outcome, alsoRemaining bool) error {
	for i := range a {
		if a[i].Allowed != b[i].Allowed {
			return fmt.Errorf("request %d (%s at %v, cost %d): %v vs %v", i, a[i].key, a[i].at, a[i].cost, a[i].Allowed, b[i].Allowed)
		}
		if alsoRemaining && (a[i].Remaining != b[i].Remaining || a[i].RetryAfter != b[i].RetryAfter) {
			return fmt.Errorf("request %d (%s at %v, cost %d): remaining %g vs %g, retry-after %v vs %v", i, a[i].key, a[i].at, a[i].cost, a[i].Remaining, b[i].Remaining, a[i].RetryAfter, b[i].RetryAfter)
		}
	}
	return nil
}

// checkQueueSpacing: in queue mode, accepted requests leave (at + Delay) in order,
// each at least its predecessor's cost / rate after it (to the µs the delays are
// rounded up to).
func checkQueueSpacing(p Policy, outs []outcome) error {
	for key, acc := range accepted(outs) {
		for i := 1; i < len(acc); i++ {
			gap := (acc[i].at + acc[i].Delay) - (acc[i-1].at + acc[i-1].Delay)
			least := time.Duration(float64(acc[i-1].cost)*float64(p.Period)/float64(p.Limit)) - time.Microsecond
			if gap < least {
				return fmt.Errorf("key %s: departures %v apart at %v, want at least %v (cost %d at %s)", key, gap, acc[i].at, least, acc[i-1].cost, p)
			}
		}
	}
	return nil
}

// checkEvictionInvisible: evicting idle keys before every request changes nothing.
func checkEvictionInvisible(fresh func() Limiter, trace []request) error {
	plain, evicting := fresh(), fresh()
	for i, q := range trace {
		evicting.Evict(q.at)
		a, b := plain.Allow(q.key, q.at, q.cost), evicting.Allow(q.key, q.at, q.cost)
		if a != b {
			return fmt.Errorf("%s: request %d (%s at %v): %+v without eviction, %+v with", plain.Algorithm(), i, q.key, q.at, a, b)
		}
	}
	return nil
}

// statable is p, or, for a product that cannot state it, the nearest policy it
// can: Kong's windows are a second, a minute, an hour and a day (a period under
// a minute becomes a second, a longer one a minute).
func statable(name Name, p Policy, o Options) Policy {
	if check := MustLookup(name).CheckPolicy; check == nil || check(p, o) == nil {
		return p
	}
	if name == KongName {
		period := time.Second
		if p.Period >= time.Minute {
			period = time.Minute
		}
		p.Period = period
	}
	return p
}

// checkAll runs every invariant on one seeded trace.
func checkAll(seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	p := randomPolicy(r)
	maxCost := min(p.Burst, p.Limit, 3)
	trace := randomTrace(r, p, 150, maxCost)
	tb := decide(NewTokenBucket(p, true, 0), trace)
	fail := func(what string, err error) error {
		if err != nil {
			return fmt.Errorf("seed %d, %s: %s: %w", seed, p, what, err)
		}
		return nil
	}
	windowAligned := func(string) time.Duration { return 0 }
	randomOffset := func(key string) time.Duration {
		return time.Duration(KeyHash(key)%uint64(p.Period/time.Microsecond)) * time.Microsecond
	}
	kongOpts := Options{KongWindows: KongWindows{KongHour: 30 * p.Limit}}
	kong := NewKong(statable(KongName, p, kongOpts), kongOpts)
	kongOpts.KongPolicy = KongRedis
	kongRedis := NewKong(statable(KongName, p, kongOpts), kongOpts)
	for _, err := range []error{
		fail("token bucket: burst + rate × T", checkBucketBound(p, tb)),
		fail("gcra: burst + rate × T", checkBucketBound(p, decide(NewGCRA(p), trace))),
		fail("gcra = token bucket", checkSameDecisions(tb, decide(NewGCRA(p), trace), true)),
		fail("x-time-rate = token bucket", checkSameDecisions(tb, decide(NewXTimeRate(p), trace), false)),
		fail("leaky meter = token bucket", checkSameDecisions(tb, decide(NewLeakyBucket(p, LeakyMeter), trace), false)),
		fail("leaky queue spacing", checkQueueSpacing(p, decide(NewLeakyBucket(p, LeakyQueue), trace))),
		fail("sliding log: limit per window", checkSlidingBound(p, decide(NewSlidingLog(p), trace))),
		fail("fixed window: limit per window", checkWindowBound(p, windowAligned, decide(NewFixedWindow(p, false, 0), trace))),
		fail("fixed window, random start: limit per window", checkWindowBound(p, randomOffset, decide(NewFixedWindow(p, true, 0), trace))),
		fail("sliding counter: limit per aligned window", checkWindowBound(p, windowAligned, decide(NewSlidingCounter(p), trace))),
		fail("spring: burst + rate × whole seconds", checkSpringBound(p, decide(NewSpring(p), trace))),
		fail("traefik: burst + rate × T on departures, between expiries", checkTraefikBound(p, decide(NewTraefik(p), trace))),
		fail("kong local: each window's limit", checkKongBound(kong.Limits(), decide(kong, trace))),
		fail("kong redis: each window's limit", checkKongBound(kongRedis.Limits(), decide(kongRedis, trace))),
	} {
		if err != nil {
			return err
		}
	}
	for _, name := range Names() {
		fresh := func() Limiter {
			opts := Options{}
			if name == "fixed-window" {
				opts.Rollover = p.Limit / 2
			}
			lim, _ := New(name, statable(name, p, opts), opts)
			return lim
		}
		if err := fail("eviction", checkEvictionInvisible(fresh, trace)); err != nil {
			return err
		}
	}
	return nil
}

// TestInvariantsOnRandomTraces checks every invariant on 1,000 seeded random
// traces (a random policy each): the buckets never pass burst + rate × T (Spring's
// per whole second, or nothing stored and nothing refused in its ttl trap;
// Traefik's on the times requests are let go, between expiries; Kong's in each
// of its UTC windows), the
// windows never pass their limit, GCRA, the leaky meter and x/time/rate decide as
// the token bucket does, and eviction changes no decision.
//
// x/time/rate uses float64 tokens and treats a wait under one nanosecond as none;
// on microsecond-aligned times with at most 1,000 credits refilled per µs (here
// at most 50) the smallest real shortfall is a wait of a nanosecond or more, so
// the exact and the float buckets agree.
func TestInvariantsOnRandomTraces(t *testing.T) {
	for seed := uint64(1); seed <= 1000; seed++ {
		if err := checkAll(seed); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInvariantsCatchAViolation makes sure the checkers can fail: a fixed window
// breaks the bucket bound on the boundary burst.
func TestInvariantsCatchAViolation(t *testing.T) {
	var trace []request
	for i := 0; i < 140; i++ {
		trace = append(trace, request{at: ms(999), key: "k", cost: 1})
	}
	for i := 0; i < 180; i++ {
		trace = append(trace, request{at: ms(1001), key: "k", cost: 1})
	}
	fw := decide(NewFixedWindow(perSecond100, false, 0), trace)
	if checkBucketBound(perSecond100, fw) == nil {
		t.Error("checkBucketBound accepted 200 units in 2 ms at burst 100")
	}
	if checkSlidingBound(perSecond100, fw) == nil {
		t.Error("checkSlidingBound accepted 200 units in one 1 s window")
	}
	if checkKongBound(KongWindows{KongSecond: 100}, decide(NewUnlimited(perSecond100), trace)) == nil {
		t.Error("checkKongBound accepted 140 requests in the second from 0 at 100 a second")
	}
	if checkTraefikBound(perSecond100, decide(NewUnlimited(perSecond100), trace)) == nil {
		t.Error("checkTraefikBound accepted 320 requests let go in 2 ms at burst 100, 100 a second")
	}
	if checkSpringBound(perSecond100, decide(NewUnlimited(perSecond100), trace)) == nil {
		t.Error("checkSpringBound accepted 320 units in 2 ms at burst 100, 100 a second")
	}
	if checkSpringBound(Policy{Limit: 300, Period: time.Second, Burst: 100}, fw) == nil {
		t.Error("checkSpringBound accepted refusals in the ttl trap (300 a second, burst 100)")
	}
	tb := decide(NewTokenBucket(perSecond100, true, 0), trace)
	if checkSameDecisions(fw, tb, false) == nil {
		t.Error("checkSameDecisions saw no difference between the fixed window and the token bucket")
	}
}

// FuzzInvariants runs every invariant on fuzzer-chosen seeds.
func FuzzInvariants(f *testing.F) {
	for _, seed := range []uint64{1, 2, 42, 1 << 40} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		if err := checkAll(seed); err != nil {
			t.Fatal(err)
		}
	})
}
