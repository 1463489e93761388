package conformance

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	juju "github.com/juju/ratelimit"
	"github.com/throttled/throttled/v2"
	uber "go.uber.org/ratelimit"
	"golang.org/x/time/rate"

	"ratelab/algorithms"
)

// Differential tests against the libraries whose semantics a lane claims, on
// seeded random traces with costs above the burst, idle gaps of hours, and (for
// the peers that take a time per call or read one from a store) requests stamped
// before the key's last by clocks behind and ahead. The parameters are mapped as
// docs/peers.md says. Where a peer legitimately decides otherwise, the test names
// the difference and checks that it is exactly that; any other difference fails.

// origin is the wall-clock instant virtual time 0 stands for, for the peers that
// take a time.Time (the instant the x-time-rate lane uses).
var origin = algorithms.HeaderOrigin

// wall is the wall-clock instant of virtual time now.
func wall(now time.Duration) time.Time { return origin.Add(now) }

// peerSeeds is how many seeded traces each peer is compared on.
const peerSeeds = 150

// peerTrace draws the policy and trace of one seed: a random policy, and a
// skewed trace with idle hours and costs up to three above the burst.
func peerTrace(seed uint64, salt uint64) (algorithms.Policy, []stamped) {
	r := rand.New(rand.NewPCG(seed, salt))
	p := randomPolicy(r)
	return p, randomTrace(r, p, traceShape{n: 150, capacity: p.Burst, maxCost: p.Burst + 3, keys: 3, skewed: true, hours: true})
}

// tally counts what a differential test compared, for its log (go test -v): a
// test that compared nothing interesting would say so.
type tally map[string]int

func (c tally) log(t *testing.T) {
	t.Helper()
	t.Logf("compared: %v", map[string]int(c))
}

// --- golang.org/x/time/rate --------------------------------------------------

// acceptsAfter reports whether AllowN(at, cost) accepts on a fresh limiter that
// has seen history first (AllowN each): x/time/rate's own answer, with nothing
// of ratelab's in between.
func acceptsAfter(p algorithms.Policy, history []stamped, at time.Duration, cost int64) bool {
	lim := rate.NewLimiter(rate.Limit(p.Rate()), int(p.Burst))
	for _, h := range history {
		lim.AllowN(wall(h.Now), int(h.Cost))
	}
	return lim.AllowN(wall(at), int(cost))
}

// The x-time-rate lane is x/time/rate: it accepts what AllowN accepts, its
// Remaining is the library's tokens (a shortfall AllowN waves through, under a
// nanosecond, counted as none), and its retry-after is the first microsecond at
// which AllowN, on the same history, accepts the same request.
//
// The token bucket with the fix off claims x/time/rate's semantics in exact
// arithmetic: the same decisions and retry-afters as the lane; Remaining within
// float64 rounding of the library's tokens, ResetAfter within the microsecond
// either rounds to.
func TestXTimeRateAndTheTokenBucketFixOffDecideAsXTimeRate(t *testing.T) {
	seen := tally{}
	defer seen.log(t)
	for seed := uint64(1); seed <= peerSeeds; seed++ {
		p, trace := peerTrace(seed, 1)
		lane := algorithms.NewXTimeRate(p)
		tb := algorithms.NewTokenBucket(p, false, 0)
		peer := map[string]*rate.Limiter{}
		history := map[string][]stamped{}
		for i, q := range trace {
			lim, ok := peer[q.Key]
			if !ok {
				lim = rate.NewLimiter(rate.Limit(p.Rate()), int(p.Burst))
				peer[q.Key] = lim
			}
			want := lim.AllowN(wall(q.Now), int(q.Cost))
			tokens := lim.TokensAt(wall(q.Now))
			d, e := lane.Allow(q.Key, q.Now, q.Cost), tb.Allow(q.Key, q.Now, q.Cost)
			fail := func(format string, args ...any) {
				t.Fatalf("seed %d, %s: request %d (%s at %v, cost %d): x-time-rate %+v, token-bucket %+v: %s", seed, p, i, q.Key, q.Now, q.Cost, d, e, fmt.Sprintf(format, args...))
			}
			if d.Allowed != want {
				fail("x/time/rate's AllowN says %v", want)
			}
			if d.Remaining != tokens {
				// only a shortfall AllowN waves through, counted as none: the
				// library, on the same history, takes Remaining units now
				after := append(append([]stamped(nil), history[q.Key]...), q)
				if d.Remaining != math.Ceil(tokens) || !acceptsAfter(p, after, q.Now, int64(d.Remaining)) {
					fail("remaining is not the library's tokens %v", tokens)
				}
			}
			seen["decisions"]++
			if len(history[q.Key]) > 0 && q.Now < history[q.Key][len(history[q.Key])-1].Now {
				seen["stamped before the key's last"]++
			}
			if !d.Allowed && d.RetryAfter == algorithms.Forever {
				seen["refused for ever"]++
			}
			if !d.Allowed && d.RetryAfter != algorithms.Forever {
				seen["retry-afters replayed"]++
				if !acceptsAfter(p, history[q.Key], q.Now+d.RetryAfter, q.Cost) {
					fail("x/time/rate refuses the same request at now + retry-after")
				}
				if acceptsAfter(p, history[q.Key], q.Now+d.RetryAfter-time.Microsecond, q.Cost) {
					fail("x/time/rate accepts the same request a microsecond before now + retry-after")
				}
			}
			if !d.Allowed && d.RetryAfter == algorithms.Forever && q.Cost <= p.Burst {
				fail("refused for ever a cost within the burst")
			}
			history[q.Key] = append(history[q.Key], q)
			// the token bucket, fix off
			if e.Allowed != d.Allowed || e.RetryAfter != d.RetryAfter || e.Delay != d.Delay {
				fail("the token bucket (fix off) decides otherwise")
			}
			if math.Abs(e.Remaining-d.Remaining) > 1e-9*max(1, math.Abs(d.Remaining)) {
				fail("the token bucket's remaining is not the library's")
			}
			if diff := e.ResetAfter - d.ResetAfter; diff < -time.Microsecond || diff > time.Microsecond {
				fail("the token bucket's reset-after is more than a microsecond from the library's")
			}
		}
	}
}

