package algorithms

import (
	"math"
	"time"
)

// GuavaName is Guava's RateLimiter as a lane, in scenario files and on the
// command line.
const GuavaName Name = "guava"

// guavaOptions are the Guava lane's scenario keys.
var guavaOptions = []Option{
	{Key: "warmup", Doc: "RateLimiter.create(rate, warmup): SmoothWarmingUp, cold factor 3, starting cold; default 0, SmoothBursty (create(rate))",
		set: func(o Options) string { return setIf(o.Warmup != 0, "warmup") }},
	{Key: "acquire_timeout", Doc: "tryAcquire(cost, timeout): accept when the next free ticket is at most this far ahead and wait for it (a Delay); default 0, tryAcquire(cost)",
		set: func(o Options) string { return setIf(o.AcquireTimeout != 0, "acquire_timeout") }},
}

// guavaColdFactor is the cold factor RateLimiter.create(rate, warmup, unit)
// passes to SmoothWarmingUp: a cold limiter serves at a third of the rate.
const guavaColdFactor = 3.0

// Guava is google/guava's RateLimiter (guava/src/com/google/common/util/concurrent/
// SmoothRateLimiter.java at 07212fe1: reserveEarliestAvailable, resync,
// SmoothBursty, SmoothWarmingUp; RateLimiter.java: tryAcquire, canAcquire,
// reserveAndGetWaitLength), one per key, created at the key's first request, in
// the library's own arithmetic: double permits and intervals, long microseconds
// for the next free ticket, waits truncated to whole microseconds as its (long)
// casts truncate them.
//
// The model. The state is storedPermits, nextFreeTicket (µs) and, fixed by the
// rate, maxPermits and the stable interval 1e6 / rate µs, rate = Limit / Period in
// permits per second:
//
//   - a request is accepted when nextFreeTicket − timeout ≤ now (canAcquire),
//     whatever it costs: the next request pays for this one. So tryAcquire(1000) on
//     an idle limiter succeeds and holds everyone after it back by 1000 / rate s.
//     The timeout is the lane's acquire_timeout (0: tryAcquire(cost));
//   - an accepted request first resyncs (if now > nextFreeTicket, store
//     (now − nextFreeTicket) / coolDownInterval permits, at most maxPermits, and
//     move nextFreeTicket to now), spends min(cost, storedPermits) stored permits
//     and pushes nextFreeTicket by their price plus cost − spent fresh permits at
//     the stable interval each. It waits nextFreeTicket(before) − now (its Delay);
//   - a refused request changes nothing (tryAcquire returns false before reserving).
//
// SmoothBursty (warmup 0): stored permits cost nothing, coolDownInterval is the
// stable interval, and maxPermits is the Burst (create(rate) is Burst = the rate's
// one second, Limit per 1 s with the default burst). A new limiter holds no stored
// permits: right after creation the first request is free and the next waits.
//
// SmoothWarmingUp (warmup > 0, cold factor 3 as RateLimiter.create(rate, warmup,
// unit) has it): thresholdPermits = 0.5 × warmup / stable, maxPermits = threshold
// + 2 × warmup / (stable + cold), a stored permit above the threshold costs the
// trapezoid between stable and cold intervals, coolDownInterval = warmup /
// maxPermits; a new limiter starts cold (storedPermits = maxPermits). The Burst is
// not used.
//
// Decision: Remaining is the stored permits after the decision (a fraction);
// RetryAfter of a refusal is nextFreeTicket − timeout − now, exact to the µs;
// ResetAfter is until the stored permits are back at maxPermits. There is no
// capacity: any cost is accepted when the ticket is free (Capacity's burst is not
// Guava's bound, and the conformance tests say so).
//
// Time going backwards: Guava's stopwatch is monotonic, but its arithmetic takes
// an earlier now as it comes: resync does nothing, the request is accepted only
// if the ticket is within the timeout of its now, and waits until the ticket.
// Eviction forgets a warming-up limiter that is back cold with its ticket in the
// past (the state a new one has); a bursty limiter is never forgotten, because a
// new one has no stored permits and an idle one has a full store.
type Guava struct {
	policy     Policy
	stable     float64 // µs per permit at the stable rate
	maxPermits float64
	threshold  float64 // SmoothWarmingUp only
	slope      float64 // SmoothWarmingUp only
	warmupUS   int64   // 0: SmoothBursty
	timeoutUS  int64
	keyed[GuavaState]
}

// GuavaState is one key's RateLimiter.
type GuavaState struct {
	Stored   float64 // storedPermits
	NextFree int64   // nextFreeTicketMicros, µs from the run's origin
}

// guavaStateBytes is what a key's state costs: a double and a long.
const guavaStateBytes = 16

// NewGuava returns Guava's RateLimiter at p's rate: SmoothBursty holding up to
// Burst permits when warmup is 0, else SmoothWarmingUp over warmup with cold
// factor 3; requests wait for the next free ticket up to timeout.
func NewGuava(p Policy, warmup, timeout time.Duration) *Guava {
	return newGuava(p, warmup, timeout, guavaColdFactor)
}

// newGuava is NewGuava with SmoothWarmingUp's cold factor, which Guava's own
// tests set (RateLimiter.create(stopwatch, rate, warmup, unit, coldFactor)).
func newGuava(p Policy, warmup, timeout time.Duration, coldFactor float64) *Guava {
	p = p.WithDefaults()
	permitsPerSecond := float64(p.Limit) / p.Period.Seconds()
	g := &Guava{policy: p, stable: 1e6 / permitsPerSecond, warmupUS: toMicros(warmup), timeoutUS: max(toMicros(timeout), 0), keyed: newKeyed[GuavaState]()}
	if g.warmupUS == 0 {
		g.maxPermits = float64(p.Burst) // maxBurstSeconds × permitsPerSecond
		return g
	}
	cold := g.stable * coldFactor
	w := float64(g.warmupUS)
	g.threshold = 0.5 * w / g.stable
	g.maxPermits = g.threshold + 2.0*w/(g.stable+cold)
	g.slope = (cold - g.stable) / (g.maxPermits - g.threshold)
	return g
}

