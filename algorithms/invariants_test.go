package algorithms

import (
	"fmt"
	"math/rand/v2"
	"reflect"
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

// admitted is p, or, for a product lane that refuses p's period (one
// configured only in its own units or values, Info.CheckPolicy), p with the
// first of 1s, 10s and 1m it takes.
func admitted(name Name, p Policy, o Options) Policy {
	a := MustLookup(name)
	if a.CheckPolicy == nil || a.CheckPolicy(p.WithDefaults(), o) == nil {
		return p
	}
	for _, period := range []time.Duration{time.Second, 10 * time.Second, time.Minute} {
		q := p
		q.Period = period
		if a.CheckPolicy(q.WithDefaults(), o) == nil {
			return q
		}
	}
	panic(fmt.Sprintf("%s takes none of the periods 1s, 10s, 1m for %s", name, p))
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

// checkCounterBound: HAProxy's counter lets at most Limit requests through per
// counter period (the rate it reads is at least the period's count, and only a
// rate within the threshold passes), and the periods of an entry are disjoint
// spans of Period (rotated by Period from an even start, re-anchored only two
// periods on, a new entry only after expire ≥ Period of silence), so n + 1
// periods at most meet a window of n periods: no window (t − n × Period, t]
// holds more than (n + 1) × Limit requests let through, whatever they cost. The
// bound is reached: Limit at the end of one period and Limit at the end of the
// next, whose weight of the last is then under one request.
func checkCounterBound(p Policy, n int64, outs []outcome) error {
	for key, acc := range accepted(outs) {
		for j := range acc {
			var count int64
			for i := j; i >= 0 && acc[i].at > acc[j].at-time.Duration(n)*p.Period; i-- {
				count++
			}
			if count > (n+1)*p.Limit {
				return fmt.Errorf("key %s: %d requests let through in the %d periods ending %v, more than %d × %d", key, count, n, acc[j].at, n+1, p.Limit)
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

// perRequest is outs with every request costing one unit, as a lane that
// counts requests takes them.
func perRequest(outs []outcome) []outcome {
	out := append([]outcome(nil), outs...)
	for i := range out {
		out[i].cost = 1
	}
	return out
}

// checkMitigation: after an acceptance, the next refusal of the key starts a
// mitigation of timeout (the key was not mitigated, so it trips the rule): no
// request of the key is accepted before it ends.
func checkMitigation(timeout time.Duration, outs []outcome) error {
	tripped := map[string]time.Duration{} // the key's last trip
	open := map[string]bool{}             // an acceptance since it
	for _, o := range outs {
		switch {
		case o.Allowed:
			if at, ok := tripped[o.key]; ok && o.at < at+timeout {
				return fmt.Errorf("key %s: accepted at %v, %v after the mitigation that began at %v (%v)", o.key, o.at, o.at-at, at, timeout)
			}
			open[o.key] = true
		case open[o.key]:
			tripped[o.key], open[o.key] = o.at, false
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
				unix := kongClock(toMicros(o.at))
				start := kongWindowStart(w, unix)
				if counts[start]++; counts[start] > limit {
					return fmt.Errorf("key %s: %d requests admitted in the %s from %v, limit %d", key, counts[start], KongWindowNames[w], time.Unix(start, 0).UTC(), limit)
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
		if !reflect.DeepEqual(a, b) {
			return fmt.Errorf("%s: request %d (%s at %v): %+v without eviction, %+v with", plain.Algorithm(), i, q.key, q.at, a, b)
		}
	}
	return nil
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
	unit := admitted(EnvoyGlobalName, p, Options{}) // its windows, of a second or a minute, start at the origin
	cf := admitted(CloudflareName, p, Options{})    // 10 s or a minute
	quota := 1 + int64(len(trace))/4                // a day's; the run's origin is midnight UTC
	randomOffset := func(key string) time.Duration {
		return time.Duration(KeyHash(key)%uint64(p.Period/time.Microsecond)) * time.Microsecond
	}
	kongOpts := Options{KongWindows: KongWindows{KongHour: 30 * p.Limit}}
	kong := NewKong(admitted(KongName, p, kongOpts), kongOpts)
	kongOpts.KongPolicy = KongRedis
	kongRedis := NewKong(admitted(KongName, p, kongOpts), kongOpts)
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
		fail("cloudflare, throttle: limit per aligned window", checkWindowBound(cf, windowAligned, decide(NewCloudflare(cf, 0, false), trace))),
		fail("cloudflare, blocked counted: limit per aligned window", checkWindowBound(cf, windowAligned, decide(NewCloudflare(cf, 0, true), trace))),
		fail("cloudflare: nothing passes a mitigation", checkMitigation(cf.Period, decide(NewCloudflare(cf, cf.Period, r.IntN(2) == 0), trace))),
		fail("api-gateway: burst + rate × T, a request a token", checkBucketBound(p, perRequest(decide(NewAPIGateway(p, 0, QuotaNone, 0, HeaderOrigin), trace)))),
		fail("api-gateway: its quota per UTC day", checkWindowBound(Policy{Limit: quota, Period: 24 * time.Hour}, windowAligned, perRequest(decide(NewAPIGateway(p, quota, QuotaDay, 0, HeaderOrigin), trace)))),
		fail("envoy-global: limit per window of its unit",

			checkWindowBound(unit, windowAligned, decide(NewEnvoyGlobal(unit, false, HeaderOrigin), trace))),
		fail("spring: burst + rate × whole seconds", checkSpringBound(p, decide(NewSpring(p), trace))),
		fail("traefik: burst + rate × T on departures, between expiries", checkTraefikBound(p, decide(NewTraefik(p), trace))),
		fail("kong local: each window's limit", checkKongBound(kong.Limits(), decide(kong, trace))),
		fail("kong redis: each window's limit", checkKongBound(kongRedis.Limits(), decide(kongRedis, trace))),
	} {
		if err != nil {
			return err
		}
	}
	// an expire longer than two periods changes nothing HAProxy decides: the
	// count reads 0 before the entry goes (at exactly two periods a count of 1
	// still reads 1, by the flapping correction, where a new entry reads 0)
	for _, track := range []HAProxyTrack{TrackBeforeDeny, TrackAfterDeny} {
		rel := HAProxyRelease{EvenTicks: true}
		if err := fail(fmt.Sprintf("haproxy %s: expire 2 × period + 1ms = none", track), checkSameDecisions(
			decide(NewHAProxy(p, track, 0, rel), trace), decide(NewHAProxy(p, track, 2*p.Period+time.Millisecond, rel), trace), true)); err != nil {
			return err
		}
	}
	// HAProxy on both places of track-sc0, an expire of a period, and 1.7's odd
	// ticks (the test's periods are even milliseconds)
	for _, o := range []Options{{}, {TrackSC: TrackAfterDeny}, {Expire: p.Period}, {HAProxyVersion: "1.7", TrackSC: TrackAfterDeny}, {HAProxyVersion: "2.2.11", Expire: p.Period / 2}} {
		fresh := func() Limiter {
			lim, _ := New(HAProxyName, p, o)
			return lim
		}
		if o.HAProxyVersion != "2.2.11" { // its counters of a second or more never rotate; an expire shorter than a period resets them
			for _, n := range []int64{1, 3} {
				if err := fail(fmt.Sprintf("haproxy %+v: (n + 1) × limit in n periods", o), checkCounterBound(p, n, decide(fresh(), trace))); err != nil {
					return err
				}
			}
		}
		if err := fail(fmt.Sprintf("haproxy %+v: eviction", o), checkEvictionInvisible(fresh, trace)); err != nil {
			return err
		}
	}
	for _, name := range Names() {
		opts := Options{}
		if name == "fixed-window" {
			opts.Rollover = p.Limit / 2
		}
		ep := admitted(name, p, opts)
		if _, err := New(name, ep, opts); err != nil {
			return fail(string(name), err)
		}
		fresh := func() Limiter {
			lim, _ := New(name, ep, opts)
			return lim
		}
		if err := fail("eviction", checkEvictionInvisible(fresh, trace)); err != nil {
			return err
		}
	}
	np := admitted(NginxName, p, Options{})
	return fail("nginx: burst + rate × (T + 1 ms), one request more per expiry", checkNginxBound(np, trace))
}

// checkNginxBound: the accepted cost of a key over any [t0, t1] is at most
// burst + rate × (t1 − t0 + 1 ms), nginx's leaky bucket of the policy's burst
// draining on a millisecond clock (the rate truncated to milli-requests per
// second only drains less), plus one request for each time nginx's expiry
// deleted the key's node in between: expiry forgives an excess up to 999
// (a drained excess without lookup's + 1000). Compared exactly, × Period in µs.
func checkNginxBound(p Policy, trace []request) error {
	z := NewNginx(p, Options{})
	periodUS := int64(p.Period / time.Microsecond)
	type acc struct {
		at      time.Duration
		cost    int64
		expired int // the key's node deletions before it
	}
	byKey := map[string][]acc{}
	expired := map[string]int{}
	for _, q := range trace {
		before := map[string]bool{}
		for _, k := range z.stateKeys() {
			before[k] = true
		}
		d := z.Allow(q.key, q.at, q.cost)
		for k := range before {
			if z.stateOf(k) == nil {
				expired[k]++
			}
		}
		if d.Allowed {
			byKey[q.key] = append(byKey[q.key], acc{q.at, q.cost, expired[q.key]})
		}
	}
	for key, as := range byKey {
		for i := range as {
			var sum int64
			for j := i; j < len(as); j++ {
				sum += as[j].cost
				spanUS := int64((as[j].at-as[i].at)/time.Microsecond) + 1000
				forgiven := int64(as[j].expired - as[i].expired)
				if sum*periodUS > (p.Burst+forgiven)*periodUS+p.Limit*spanUS {
					return fmt.Errorf("key %s: %d requests accepted in [%v, %v], more than burst %d + rate × (span + 1 ms) + %d expired", key, sum, as[i].at, as[j].at, p.Burst, forgiven)
				}
			}
		}
	}
	return nil
}

// TestInvariantsOnRandomTraces checks every invariant on 1,000 seeded random
// traces (a random policy each): the buckets never pass burst + rate × T (Spring's
// per whole second, or nothing stored and nothing refused in its ttl trap;
// Traefik's on the times requests are let go, between expiries; Kong's in each
// of its UTC windows), the windows never pass their limit, HAProxy's counter
// never passes (n + 1) × limit in n periods, GCRA, the leaky meter and
// x/time/rate decide as the token bucket does, and eviction changes no decision.
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
	if checkCounterBound(perSecond100, 1, fw) != nil {
		t.Error("checkCounterBound refused 200 units in one 1 s window at limit 100")
	}
	var thrice []outcome
	for i := range 301 {
		thrice = append(thrice, outcome{request{at: ms(float64(i)), key: "k", cost: 1}, Decision{Allowed: true}})
	}
	if checkCounterBound(perSecond100, 1, thrice) == nil {
		t.Error("checkCounterBound accepted 301 requests in 301 ms at limit 100")
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
	// throttle lets a slow request through 20 s after the 11th of a burst was
	// refused: under a mitigation of a minute it may not pass
	p := Policy{Limit: 10, Period: 10 * time.Second}
	var burst []request
	for i := 0; i < 11; i++ {
		burst = append(burst, request{at: 0, key: "k", cost: 1})
	}
	burst = append(burst, request{at: 20 * time.Second, key: "k", cost: 1})
	if checkMitigation(time.Minute, decide(NewCloudflare(p, 0, false), burst)) == nil {
		t.Error("checkMitigation accepted a request 20 s into a minute's mitigation")
	}
	if err := checkMitigation(time.Minute, decide(NewCloudflare(p, time.Minute, false), burst)); err != nil {
		t.Errorf("checkMitigation refused the lane that mitigates: %v", err)
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

// The counter bound needs expire ≥ Period (or none): an entry that expires
// sooner is replaced by a new one whose period overlaps the old one's, and the
// bound fails on some traces.
func TestHAProxyShortExpireBreaksTheCounterBound(t *testing.T) {
	for seed := uint64(1); seed <= 100; seed++ {
		r := rand.New(rand.NewPCG(seed, 0x5eed))
		p := randomPolicy(r)
		trace := randomTrace(r, p, 150, min(p.Burst, p.Limit, 3))
		lim, _ := New(HAProxyName, p, Options{Expire: p.Period / 10})
		if checkCounterBound(p, 1, decide(lim, trace)) != nil {
			return
		}
	}
	t.Error("an expire of a tenth of the period never broke the counter bound on 100 traces")
}
