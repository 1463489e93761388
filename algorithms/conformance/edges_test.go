package conformance

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

// The seven disagreements with x/time/rate, throttled and redis_rate of issue 18,
// each a table of steps at fixed instants, on every backend that runs the lane.

// 1. A request stamped before the key's stored time (a node whose clock is
// behind): its RetryAfter is how long until that same request, stamped by the
// same clock, is accepted. At 1 per 100 ms, burst 1, the key was last used at
// 100 ms; from 0 ms the wait is the 100 ms still to come plus one emission
// interval (the sliding counter's estimate needs one more period, see below).
func TestRetryAfterOfARequestStampedBeforeTheKeysTime(t *testing.T) {
	p := algorithms.Policy{Limit: 1, Period: 100 * time.Millisecond, Burst: 1}
	labels := []string{"fixed-window", "sliding-log", "sliding-counter", "leaky-bucket (queue)", "leaky-bucket (meter)",
		"token-bucket", "token-bucket (fix off)", "gcra", "x-time-rate"}
	onEveryBackend(t, labels, p, func(t *testing.T, l lane, lim algorithms.Limiter) {
		wait := ms(200)
		if l.label == "sliding-counter" {
			// window [100, 200) ms holds 1; from 0 ms the request must wait for
			// window [200, 300) ms to begin, where that 1 still weighs in full,
			// and for it to fade: 300 ms
			wait = ms(300)
		}
		runSteps(t, lim, []step{
			{at: ms(100), allowed: true},
			{at: 0, allowed: false, retry: wait, remaining: f(0)},
			{check: true, at: wait - time.Microsecond, allowed: false},
			{check: true, at: wait, allowed: true},
		})
	})
}

// 2. x-time-rate's retry-after is the first microsecond at which AllowN accepts,
// computed from the limiter's state, not found by a bounded walk from an
// estimate that ignored the time until the limiter's last event. At 13 per hour,
// burst 26, all 26 taken at 1h: a request for 5 stamped at 0 waits the hour to
// come and then 5 emission intervals of 276.923…s; x/time/rate's own AllowN first
// accepts it at 1h23m4.615385s (found by bisection on fresh limiters).
func TestXTimeRateRetryAfterIsComputed(t *testing.T) {
	p := algorithms.Policy{Limit: 13, Period: time.Hour, Burst: 26}
	wait := time.Hour + 23*time.Minute + 4615385*time.Microsecond
	onEveryBackend(t, []string{"x-time-rate"}, p, func(t *testing.T, _ lane, lim algorithms.Limiter) {
		runSteps(t, lim, []step{
			{at: time.Hour, cost: 26, allowed: true},
			{at: 0, cost: 5, allowed: false, retry: wait},
			{check: true, at: wait - time.Microsecond, cost: 5, allowed: false},
			{check: true, at: wait, cost: 5, allowed: true},
		})
	})
}

// 3. With monotonic_timestamp = false the token bucket stores the time it is
// given, as x/time/rate does, but only when it accepts (x/time/rate's reserveN
// writes last only when ok): a refused request from a slow clock changes
// nothing, so it cannot credit the next request again. An accepted one still
// moves the time back, and the next request is credited the difference: that
// over-grant is what the mode shows.
func TestTokenBucketFixOffMovesItsTimeOnlyWhenItAccepts(t *testing.T) {
	p := algorithms.Policy{Limit: 10, Period: time.Second, Burst: 1}
	onEveryBackend(t, []string{"token-bucket (fix off)", "x-time-rate"}, p, func(t *testing.T, _ lane, lim algorithms.Limiter) {
		runSteps(t, lim, []step{
			{at: ms(100), allowed: true},
			{at: 0, allowed: false, retry: ms(200)},
			{at: ms(100), allowed: false, retry: ms(100)},
		})
	})
	p.Burst = 2
	onEveryBackend(t, []string{"token-bucket (fix off)", "x-time-rate"}, p, func(t *testing.T, _ lane, lim algorithms.Limiter) {
		runSteps(t, lim, []step{
			{at: ms(100), allowed: true},
			{at: 0, allowed: true},       // accepted: the stored time moves back to 0
			{at: ms(100), allowed: true}, // credited 100 ms of refill a second time
			{at: ms(100), allowed: false, retry: ms(100)},
		})
	})
}