// The one way the token bucket may decide otherwise than x/time/rate: the
// library holds float64 tokens and takes a shortfall whose wait truncates to
// under a nanosecond as none; ratelab's exact credits refuse it. At 2,000,003
// per second a credit is a millionth of a token, half a nanosecond of refill;
// 333,333 µs after the bucket was emptied it holds 666,667 tokens less one
// credit, which x/time/rate accepts and the token bucket refuses, for 1µs.
func TestXTimeRateWavesThroughAShortfallUnderANanosecond(t *testing.T) {
	p := algorithms.Policy{Limit: 2_000_003, Period: time.Second, Burst: 666_667}
	at := 333_333 * time.Microsecond
	lim := rate.NewLimiter(rate.Limit(p.Rate()), int(p.Burst))
	tb := algorithms.NewTokenBucket(p, false, 0)
	if !lim.AllowN(wall(0), int(p.Burst)) || !tb.Allow("k", 0, p.Burst).Allowed {
		t.Fatal("a full bucket refused its burst")
	}
	c := algorithms.CreditsOf(p, 0)
	if 333_333*c.PerMicro != c.Capacity-1 {
		t.Fatalf("test setup: at %v the bucket holds %d credits of %d", at, 333_333*c.PerMicro, c.Capacity)
	}
	if !lim.AllowN(wall(at), int(p.Burst)) {
		t.Error("x/time/rate refuses a shortfall of half a nanosecond; the difference this test names is gone")
	}
	d := tb.Allow("k", at, p.Burst)
	if d.Allowed || d.RetryAfter != time.Microsecond {
		t.Errorf("the token bucket at %v: %+v, want refused, one credit short: retry after 1µs", at, d)
	}
}

