package algorithms

import (
	"testing"
	"time"
)

// Envoy's own tests (test/extensions/filters/common/local_ratelimit/
// local_ratelimit_test.cc), step by step on the virtual clock; a timer fire is
// the instant the lane's timer fires (config loaded at 0).
func TestEnvoyLocalTestSuite(t *testing.T) {
	t.Run("TokenBucketMultipleTokensPerFill", func(t *testing.T) {
		// timer bucket: fill_interval 200 ms, max_tokens 2, tokens_per_fill 2
		lim := NewEnvoyLocal(Policy{Limit: 2, Period: ms(200), Burst: 2}, true, 0)
		runSteps(t, lim, []step{
			{at: 0, allowed: true, remaining: 1},
			{at: 0, allowed: true, remaining: 0},
			{at: 0, allowed: false, retry: ms(200), remaining: 0},
			{at: ms(200), allowed: true, remaining: 1}, // fire: 0 -> 2
			{at: ms(400), allowed: true, remaining: 1}, // fire: 1 -> 2 (capped), then 2 -> 1
			{at: ms(400), allowed: true, remaining: 0},
			{at: ms(400), allowed: false, retry: ms(200), remaining: 0},
		})
	})
	t.Run("AtomicTokenBucketMultipleTokensPerFillDescriptor", func(t *testing.T) {
		// timer-free: 2 tokens per 100 ms, max 2, on a clock from 0 (Envoy's
		// SimulatedTimeSystem starts monotonic time at 0). Envoy's test expects
		// allow, allow, deny at +150 ms; AtomicTokenBucketImpl's doubles give
		// (0.15 − 0.05) × 20 = 1.9999999999999998 tokens there, so after one is
		// taken 0.9999999999999998 are left and the second request is refused
		// until the next µs. The lane follows the arithmetic; the note reports
		// the difference.
		lim := NewEnvoyLocal(Policy{Limit: 2, Period: ms(100), Burst: 2}, false, 0)
		runSteps(t, lim, []step{
			{at: 0, allowed: true, remaining: 1},
			{at: 0, allowed: true, remaining: 0},
			{at: 0, allowed: false, retry: ms(50), remaining: 0},
			{at: ms(100), allowed: true, remaining: 1}, // 2 tokens, 1 left
			{at: ms(150), allowed: true, remaining: 0.9999999999999998},
			{at: ms(150), allowed: false, retry: time.Microsecond, remaining: 0.9999999999999998},
			{at: ms(150) + time.Microsecond, allowed: true, remaining: anyRemaining},
			{at: ms(150) + time.Microsecond, allowed: false, remaining: anyRemaining},
		})
	})
	t.Run("AtomicTokenBucketStatus", func(t *testing.T) {
		// fill_interval 3 s, max_tokens 2, tokens_per_fill 2
		lim := NewEnvoyLocal(Policy{Limit: 2, Period: 3 * time.Second, Burst: 2}, false, 0)
		runSteps(t, lim, []step{
			{at: 0, allowed: true, remaining: anyRemaining},
			{at: 0, allowed: true, remaining: anyRemaining},
		})
		if got := int64(lim.Level("k", ms(1500))); got != 1 { // remainingTokens, truncated
			t.Errorf("remaining after 1.5 s = %d, want 1", got)
		}
		runSteps(t, lim, []step{
			{at: ms(1500), allowed: true, remaining: anyRemaining},
			{at: ms(1500), allowed: false, remaining: anyRemaining},
		})
		if got := int64(lim.Level("k", ms(4500))); got != 2 {
			t.Errorf("remaining 3 s later = %d, want 2", got)
		}
	})
	t.Run("AtomicTokenBucketDifferentDescriptorDifferentRateLimitsSorted", func(t *testing.T) {
		// hello+foo 1 per 1 s, foo2 2 per 1 s, the default 3 per 50 ms
		helloFoo := NewEnvoyLocal(Policy{Limit: 1, Period: time.Second, Burst: 1}, false, 0)
		foo2 := NewEnvoyLocal(Policy{Limit: 2, Period: time.Second, Burst: 2}, false, 0)
		def := EnvoyDescriptor{NewEnvoyLocal(Policy{Limit: 3, Period: ms(50), Burst: 3}, false, 0), "default"}
		both := []EnvoyDescriptor{{foo2, "foo2=bar2"}, {helloFoo, "hello=world,foo=bar"}} // listed fastest first: Envoy sorts
		if d, by := EnvoyLocalRequest(both, def, true, 0, 1); !d.Allowed || by != 1 {
			t.Errorf("first request: allowed %v, decided by %d; want allowed, reported by the slowest (hello+foo)", d.Allowed, by)
		}
		if d, by := EnvoyLocalRequest(both, def, true, 0, 1); d.Allowed || by != 1 {
			t.Errorf("second request: allowed %v, refused by %d; want refused by hello+foo (1 per s)", d.Allowed, by)
		}
		if got := foo2.Level("foo2=bar2", 0); got != 1 {
			t.Errorf("foo2 holds %g tokens; the refusal by hello+foo must not have touched it (1 left)", got)
		}
		if d, _ := EnvoyLocalRequest([]EnvoyDescriptor{{foo2, "foo2=bar2"}}, def, true, 0, 1); !d.Allowed {
			t.Error("a foo2-only request is refused; foo2 has a token left")
		}
	})
}