// 4. Headers come from whole credits: at 1 per 7 s, burst 2, one request leaves
// exactly one token (7,000,000 credits of 7,000,000 each), so Remaining is 1, the
// header says r=1, and a second request passes. 1 × (1/7,000,000) rounds to
// 0.9999999999999999, which a header floored to r=0.
func TestHeadersComeFromWholeCredits(t *testing.T) {
	p := algorithms.Policy{Limit: 1, Period: 7 * time.Second, Burst: 2}
	labels := []string{"leaky-bucket (queue)", "leaky-bucket (meter)", "token-bucket", "token-bucket (fix off)", "gcra", "x-time-rate"}
	onEveryBackend(t, labels, p, func(t *testing.T, l lane, lim algorithms.Limiter) {
		runSteps(t, lim, []step{
			{at: 0, allowed: true, remaining: f(1), header: n(1)},
			{check: true, at: 0, allowed: true, remaining: f(0), header: n(0), delay: delayOf(l, 7*time.Second)},
		})
	})
	// seven seconds later one more token: 1 + 1 = 2 whole tokens
	onEveryBackend(t, []string{"token-bucket", "gcra", "x-time-rate"}, p, func(t *testing.T, _ lane, lim algorithms.Limiter) {
		runSteps(t, lim, []step{
			{at: 0, cost: 2, allowed: true, remaining: f(0), header: n(0)},
			{at: 7 * time.Second, allowed: true, remaining: f(0), header: n(0)},
			{at: 14 * time.Second, allowed: true, remaining: f(0), header: n(0)},
			{at: 28 * time.Second, allowed: true, remaining: f(1), header: n(1)},
		})
	})
}

// delayOf is the Delay an accepted request gets in a leaky queue that wait has
// to drain; every other lane lets it go at once.
func delayOf(l lane, wait time.Duration) time.Duration {
	if l.algorithm == algorithms.LeakyBucketName && l.opts.Mode == algorithms.LeakyQueue {
		return wait
	}
	return 0
}

// 5. GCRA reports no negative Remaining without reservations: a request stamped
// 100 ms before a tat 200 ms away is refused with 0 left, as throttled and
// redis_rate report, not −1.
func TestGCRARemainingIsNeverNegative(t *testing.T) {
	p := algorithms.Policy{Limit: 10, Period: time.Second, Burst: 1}
	onEveryBackend(t, []string{"gcra"}, p, func(t *testing.T, _ lane, lim algorithms.Limiter) {
		runSteps(t, lim, []step{
			{at: ms(100), allowed: true, remaining: f(0)},
			{at: 0, allowed: false, retry: ms(200), remaining: f(0), header: n(0)},
		})
	})
}

// 6. Reservations schedule work whose tokens will exist; a cost above the burst
// never fits in the bucket, so it is refused for ever, as x/time/rate's ReserveN
// refuses n > burst and as algorithms.Capacity (which the scenario compiler
// applies to a lane's costs) says.
func TestMaxReservedRefusesACostAboveTheBurst(t *testing.T) {
	p := algorithms.Policy{Limit: 10, Period: time.Second, Burst: 2}
	l := lane{"token-bucket (reservations)", algorithms.TokenBucketName, algorithms.Options{MonotonicTimestamp: true, MaxReserved: 1000}}
	if c := algorithms.Capacity(l.algorithm, p, l.opts); c != 2 {
		t.Fatalf("Capacity(token-bucket, %s, max_reserved 1000) = %d, want the burst, 2", p, c)
	}
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			lim, _ := b.build(t, l, p)
			runSteps(t, lim, []step{
				{at: 0, cost: 3, allowed: false, retry: algorithms.Forever, remaining: f(2)},
				{at: 0, cost: 2, allowed: true, remaining: f(0)},
				{at: 0, cost: 2, allowed: true, remaining: f(-2), delay: ms(200)},
				{at: 0, cost: 3, allowed: false, retry: algorithms.Forever, remaining: f(-2)},
			})
		})
	}
}

// 7. A key whose first request is refused keeps no state in memory either, as
// gcra.lua, redis_rate and throttled store nothing on a refusal: at 2 per 100 ms,
// burst 2, a cost of 3 at 150 ms is refused, and a cost of 1 stamped at 50 ms
// then finds the key as new and is accepted.
func TestGCRAStoresNothingWhenTheFirstRequestIsRefused(t *testing.T) {
	p := algorithms.Policy{Limit: 2, Period: 100 * time.Millisecond, Burst: 2}
	onEveryBackend(t, []string{"gcra"}, p, func(t *testing.T, _ lane, lim algorithms.Limiter) {
		runSteps(t, lim, []step{
			{at: ms(150), cost: 3, allowed: false, retry: algorithms.Forever},
			{at: ms(50), allowed: true, remaining: f(1)},
		})
	})
	g := algorithms.NewGCRA(p)
	g.Allow("k", ms(150), 3)
	if g.Keys() != 0 {
		t.Errorf("GCRA holds %d keys after refusing a key's first request, want 0", g.Keys())
	}
}