// The token bucket with the fix off and reservations is x/time/rate's ReserveN
// (reservations as deep as needed): it accepts every cost within the burst and
// refuses every cost above it (ReserveN's n > burst), and its Delay is the
// reservation's DelayFrom rounded up to the microsecond (x/time/rate's wait is
// whole nanoseconds, truncated).
func TestTheTokenBucketWithReservationsIsReserveN(t *testing.T) {
	for seed := uint64(1); seed <= peerSeeds; seed++ {
		p, trace := peerTrace(seed, 2)
		var depth int64
		for _, q := range trace {
			depth += q.Cost
		}
		tb := algorithms.NewTokenBucket(p, false, depth)
		peer := map[string]*rate.Limiter{}
		for i, q := range trace {
			lim, ok := peer[q.Key]
			if !ok {
				lim = rate.NewLimiter(rate.Limit(p.Rate()), int(p.Burst))
				peer[q.Key] = lim
			}
			res := lim.ReserveN(wall(q.Now), int(q.Cost))
			d := tb.Allow(q.Key, q.Now, q.Cost)
			fail := func(format string, args ...any) {
				t.Fatalf("seed %d, %s: request %d (%s at %v, cost %d): token-bucket %+v: %s", seed, p, i, q.Key, q.Now, q.Cost, d, fmt.Sprintf(format, args...))
			}
			if d.Allowed != res.OK() {
				fail("ReserveN's OK is %v", res.OK())
			}
			if !d.Allowed {
				if d.RetryAfter != algorithms.Forever {
					fail("a refusal that is not for ever, with reservations as deep as the trace")
				}
				continue
			}
			if wait := res.DelayFrom(wall(q.Now)); !(d.Delay-time.Microsecond < wait && wait <= d.Delay) {
				fail("ReserveN waits %v: not within the microsecond below the delay", wait)
			}
		}
	}
}

// --- github.com/throttled/throttled/v2 -----------------------------------------

// gcraStore is a throttled.GCRAStoreCtx on the virtual clock: GetWithTime says
// it is the instant of the request being decided. Expiry is not modelled: a tat
// in the past decides as no tat at all.
type gcraStore struct {
	now  time.Time
	tats map[string]int64
}

func (s *gcraStore) GetWithTime(_ context.Context, key string) (int64, time.Time, error) {
	if v, ok := s.tats[key]; ok {
		return v, s.now, nil
	}
	return -1, s.now, nil
}

func (s *gcraStore) SetIfNotExistsWithTTL(_ context.Context, key string, value int64, _ time.Duration) (bool, error) {
	if _, ok := s.tats[key]; ok {
		return false, nil
	}
	s.tats[key] = value
	return true, nil
}

func (s *gcraStore) CompareAndSwapWithTTL(_ context.Context, key string, old, value int64, _ time.Duration) (bool, error) {
	if v, ok := s.tats[key]; !ok || v != old {
		return false, nil
	}
	s.tats[key] = value
	return true, nil
}

// throttledPolicy is the ratelab policy throttled enforces for p: throttled keeps
// the emission interval in whole nanoseconds (PerDuration(n, d) is d / n,
// truncated) and MaxBurst m allows m + 1 at once. Limit 1,000 over the interval
// in µs makes an interval of exactly that many nanoseconds; when p's interval is
// whole nanoseconds it is p's rate.
func throttledPolicy(p algorithms.Policy) (algorithms.Policy, throttled.RateQuota) {
	interval := p.Period / time.Duration(p.Limit)
	q := throttled.RateQuota{MaxRate: throttled.PerDuration(int(p.Limit), p.Period), MaxBurst: int(p.Burst) - 1}
	return algorithms.Policy{Limit: 1000, Period: time.Duration(interval) * time.Microsecond, Burst: p.Burst}, q
}