// Envoy's AtomicTokenBucketImpl refills at least a token a year
// (source/common/common/token_bucket_impl.cc: kMinFillRate = 1/(365 × 24 ×
// 60 × 60) tokens a second, the fill rate max(|fill_rate|, kMinFillRate)).
// Its own test, test/common/common/token_bucket_impl_test.cc
// AtomicTokenBucketImplTest.YearlyMinRefillRate, step by step: one token,
// filled once every two years; taken at 0; none a second before the year; one
// at the year. It is the token_bucket {max_tokens: 1,
// tokens_per_fill: 1, fill_interval: 63072000s} (ratelab refused until 730
// days). The timer bucket (≤ 1.30) fills on its timer, no minimum: two years.
func TestEnvoyLocalYearlyMinRefillRate(t *testing.T) {
	const year = 365 * 24 * time.Hour
	p := Policy{Limit: 1, Period: 2 * year, Burst: 1}
	runSteps(t, NewEnvoyLocal(p, false, 0), []step{
		{at: 0, allowed: true, remaining: 0},
		{at: year - time.Second, allowed: false, retry: time.Second, remaining: anyRemaining},
		{at: year, allowed: true, remaining: 0},
		{at: 2*year - time.Second, allowed: false, retry: time.Second, remaining: anyRemaining},
		{at: 2 * year, allowed: true, remaining: 0},
	})
	if got := NewEnvoyLocal(p, false, 0).FillRate(); got != 1.0/(365*24*60*60) {
		t.Errorf("FillRate = %g, want kMinFillRate, by which requestAllowed sorts", got)
	}
	// slower still: ten tokens a century is a token a year, the burst as set
	runSteps(t, NewEnvoyLocal(Policy{Limit: 10, Period: 100 * year, Burst: 3}, false, 0), append(repeat(0, 4, 3),
		step{at: year, allowed: true, remaining: 0},
		step{at: 3 * year, allowed: true, remaining: 1}))
	runSteps(t, NewEnvoyLocal(p, true, 0), []step{
		{at: 0, allowed: true, remaining: 0},
		{at: year, allowed: false, retry: year, remaining: 0},
		{at: 2 * year, allowed: true, remaining: 0},
	})
}