func (g *Guava) Algorithm() Name   { return GuavaName }
func (g *Guava) Policy() Policy    { return g.policy }
func (g *Guava) StateBytes() int64 { return g.keyBytes + int64(g.Keys())*guavaStateBytes }

// fresh is a limiter created at n (µs): bursty empty, warming-up cold.
func (g *Guava) fresh(n int64) GuavaState {
	s := GuavaState{NextFree: n}
	if g.warmupUS != 0 {
		s.Stored = g.maxPermits
	}
	return s
}

// coolDown is the µs it takes to store one permit while unused.
func (g *Guava) coolDown() float64 {
	if g.warmupUS == 0 {
		return g.stable
	}
	return float64(g.warmupUS) / g.maxPermits
}

// resync is SmoothRateLimiter.resync.
func (g *Guava) resync(s *GuavaState, n int64) {
	if n > s.NextFree {
		newPermits := float64(n-s.NextFree) / g.coolDown()
		s.Stored = math.Min(g.maxPermits, s.Stored+newPermits)
		s.NextFree = n
	}
}

// storedPermitsToWaitTime is the price in µs of taking take of stored permits.
func (g *Guava) storedPermitsToWaitTime(stored, take float64) int64 {
	if g.warmupUS == 0 {
		return 0
	}
	above := stored - g.threshold
	var micros int64
	if above > 0.0 {
		aboveToTake := math.Min(above, take)
		length := g.permitsToTime(above) + g.permitsToTime(above-aboveToTake)
		micros = int64(aboveToTake * length / 2.0)
		take -= aboveToTake
	}
	return micros + int64(g.stable*take)
}

func (g *Guava) permitsToTime(permits float64) float64 { return g.stable + permits*g.slope }

// reserve is reserveEarliestAvailable: it returns the moment the request may go.
func (g *Guava) reserve(s *GuavaState, n int64, permits int64) int64 {
	g.resync(s, n)
	ret := s.NextFree
	spend := math.Min(float64(permits), s.Stored)
	freshPermits := float64(permits) - spend
	wait := g.storedPermitsToWaitTime(s.Stored, spend) + int64(freshPermits*g.stable)
	s.NextFree = saturatedAdd(s.NextFree, wait)
	s.Stored -= spend
	return ret
}

func saturatedAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// tryAcquire is RateLimiter.tryAcquire(permits, timeout) on s at n (µs), s
// updated in place when it accepts.
func (g *Guava) tryAcquire(s *GuavaState, key string, n, permits, timeoutUS int64) Decision {
	d := Decision{Limit: g.policy.Burst}
	if s.NextFree-timeoutUS > n { // !canAcquire
		d.RetryAfter = jitter(s.NextFree-timeoutUS-n, JitterFactor(key, g.policy.RetryJitter))
		d.Remaining = g.stored(*s, n)
		d.ResetAfter = g.resetAfter(*s, n)
		return d
	}
	d.Allowed = true
	d.Delay = fromMicros(max(g.reserve(s, n, permits)-n, 0))
	d.Remaining = s.Stored
	d.ResetAfter = g.resetAfter(*s, n)
	return d
}

// stored is s's stored permits as resync would make them at n.
func (g *Guava) stored(s GuavaState, n int64) float64 {
	g.resync(&s, n)
	return s.Stored
}

// resetAfter is how long until s's store is full again: from the later of now and
// the next free ticket, the missing permits at the cool-down interval.
func (g *Guava) resetAfter(s GuavaState, n int64) time.Duration {
	g.resync(&s, n)
	missing := g.maxPermits - s.Stored
	if missing <= 0 {
		return 0
	}
	return fromMicros(max(s.NextFree-n, 0) + int64(math.Ceil(missing*g.coolDown())))
}

// Allow is tryAcquire(cost, acquire_timeout) on the key's limiter.
func (g *Guava) Allow(key string, now time.Duration, cost int64) Decision {
	n := toMicros(now)
	s, ok := g.state(key)
	if !ok {
		f := g.fresh(n)
		s = &f
		d := g.tryAcquire(s, key, n, cost, g.timeoutUS)
		g.add(key, s) // a new limiter's first request is always accepted
		return d
	}
	return g.tryAcquire(s, key, n, cost, g.timeoutUS)
}

// Check is what Allow would decide, and changes nothing.
func (g *Guava) Check(key string, now time.Duration, cost int64) Decision {
	n := toMicros(now)
	s := g.fresh(n)
	if st, ok := g.state(key); ok {
		s = *st
	}
	return g.tryAcquire(&s, key, n, cost, g.timeoutUS)
}

// Level is the stored permits key's limiter would hold at now.
func (g *Guava) Level(key string, now time.Duration) float64 {
	n := toMicros(now)
	if s, ok := g.state(key); ok {
		return g.stored(*s, n)
	}
	return g.fresh(n).Stored
}

// Evict forgets warming-up limiters that are cold again with their ticket at or
// before now: a new limiter is that. Bursty ones are kept (see Guava).
func (g *Guava) Evict(now time.Duration) int {
	if g.warmupUS == 0 {
		return 0
	}
	n := toMicros(now)
	return g.evict(func(s *GuavaState) bool { return s.NextFree <= n && g.stored(*s, n) == g.maxPermits })
}