// GCRA decides as throttled's GCRARateLimiterCtx: the same acceptances, the
// retry-after and reset-after rounded up to the microsecond, the remaining
// rounded down, and nothing stored by a refusal. throttled differs in one place,
// named here: it refuses a cost above the burst before reading the key's tat,
// so that refusal reports Remaining = the burst and ResetAfter 0 whatever the
// key holds (and RetryAfter −1, never, as ratelab's Forever).
func TestGCRADecidesAsThrottled(t *testing.T) {
	inexact := 0
	seen := tally{}
	defer seen.log(t)
	for seed := uint64(1); seed <= peerSeeds; seed++ {
		p, trace := peerTrace(seed, 3)
		mapped, quota := throttledPolicy(p)
		if p.Period%time.Duration(p.Limit) != 0 {
			inexact++
		}
		if err := mapped.CheckHorizon(horizon(trace)); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		store := &gcraStore{tats: map[string]int64{}}
		peer, err := throttled.NewGCRARateLimiterCtx(store, quota)
		if err != nil {
			t.Fatal(err)
		}
		g := algorithms.NewGCRA(mapped)
		for i, q := range trace {
			store.now = wall(q.Now)
			limited, res, err := peer.RateLimitCtx(context.Background(), q.Key, int(q.Cost))
			if err != nil {
				t.Fatal(err)
			}
			d := g.Allow(q.Key, q.Now, q.Cost)
			fail := func(format string, args ...any) {
				t.Fatalf("seed %d, %s (throttled's %s): request %d (%s at %v, cost %d): gcra %+v, throttled %+v (limited %v): %s", seed, p, mapped, i, q.Key, q.Now, q.Cost, d, res, limited, fmt.Sprintf(format, args...))
			}
			if d.Allowed == limited {
				fail("they decide otherwise")
			}
			if res.Limit != int(p.Burst) {
				fail("throttled's limit is not the burst")
			}
			seen["decisions"]++
			if !d.Allowed {
				seen["refusals"]++
			}
			if q.Cost > p.Burst {
				if d.RetryAfter != algorithms.Forever || res.RetryAfter != -1 || res.Remaining != int(p.Burst) || res.ResetAfter != 0 {
					fail("a cost above the burst: want Forever and throttled's −1, burst remaining, reset 0")
				}
				seen["costs above the burst"]++
				continue
			}
			if !d.Allowed && d.RetryAfter != ceilMicro(res.RetryAfter) {
				fail("retry-after is not throttled's %v rounded up to the µs", res.RetryAfter)
			}
			if d.ResetAfter != ceilMicro(res.ResetAfter) {
				fail("reset-after is not throttled's %v rounded up to the µs", res.ResetAfter)
			}
			if int(math.Floor(d.Remaining)) != res.Remaining {
				fail("remaining rounded down is not throttled's %d", res.Remaining)
			}
		}
		if g.Keys() != len(store.tats) {
			t.Fatalf("seed %d: gcra holds %d keys, throttled's store %d", seed, g.Keys(), len(store.tats))
		}
	}
	if inexact == 0 {
		t.Error("no seed had an emission interval that is not whole nanoseconds; the mapping is not exercised")
	}
}

// ceilMicro is d rounded up to a whole microsecond.
func ceilMicro(d time.Duration) time.Duration {
	return (d + time.Microsecond - 1) / time.Microsecond * time.Microsecond
}

// --- github.com/juju/ratelimit -------------------------------------------------

// clock is a juju and uber clock on the virtual clock: Now is the instant of the
// request being decided; Sleep records how long the library would sleep.
type clock struct {
	now   time.Time
	slept time.Duration
}

func (c *clock) Now() time.Time        { return c.now }
func (c *clock) Sleep(d time.Duration) { c.slept += d }

// jujuBucket draws a juju bucket (fill interval, capacity, quantum) and the
// ratelab policy with its rate and burst: quantum units per fill interval.
func jujuBucket(r *rand.Rand, reserving bool) (fill time.Duration, capacity, quantum int64, p algorithms.Policy) {
	fills := []time.Duration{time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond, time.Second, 7 * time.Second, time.Minute}
	fill = fills[r.IntN(len(fills))]
	capacity, quantum = 1+r.Int64N(40), 1+r.Int64N(3)
	if reserving {
		quantum = 1
	}
	return fill, capacity, quantum, algorithms.Policy{Limit: quantum, Period: fill, Burst: capacity}
}

// forwardTrace is a trace on one true clock (juju's needs a monotonic one).
func forwardTrace(r *rand.Rand, p algorithms.Policy, reserving bool) []stamped {
	sh := traceShape{n: 150, capacity: p.Burst, maxCost: p.Burst + 3, keys: 3, hours: true}
	if reserving {
		sh.maxCost = p.Burst
	}
	return randomTrace(r, p, sh)
}

// tick floors now to the last tick of a juju bucket that started at start.
func tick(now, start, fill time.Duration) time.Duration {
	return start + (now-start)/fill*fill
}