// No rollback: a slower bucket that grants keeps its token when a faster one
// refuses after it.
func TestEnvoyLocalNoRollback(t *testing.T) {
	slow := NewEnvoyLocal(Policy{Limit: 10, Period: time.Minute, Burst: 10}, false, 0)
	fast := NewEnvoyLocal(Policy{Limit: 1, Period: time.Second, Burst: 1}, false, 0)
	req := []EnvoyDescriptor{{fast, "user"}, {slow, "tenant"}}
	EnvoyLocalRequest(req, EnvoyDescriptor{}, false, 0, 1)
	for i := 0; i < 3; i++ {
		if d, by := EnvoyLocalRequest(req, EnvoyDescriptor{}, false, 0, 1); d.Allowed || by != 0 {
			t.Fatalf("request %d: allowed %v by %d; want refused by the fast bucket", i, d.Allowed, by)
		}
	}
	if got := slow.Level("tenant", 0); got != 6 {
		t.Errorf("the slow bucket holds %g tokens; each of the 4 requests took one before the fast one refused 3 of them: want 6", got)
	}
}

// The timer bucket refills in whole steps at config load + k × fill_interval:
// with fill_interval 60 s every drained key refills at once at the fire, and a
// config loaded 10 s into the run moves the fires to 70 s, 130 s…; the
// timer-free bucket refills a token every 6 s.
func TestEnvoyLocalTimerPhase(t *testing.T) {
	p := Policy{Limit: 10, Period: time.Minute, Burst: 10}
	timer := NewEnvoyLocal(p, true, 10*time.Second)
	steps := repeat(0, 11, 10)
	steps[10].retry = 70 * time.Second
	steps = append(steps,
		step{at: 69999999 * time.Microsecond, allowed: false, retry: time.Microsecond, remaining: 0},
	)
	steps = append(steps, repeat(70*time.Second, 11, 10)...)
	runSteps(t, timer, steps)
	free := NewEnvoyLocal(p, false, 10*time.Second)
	runSteps(t, free, append(repeat(0, 11, 10),
		step{at: 6 * time.Second, allowed: true, remaining: anyRemaining},
		step{at: 6 * time.Second, allowed: false, retry: 6 * time.Second, remaining: anyRemaining},
	))
}

func TestEnvoyTimerBucketVersions(t *testing.T) {
	for _, c := range []struct {
		v     string
		timer bool
		bad   bool
	}{{"", false, false}, {"1.30", true, false}, {"1.30.2", true, false}, {"1.22", true, false}, {"1.31", false, false}, {"1.34.1", false, false}, {"2.0", false, true}, {"latest", false, true}} {
		timer, err := EnvoyTimerBucket(c.v)
		if timer != c.timer || (err != nil) != c.bad {
			t.Errorf("EnvoyTimerBucket(%q) = %v, %v; want %v, error %v", c.v, timer, err, c.timer, c.bad)
		}
	}
}

// The timer-era sort key is an integer per whole second: 2 per 100 ms sorts as
// 2 per second, below 10 per 1 s, though it refills twice as fast.
func TestEnvoyLocalTimerSortKey(t *testing.T) {
	fast := NewEnvoyLocal(Policy{Limit: 2, Period: ms(100), Burst: 2}, true, 0)
	slow := NewEnvoyLocal(Policy{Limit: 10, Period: time.Second, Burst: 10}, true, 0)
	if fast.FillRate() != 2 || slow.FillRate() != 10 {
		t.Errorf("timer sort keys %g and %g, want 2 and 10", fast.FillRate(), slow.FillRate())
	}
	if a, b := NewEnvoyLocal(Policy{Limit: 2, Period: ms(100), Burst: 2}, false, 0).FillRate(), slow.rate; a != 20 || b != 10 {
		t.Errorf("timer-free fill rates %g and %g, want 20 and 10", a, b)
	}
	// so a request matching both charges the 2-per-100-ms bucket first
	req := []EnvoyDescriptor{{slow, "s"}, {fast, "f"}}
	EnvoyLocalRequest(req, EnvoyDescriptor{}, false, 0, 1)
	EnvoyLocalRequest(req, EnvoyDescriptor{}, false, 0, 1)
	if d, by := EnvoyLocalRequest(req, EnvoyDescriptor{}, false, 0, 1); d.Allowed || by != 1 || slow.Level("s", 0) != 8 {
		t.Errorf("third request: allowed %v by %d, slow bucket %g; want refused by the fast bucket, charged first, the slow one at 8", d.Allowed, by, slow.Level("s", 0))
	}
}