// juju's bucket adds quantum tokens at each tick of its fill interval, counted
// from the bucket's creation, so it decides as ratelab's token bucket does with
// every request's time rounded down to the last tick: exactly that, and the
// tokens it says are available after are the token bucket's remaining, rounded
// down. A cost above the capacity is refused by both (juju: its wait would be
// positive).
func TestTheTokenBucketDecidesAsJujuOnItsTicks(t *testing.T) {
	unrounded := 0
	seen := tally{}
	defer seen.log(t)
	for seed := uint64(1); seed <= peerSeeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 4))
		fill, capacity, quantum, p := jujuBucket(r, false)
		trace := forwardTrace(r, p, false)
		tb := algorithms.NewTokenBucket(p, true, 0)
		exact := algorithms.NewTokenBucket(p, true, 0) // the same, on unrounded times
		clk := &clock{}
		buckets, starts := map[string]*juju.Bucket{}, map[string]time.Duration{}
		for i, q := range trace {
			clk.now = wall(q.Now)
			b, ok := buckets[q.Key]
			if !ok {
				b = juju.NewBucketWithQuantumAndClock(fill, capacity, quantum, clk)
				buckets[q.Key], starts[q.Key] = b, q.Now
			}
			_, ok = b.TakeMaxDuration(q.Cost, 0)
			avail := b.Available()
			at := tick(q.Now, starts[q.Key], fill)
			d := tb.Allow(q.Key, at, q.Cost)
			if d.Allowed != ok || int64(math.Floor(d.Remaining)) != avail {
				t.Fatalf("seed %d: juju (fill %v, capacity %d, quantum %d) and the token bucket (%s) at %v (tick %v), cost %d, request %d: juju %v with %d available, token bucket %+v",
					seed, fill, capacity, quantum, p, q.Now, at, q.Cost, i, ok, avail, d)
			}
			seen["decisions"]++
			if !ok {
				seen["refusals"]++
			}
			if exact.Allow(q.Key, q.Now, q.Cost).Allowed != ok {
				unrounded++
				seen["otherwise on unrounded times"]++
			}
		}
	}
	if unrounded == 0 {
		t.Error("on unrounded times the token bucket never decided otherwise than juju: the tick quantisation this test names was not exercised")
	}
}

// With reservations (Take, quantum 1) juju's wait is the token bucket's Delay
// from the tick, less the time since the tick: its tokens come at a tick.
func TestTheTokenBucketWithReservationsWaitsAsJuju(t *testing.T) {
	for seed := uint64(1); seed <= peerSeeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		fill, capacity, quantum, p := jujuBucket(r, true)
		trace := forwardTrace(r, p, true)
		var depth int64
		for _, q := range trace {
			depth += q.Cost
		}
		tb := algorithms.NewTokenBucket(p, true, depth)
		clk := &clock{}
		buckets, starts := map[string]*juju.Bucket{}, map[string]time.Duration{}
		for i, q := range trace {
			clk.now = wall(q.Now)
			b, ok := buckets[q.Key]
			if !ok {
				b = juju.NewBucketWithQuantumAndClock(fill, capacity, quantum, clk)
				buckets[q.Key], starts[q.Key] = b, q.Now
			}
			wait := b.Take(q.Cost)
			at := tick(q.Now, starts[q.Key], fill)
			d := tb.Allow(q.Key, at, q.Cost)
			if want := max(0, d.Delay-(q.Now-at)); !d.Allowed || wait != want {
				t.Fatalf("seed %d: juju (fill %v, capacity %d) at %v (tick %v), cost %d, request %d: juju waits %v, token bucket %+v: want %v",
					seed, fill, capacity, q.Now, at, q.Cost, i, wait, d, want)
			}
		}
	}
}

// Two more ways juju differs, by design: its Take takes a count above the
// capacity and waits for it (ratelab refuses it: Capacity), and it assumes a
// monotonic clock: a request stamped before its latest tick has the ticks
// between taken off its tokens (adjustavailableTokens with tick < latestTick),
// where ratelab's token bucket gives it the balance as of its stored time.
func TestJujuDiffersOnACostAboveTheCapacityAndOnAClockBehind(t *testing.T) {
	clk := &clock{now: wall(0)}
	b := juju.NewBucketWithQuantumAndClock(time.Second, 2, 1, clk)
	if wait := b.Take(3); wait != time.Second {
		t.Errorf("juju's Take(3) of a capacity of 2 waits %v, want 1s (it takes what the bucket cannot hold)", wait)
	}
	p := algorithms.Policy{Limit: 1, Period: time.Second, Burst: 2}
	if d := algorithms.NewTokenBucket(p, true, 1000).Allow("k", 0, 3); d.Allowed || d.RetryAfter != algorithms.Forever {
		t.Errorf("the token bucket with reservations on a cost of 3 over a burst of 2: %+v, want refused for ever", d)
	}

	b = juju.NewBucketWithQuantumAndClock(time.Second, 2, 1, clk)
	tb := algorithms.NewTokenBucket(p, true, 0)
	clk.now = wall(5 * time.Second)
	b.TakeMaxDuration(1, 0) // 1 left at tick 5
	tb.Allow("k", 5*time.Second, 1)
	clk.now = wall(3 * time.Second) // a clock two seconds behind
	if _, ok := b.TakeMaxDuration(1, 0); ok || b.Available() != -1 {
		t.Errorf("juju at tick 3 after tick 5 with 1 token: accepted %v, %d available; want refused with 1 − 2 = −1", ok, b.Available())
	}
	if d := tb.Allow("k", 3*time.Second, 1); !d.Allowed {
		t.Errorf("the token bucket with 1 token as of 5 s, asked at 3 s: %+v, want accepted", d)
	}
}

// --- go.uber.org/ratelimit -----------------------------------------------------

// uber's limiter with WithSlack(s) is a token bucket of burst s + 1 with
// reservations as deep as needed, one unit per Take, whose slack starts empty:
// after the first Take the bucket is empty (ratelab's starts full, so the test
// empties it at the key's first request). Its Take sleeps until the request's
// token exists: the token bucket's Delay. It keeps one timestamp (the last
// permission), as GCRA does, so a request stamped before the bucket's stored time
// sees the tokens as they were at its own instant, not as of the stored time: it
// waits max(0, (stored − now) + (1 − tokens) × interval) where the token bucket
// lets it go at once when a token is there; checked exactly, and the state after
// is the same either way.
func TestTheTokenBucketWithReservationsIsUbersLimiter(t *testing.T) {
	differs := 0
	seen := tally{}
	defer seen.log(t)
	for seed := uint64(1); seed <= peerSeeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 6))
		rateN := 1 + r.IntN(50)
		interval := []time.Duration{time.Microsecond * 700, time.Millisecond, 20 * time.Millisecond, time.Second}[r.IntN(4)]
		slack := r.IntN(12)
		p := algorithms.Policy{Limit: int64(rateN), Period: time.Duration(rateN) * interval, Burst: int64(slack) + 1}
		trace := randomTrace(r, p, traceShape{n: 150, capacity: 1, maxCost: 1, keys: 3, skewed: true, hours: true})
		tb := algorithms.NewTokenBucket(p, true, int64(len(trace)))
		c := algorithms.CreditsOf(p, int64(len(trace)))
		if c.PerMicro != 1 || c.Unit != int64(interval/time.Microsecond) {
			t.Fatalf("test setup: %s is not %v per unit at one credit a µs", p, interval)
		}
		clk := &clock{}
		limiters := map[string]uber.Limiter{}
		for i, q := range trace {
			clk.now, clk.slept = wall(q.Now), 0
			lim, ok := limiters[q.Key]
			if !ok {
				lim = uber.New(rateN, uber.Per(p.Period), uber.WithSlack(slack), uber.WithClock(clk))
				limiters[q.Key] = lim
				// uber's slack starts empty: take it out of the full bucket
				tb.Write(q.Key, algorithms.TokenState{Credits: c.Capacity - int64(slack)*c.Unit, Last: algorithms.Micros(q.Now)})
			}
			before := tb.Read(q.Key, q.Now)
			n := algorithms.Micros(q.Now)
			balance := before.Credits
			if n > before.Last {
				balance = min(c.Capacity, balance+(n-before.Last)*c.PerMicro) // no refill past full: the slack cap
			}
			expect := max(0, max(0, before.Last-n)+c.Unit-balance) // µs, at one credit a µs
			got := lim.Take().Sub(clk.now)
			d := tb.Allow(q.Key, q.Now, 1)
			fail := func(format string, args ...any) {
				t.Fatalf("seed %d, uber rate %d per %v, slack %d (%s): request %d (%s at %v): uber waits %v (slept %v), token bucket %+v: %s",
					seed, rateN, p.Period, slack, p, i, q.Key, q.Now, got, clk.slept, d, fmt.Sprintf(format, args...))
			}
			if got != clk.slept || got != time.Duration(expect)*time.Microsecond {
				fail("want uber to wait %dµs", expect)
			}
			if !d.Allowed {
				fail("the token bucket refused with reservations as deep as the trace")
			}
			seen["takes"]++
			if got > 0 {
				seen["waits"]++
			}
			if before.Last > n {
				seen["stamped before the stored time"]++
			}
			if d.Delay != got {
				if balance < c.Unit || before.Last <= n {
					fail("a difference that is not a request stamped before the stored time with a token there")
				}
				if d.Delay != 0 {
					fail("the token bucket made a request with a token there wait")
				}
				differs++
				seen["a token there, uber waits"]++
			}
		}
	}
	if differs == 0 {
		t.Error("no request stamped before the stored time found a token there: the difference this test names was not exercised")
	}
}
