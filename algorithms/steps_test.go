package algorithms

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// step is one request at a fixed instant and what the limiter must answer.
type step struct {
	at      time.Duration
	cost    int64 // 0 means 1
	key     string
	allowed bool
	// retry, when set, is the RetryAfter the denial must carry (Forever allowed).
	retry time.Duration
	// remaining, when not NaN, is the Remaining the decision must carry (±1e-9).
	remaining float64
	// delay, when set, is the Delay the acceptance must carry.
	delay time.Duration
}

// any is the "don't check" value of step.remaining.
var anyRemaining = math.NaN()

// runSteps feeds steps to lim in order and reports each mismatch as
// "step 3: Allow(k, 1.001s, cost 1) = false, want true".
func runSteps(t *testing.T, lim Limiter, steps []step) {
	t.Helper()
	for i, s := range steps {
		cost, key := s.cost, s.key
		if cost == 0 {
			cost = 1
		}
		if key == "" {
			key = "k"
		}
		d := lim.Allow(key, s.at, cost)
		if d.Allowed != s.allowed {
			t.Errorf("step %d: %s.Allow(%s, %v, cost %d) = %v, want %v (remaining %g, retry %v)", i, lim.Algorithm(), key, s.at, cost, d.Allowed, s.allowed, d.Remaining, d.RetryAfter)
			continue
		}
		if s.retry != 0 && d.RetryAfter != s.retry {
			t.Errorf("step %d: %s.Allow(%s, %v, cost %d) retry-after = %v, want %v", i, lim.Algorithm(), key, s.at, cost, d.RetryAfter, s.retry)
		}
		if !math.IsNaN(s.remaining) && math.Abs(d.Remaining-s.remaining) > 1e-9 {
			t.Errorf("step %d: %s.Allow(%s, %v, cost %d) remaining = %g, want %g", i, lim.Algorithm(), key, s.at, cost, d.Remaining, s.remaining)
		}
		if d.Delay != s.delay {
			t.Errorf("step %d: %s.Allow(%s, %v, cost %d) delay = %v, want %v", i, lim.Algorithm(), key, s.at, cost, d.Delay, s.delay)
		}
	}
}

// repeat returns n steps at the same instant, the first accepted ones accepted.
func repeat(at time.Duration, n, accepted int) []step {
	var out []step
	for i := 0; i < n; i++ {
		out = append(out, step{at: at, allowed: i < accepted, remaining: anyRemaining})
	}
	return out
}

func ms(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

var perSecond100 = Policy{Limit: 100, Period: time.Second}

// The boundary burst (scenarios.toml, boundary-burst): 140 requests at 0.999 s and 180 at 1.001 s against
// 100/s. A fixed window accepts 100 of each: 200 within 2 ms. A token bucket
// accepts the first 100 and, 2 ms later, has refilled 0.2 of a token: nothing.
func TestBoundaryBurstFixedWindow(t *testing.T) {
	steps := append(repeat(ms(999), 140, 100), repeat(ms(1001), 180, 100)...)
	runSteps(t, NewFixedWindow(perSecond100, false, 0), steps)
}

func TestBoundaryBurstTokenBucket(t *testing.T) {
	steps := append(repeat(ms(999), 140, 100), repeat(ms(1001), 180, 0)...)
	steps[100].retry = 10 * time.Millisecond // one token at 100/s
	steps[100].remaining = 0
	steps[140].retry = 8 * time.Millisecond // 0.2 tokens refilled, 0.8 to go
	steps[140].remaining = 0.2
	for _, lim := range []Limiter{NewTokenBucket(perSecond100, true, 0), NewGCRA(perSecond100), NewXTimeRate(perSecond100)} {
		t.Run(string(lim.Algorithm()), func(t *testing.T) { runSteps(t, lim, steps) })
	}
}

func TestBoundaryBurstSlidingLog(t *testing.T) {
	// the window (0.001 s, 1.001 s] still holds the 100 accepted at 0.999 s
	steps := append(repeat(ms(999), 140, 100), repeat(ms(1001), 180, 0)...)
	steps[140].retry = ms(998) // the oldest entries leave at 1.999 s
	runSteps(t, NewSlidingLog(perSecond100), steps)
}

func TestBoundaryBurstSlidingCounter(t *testing.T) {
	// at 1.001 s the estimate is 100 × 0.999 + 0 = 99.9: no room for a whole request
	steps := append(repeat(ms(999), 140, 100), repeat(ms(1001), 180, 0)...)
	steps[140].remaining = 0.1
	steps[140].retry = ms(9) // at 1.010 s: 100 × 0.990 = 99
	runSteps(t, NewSlidingCounter(perSecond100), steps)
}

// Burst 10 at 10/s, hammered every millisecond for 3 s: the first 10 at once, then
// one per 100 ms as the bucket refills, 10 + 29 in [0, 3 s), and the 40th at 3 s.
func TestBurstTenAtTenPerSecondThreeSeconds(t *testing.T) {
	p := Policy{Limit: 10, Period: time.Second, Burst: 10}
	for _, lim := range []Limiter{NewTokenBucket(p, true, 0), NewGCRA(p), NewXTimeRate(p), NewLeakyBucket(p, LeakyMeter)} {
		accepted := 0
		for at := time.Duration(0); at <= 3*time.Second; at += time.Millisecond {
			if lim.Allow("k", at, 1).Allowed {
				accepted++
			}
		}
		if accepted != 40 {
			t.Errorf("%s accepted %d over [0, 3s] at burst 10, 10/s; want exactly 40 (10 + 10/s × 3 s)", lim.Algorithm(), accepted)
		}
	}
}

// A token bucket of 10 per minute refills one token every 6 s.
func TestTenPerMinuteRefillsEverySixSeconds(t *testing.T) {
	p := Policy{Limit: 10, Period: time.Minute}
	steps := repeat(0, 10, 10)
	steps = append(steps,
		step{at: 0, allowed: false, retry: 6 * time.Second, remaining: 0},
		step{at: 3 * time.Second, allowed: false, retry: 3 * time.Second, remaining: 0.5},
		step{at: 6*time.Second - time.Microsecond, allowed: false, retry: time.Microsecond, remaining: anyRemaining},
		step{at: 6 * time.Second, allowed: true, remaining: 0},
		step{at: 6 * time.Second, allowed: false, retry: 6 * time.Second, remaining: 0},
		step{at: 18 * time.Second, cost: 2, allowed: true, remaining: 0},
	)
	for _, lim := range []Limiter{NewTokenBucket(p, true, 0), NewGCRA(p)} {
		t.Run(string(lim.Algorithm()), func(t *testing.T) { runSteps(t, lim, steps) })
	}
}

// retry_after = ceil((cost − tokens) / rate), plus the key's jitter.
func TestRetryAfterFormulaAndJitter(t *testing.T) {
	p := Policy{Limit: 10, Period: time.Second}
	tb := NewTokenBucket(p, true, 0)
	runSteps(t, tb, append(repeat(0, 10, 10),
		// at 50 ms: 0.5 tokens; cost 2 needs 1.5 more, 150 ms at 10/s
		step{at: ms(50), cost: 2, allowed: false, retry: ms(150), remaining: 0.5},
		// at 51.3 ms: 0.513 tokens; 0.487 more is 48.7 ms
		step{at: ms(51.3), allowed: false, retry: ms(48.7), remaining: 0.513},
	))

	p.RetryJitter = 0.5
	seen := map[time.Duration]bool{}
	for _, key := range []string{"alice", "bob", "carol", "dave", "erin"} {
		lim := NewTokenBucket(p, true, 0)
		for i := 0; i < 10; i++ {
			lim.Allow(key, 0, 1)
		}
		got := lim.Allow(key, ms(50), 2).RetryAfter
		want := ms(150) + time.Duration(math.Ceil(150000*JitterFactor(key, 0.5)))*time.Microsecond
		if got != want || got < ms(150) || got > ms(225) {
			t.Errorf("%s: retry-after with 50%% jitter = %v, want %v within [150ms, 225ms]", key, got, want)
		}
		if again := lim.Allow(key, ms(50), 2).RetryAfter; again != got {
			t.Errorf("%s: jitter is not stable for the key: %v then %v", key, got, again)
		}
		seen[got] = true
	}
	if len(seen) < 4 {
		t.Errorf("five keys got only %d distinct jittered retry-afters; jitter does not spread them", len(seen))
	}
}

func TestFixedWindowSteps(t *testing.T) {
	p := Policy{Limit: 3, Period: time.Second}
	runSteps(t, NewFixedWindow(p, false, 0), []step{
		{at: 0, allowed: true, remaining: 2},
		{at: ms(500), cost: 2, allowed: true, remaining: 0},
		{at: ms(900), allowed: false, retry: ms(100), remaining: 0},
		{at: ms(1000), cost: 3, allowed: true, remaining: 0},
		{at: ms(1500), cost: 4, allowed: false, retry: Forever, remaining: 0},
		{at: ms(500), allowed: false, retry: ms(1500), remaining: 0}, // time went back: stored window
	})
}

func TestFixedWindowRollover(t *testing.T) {
	p := Policy{Limit: 10, Period: time.Second}
	runSteps(t, NewFixedWindow(p, false, 5), []step{
		{at: 0, cost: 15, allowed: true, remaining: 0}, // a new key starts with limit + rollover
		{at: ms(999), allowed: false, retry: time.Microsecond * 1000},
		{at: ms(1000), cost: 4, allowed: true, remaining: 6},  // nothing unused to carry
		{at: ms(2000), cost: 15, allowed: true, remaining: 0}, // 6 unused, capped at 5
		{at: ms(2500), cost: 12, allowed: false, retry: ms(1500), remaining: 0},
		{at: ms(5000), cost: 15, allowed: true, remaining: 0}, // idle windows carry the cap
	})
}

func TestFixedWindowRandomStartSpreadsKeys(t *testing.T) {
	p := Policy{Limit: 1, Period: time.Second}
	lim := NewFixedWindow(p, true, 0)
	resets := map[time.Duration]bool{}
	for _, key := range []string{"a", "b", "c", "d", "e", "f"} {
		lim.Allow(key, 0, 1)
		d := lim.Allow(key, 0, 1)
		if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > time.Second {
			t.Fatalf("%s: second request in its window = %+v, want a denial retrying within a period", key, d)
		}
		resets[d.RetryAfter] = true
	}
	if len(resets) < 5 {
		t.Errorf("6 keys with random window starts share %d turnovers; want them spread", len(resets))
	}
}

func TestSlidingLogSteps(t *testing.T) {
	p := Policy{Limit: 3, Period: time.Second}
	runSteps(t, NewSlidingLog(p), []step{
		{at: 0, allowed: true, remaining: 2},
		{at: ms(300), allowed: true, remaining: 1},
		{at: ms(600), allowed: true, remaining: 0},
		{at: ms(900), cost: 2, allowed: false, retry: ms(400)}, // needs the 0 s and 0.3 s entries gone
		{at: ms(1000), allowed: true, remaining: 0},            // the 0 s entry left at 1 s
		{at: ms(1299), allowed: false, retry: time.Millisecond},
		{at: ms(500), allowed: false, retry: ms(800)}, // time went back: judged at 1.0 s, the 0.3 s entry leaves at 1.3 s
		{at: ms(1300), allowed: true, remaining: 0},
	})
}

func TestSlidingCounterSteps(t *testing.T) {
	p := Policy{Limit: 10, Period: time.Second}
	steps := repeat(ms(200), 10, 10)
	steps = append(steps,
		// window 1 at 0.25 s: 10 × 0.75 = 7.5 in the estimate, room for 2
		step{at: ms(1250), cost: 2, allowed: true, remaining: 0.5},
		step{at: ms(1250), allowed: false, retry: ms(50), remaining: 0.5}, // at 1.3 s: 7 + 2 = 9
		step{at: ms(1300), allowed: true, remaining: 0},
		// 13 in window 1 is no room for 9 now, and in window 2 the 3 weigh 3 × (1 − e):
		// e ≥ 2/3, so the retry is 1 ms to 2 s plus 666.667 ms
		step{at: ms(1999), cost: 9, allowed: false, retry: 667667 * time.Microsecond, remaining: anyRemaining},
	)
	runSteps(t, NewSlidingCounter(p), steps)
}

func TestLeakyBucketQueueDelays(t *testing.T) {
	p := Policy{Limit: 10, Period: time.Second, Burst: 3}
	runSteps(t, NewLeakyBucket(p, LeakyQueue), []step{
		{at: 0, allowed: true, remaining: 2},
		{at: 0, allowed: true, remaining: 1, delay: ms(100)},
		{at: 0, allowed: true, remaining: 0, delay: ms(200)},
		{at: 0, allowed: false, retry: ms(100), remaining: 0},
		{at: ms(150), allowed: true, remaining: 0.5, delay: ms(150)}, // 1.5 queued ahead
		{at: ms(150), cost: 4, allowed: false, retry: Forever, remaining: 0.5},
	})
}

func TestTokenBucketReservations(t *testing.T) {
	p := Policy{Limit: 10, Period: time.Second}
	runSteps(t, NewTokenBucket(p, true, 20), []step{
		{at: 0, cost: 10, allowed: true, remaining: 0},
		{at: 0, cost: 9, allowed: true, remaining: -9, delay: ms(900)}, // runs when its tokens exist
		{at: ms(100), cost: 10, allowed: true, remaining: -18, delay: ms(1800)},
		{at: ms(100), cost: 3, allowed: false, retry: ms(100), remaining: -18},  // 2 deeper than max_reserved
		{at: ms(100), cost: 11, allowed: false, retry: Forever, remaining: -18}, // above the burst: never
	})
}

// With the monotonic fix off, a request accepted with a stamp from a clock 300 ms
// behind stores the earlier time, and the next request (on the true clock) is
// refilled for those 300 ms again; with the fix on, it is not. A refused request
// from the lagging node then waits a token's 100 ms from the stored time: from
// its own clock, 100 ms with the fix off (the time moved back to 700 ms), 400 ms
// with it on (the time stayed at 1 s).
func TestTokenBucketTimestampRegression(t *testing.T) {
	p := Policy{Limit: 10, Period: time.Second}
	for _, tc := range []struct {
		monotonic bool
		retry     time.Duration
		last      bool
	}{{false, ms(100), true}, {true, ms(400), false}} {
		steps := append(repeat(ms(1000), 9, 9),
			step{at: ms(700), allowed: true, remaining: 0}, // the lagging node takes the last token
			step{at: ms(700), allowed: false, remaining: 0, retry: tc.retry},
			step{at: ms(1000), allowed: tc.last, remaining: anyRemaining},
		)
		lim := NewTokenBucket(p, tc.monotonic, 0)
		runSteps(t, lim, steps)
	}
}

func TestHeaders(t *testing.T) {
	p := Policy{Limit: 100, Period: time.Minute}
	got := Headers("api", p, Decision{Allowed: false, Remaining: 0.7, RetryAfter: 1500 * time.Millisecond, ResetAfter: 59*time.Second + time.Millisecond})
	want := []Header{{"RateLimit-Policy", `"api";q=100;w=60`}, {"RateLimit", `"api";r=0;t=60`}, {"Retry-After", "2"}}
	if len(got) != len(want) {
		t.Fatalf("Headers = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("header %d = %v, want %v", i, got[i], want[i])
		}
	}
	half := Headers("api", Policy{Limit: 5, Period: 500 * time.Millisecond}, Decision{Allowed: true, Remaining: 4})
	if half[0].Value != `"api";q=10;w=1` || len(half) != 2 {
		t.Errorf("Headers for 5 per 500ms = %v, want the quota scaled to w=1 and no Retry-After", half)
	}
}

func TestPolicyValidate(t *testing.T) {
	for _, tc := range []struct {
		p    Policy
		cost int64
		want string
	}{
		{Policy{Limit: 0, Period: time.Second}, 1, "limit must be > 0 (got 0)"},
		{Policy{Limit: 5, Period: -time.Second}, 1, "period must be > 0 (got -1s)"},
		{Policy{Limit: 5, Period: 1500 * time.Nanosecond}, 1, "period must be a whole number of microseconds (got 1.5µs)"},
		{Policy{Limit: 5, Period: time.Second, Burst: -1}, 1, "burst must be >= 1 (got -1)"},
		{Policy{Limit: 5, Period: time.Second, RetryJitter: 2}, 1, "retry_after_jitter must be a number from 0 to 1 (got 2)"},
		{Policy{Limit: 1 << 40, Period: time.Hour}, 1, "too large for exact arithmetic"},
		{Policy{Limit: 5000, Period: time.Hour}, 1, ""}, // GitHub's limit fits
		// the largest int64s: the guard's own sum must not wrap round to a small number
		{Policy{Limit: 5, Period: time.Second, Burst: math.MaxInt64}, 1, "too large for exact arithmetic"},
		{Policy{Limit: math.MaxInt64, Period: time.Microsecond}, 1, "too large for exact arithmetic"},
		{Policy{Limit: 5, Period: time.Second}, math.MaxInt64, "too large for exact arithmetic"},
	} {
		err := tc.p.Validate(tc.cost)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", tc.p, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want one containing %q", tc.p, err, tc.want)
		}
	}
}

// Reservations deeper than the burst refill all the way back, however long the
// debt: the shortcut that skips the arithmetic after a long idle must not cut in
// early.
func TestDeepReservationsRefillExactly(t *testing.T) {
	p := Policy{Limit: 10, Period: time.Second, Burst: 5}
	runSteps(t, NewTokenBucket(p, true, 50), []step{
		{at: 0, cost: 5, allowed: true, remaining: 0},
		{at: 0, cost: 5, allowed: true, remaining: -5, delay: ms(500)},
		{at: 0, cost: 5, allowed: true, remaining: -10, delay: ms(1000)},
		{at: 0, cost: 5, allowed: true, remaining: -15, delay: ms(1500)},
		{at: ms(1600), allowed: true, remaining: 0}, // 16 tokens refilled: −15 + 16 − 1
		{at: ms(2000), cost: 5, allowed: true, remaining: -1, delay: ms(100)},
	})
}

// --- HAProxy (haproxy.go) ----------------------------------------------------

// haproxyLane is HAProxy's stick-table limit on http_req_rate(period), "gt
// limit", as the newest releases decide.
func haproxyLane(limit int64, period time.Duration, track HAProxyTrack, expire time.Duration) *HAProxy {
	return NewHAProxy(Policy{Limit: limit, Period: period}, track, expire, HAProxyRelease{EvenTicks: true})
}

// The test vectors derived by hand from freq_ctr.h and freq_ctr.c:
// http_req_rate(10s), deny if { sc_http_req_rate(0) gt 3 }, track-sc0 before
// the deny. Each request is counted, then the rate read includes it.
func TestHAProxySteps(t *testing.T) {
	runSteps(t, haproxyLane(3, 10*time.Second, TrackBeforeDeny, 0), []step{
		{at: 0, allowed: true, remaining: 2},                           // the entry's first request starts a period at 0: rate 1
		{at: ms(1000), allowed: true, remaining: 1},                    // 2
		{at: ms(2000), allowed: true, remaining: 0},                    // 3
		{at: ms(3000), allowed: false, retry: ms(9501), remaining: 0},  // 4 > 3; at 12.501 s: 1 + ⌊4 × 7499 / 10000⌋ = 3
		{at: ms(4000), allowed: false, retry: ms(10001), remaining: 0}, // 5; at 14.001 s: 1 + ⌊5 × 5999 / 10000⌋ = 3
		{at: ms(10000), allowed: false, retry: ms(6001), remaining: 0}, // rotation: prev 5, curr 1: 1 + 5 = 6
		{at: ms(19000), allowed: true, remaining: 1},                   // curr 2, remain 1000: ⌊(5 × 1000 + 2 × 10000) / 10000⌋ = 2
		{at: ms(30000), allowed: true, remaining: 2},                   // two periods after the rotation at 10 s: re-anchored, rate 1
		{at: ms(30000), allowed: true, remaining: 1},                   // the new period starts at 30 s
		{at: ms(39999), allowed: true, remaining: 0},                   // still in it: 3
		{at: ms(40000), allowed: false, retry: ms(3334), remaining: 0}, // rotated: 1 + 3 = 4; at 43.334 s: 2 + ⌊3 × 6666 / 10000⌋ = 3
		{at: ms(43334), allowed: true, remaining: 0},                   // the retry-after honoured: 3
		{at: ms(43334), allowed: false, retry: ms(6667), remaining: 0}, // 4; next at 50.001 s: 1 + ⌊3 × 9999 / 10000⌋ = 3
		{at: ms(50000), allowed: false, retry: ms(3334), remaining: 0}, // a millisecond early it is counted: 1 + 3 = 4, and waits 3.333 s more
		{at: ms(53334), allowed: true, remaining: 0},                   // 2 + ⌊3 × 6666 / 10000⌋ = 3
	})
}

// The flapping correction: with curr_ctr 0 and a past count of at most 1, the
// rate is the past count, undecayed, until the counter is two periods old. It
// changes a decision where the request is not counted first (after-deny): one
// request at 0 holds a limit of 1 shut until 20.001 s, where the weighted
// estimate would read 0.5 at 15 s. Counted first, the request itself makes curr
// non-zero and the weighted estimate decides.
func TestHAProxyFlappingCorrection(t *testing.T) {
	runSteps(t, haproxyLane(1, 10*time.Second, TrackAfterDeny, 0), []step{
		{at: 0, allowed: true, remaining: 0},
		{at: ms(15000), allowed: false, retry: ms(5001), remaining: 0}, // past 1, curr 0: reads 1
		{at: ms(20000), allowed: false, retry: ms(1), remaining: 0},    // remain + period = 0: still the past count
		{at: ms(20001), allowed: true, remaining: 0},
	})
	runSteps(t, haproxyLane(1, 10*time.Second, TrackBeforeDeny, 0), []step{
		{at: 0, allowed: true, remaining: 0},
		{at: ms(15000), allowed: true, remaining: 0}, // rotated: 1 + ⌊1 × 5000 / 10000⌋ = 1
	})
	h := haproxyLane(3, 10*time.Second, TrackBeforeDeny, 0)
	h.Allow("one", 0, 1)
	h.Allow("two", 0, 1)
	h.Allow("two", 0, 1)
	for _, c := range []struct {
		key   string
		at    time.Duration
		level float64
	}{
		{"one", ms(9999), 1}, {"one", ms(15000), 1}, {"one", ms(20000), 1}, {"one", ms(20001), 0},
		{"two", ms(9999), 2}, {"two", ms(15000), 1}, {"two", ms(15001), 0}, // ⌊2 × 4999 / 10000⌋ = 0
	} {
		if got := h.Level(c.key, c.at); got != c.level {
			t.Errorf("Level(%s, %v) = %v, want %v", c.key, c.at, got, c.level)
		}
	}
}

// Periods are aligned to each entry's first request, and re-anchored at the
// first request after two or more missed periods; from 1.8 a period starts on an
// even millisecond (bit 0 of curr_tick is a lock), before it on any.
func TestHAProxyPeriodsAnchorAtTheEntry(t *testing.T) {
	runSteps(t, haproxyLane(3, 10*time.Second, TrackBeforeDeny, 0), []step{
		{at: 0, allowed: true, remaining: 2},
		{at: ms(1000), allowed: true, remaining: 1},
		{at: ms(25000), allowed: true, remaining: 2},                    // 25 s after the period began: prev 0, a new period from 25 s
		{at: ms(25000), allowed: true, remaining: 1},                    //
		{at: ms(25000), allowed: true, remaining: 0},                    //
		{at: ms(25000), allowed: false, retry: ms(12501), remaining: 0}, // 4; from 35 s it weighs 4: 1 + ⌊4 × 7499 / 10000⌋ = 3 at 37.501 s
		{at: ms(34999), allowed: false, retry: ms(4002), remaining: 0},  // the period of 25 s still: 5; at 39.001 s 1 + ⌊5 × 5999 / 10000⌋
		{at: ms(39001), allowed: true, remaining: 0},
	})
	// first request at 1 ms: from 1.8 the period starts at 0, and 10 s rotates it
	for _, c := range []struct {
		rel   HAProxyRelease
		retry time.Duration
	}{
		{HAProxyRelease{EvenTicks: true}, ms(10001)}, // prev 1, curr 1 from 10 s: 1 + ⌊1 × (30000 − u) / 10000⌋ ≤ 1 at 20.001 s
		{HAProxyRelease{}, ms(5002)},                 // the period of 1 ms still: curr 2; from 10.001 s: 1 + ⌊2 × (20001 − u) / 10000⌋ ≤ 1 at 15.002 s
	} {
		runSteps(t, NewHAProxy(Policy{Limit: 1, Period: 10 * time.Second}, TrackBeforeDeny, 0, c.rel), []step{
			{at: ms(1), allowed: true, remaining: 0},
			{at: ms(10000), allowed: false, retry: c.retry, remaining: 0},
		})
	}
}

// The entry's expiry: every tracked request refreshes it to now + expire; an
// entry not tracked for expire is gone and the next request starts a new one.
// With after-deny a denial is not tracked and refreshes nothing.
func TestHAProxyExpire(t *testing.T) {
	runSteps(t, haproxyLane(3, 10*time.Second, TrackBeforeDeny, 5*time.Second), []step{
		{at: 0, allowed: true, remaining: 2},
		{at: 0, allowed: true, remaining: 1},
		{at: 0, allowed: true, remaining: 0},
		{at: 0, allowed: false, retry: ms(5000), remaining: 0},        // the entry is gone at 5 s
		{at: ms(4999), allowed: false, retry: ms(5000), remaining: 0}, // counted: 5, and the entry kept until 9.999 s
		{at: ms(9999), allowed: true, remaining: 2},                   // a new entry
	})
	runSteps(t, haproxyLane(3, 10*time.Second, TrackBeforeDeny, 0), []step{ // the same with no expire
		{at: 0, allowed: true, remaining: 2},
		{at: 0, allowed: true, remaining: 1},
		{at: 0, allowed: true, remaining: 0},
		{at: 0, allowed: false, retry: ms(12501), remaining: 0},
		{at: ms(4999), allowed: false, retry: ms(9002), remaining: 0}, // 5; 1 + ⌊5 × 5999 / 10000⌋ = 3 at 14.001 s
		{at: ms(9999), allowed: false, retry: ms(5002), remaining: 0}, // 6; 1 + ⌊6 × 4999 / 10000⌋ = 3 at 15.001 s
	})
	runSteps(t, haproxyLane(3, 10*time.Second, TrackAfterDeny, 5*time.Second), []step{
		{at: 0, allowed: true, remaining: 2},
		{at: 0, allowed: true, remaining: 1},
		{at: 0, allowed: true, remaining: 0},
		{at: 0, allowed: false, retry: ms(5000), remaining: 0},
		{at: ms(4999), allowed: false, retry: ms(1), remaining: 0}, // not tracked: the entry still goes at 5 s
		{at: ms(5000), allowed: true, remaining: 2},
	})
}

// Where track-sc0 sits decides who gets through: one request a second against
// gt 3 per 10 s. Counted before the deny, the denials keep the rate above 3 and
// nothing passes after the first three; looked up first, the denials are not
// counted and a request passes whenever the weighted count dips below 3.
func TestHAProxyCountedBeforeOrAfterTheDeny(t *testing.T) {
	for _, c := range []struct {
		track  HAProxyTrack
		passed []int // the seconds at which a request passed
	}{
		{TrackBeforeDeny, []int{0, 1, 2}},
		// 11 s: ⌊3 × 9000 / 10000⌋ = 2 < 3; 14 s: 1 + ⌊3 × 6000 / 10000⌋ = 2; 17 s: 2 + 0
		{TrackAfterDeny, []int{0, 1, 2, 11, 14, 17}},
	} {
		h := haproxyLane(3, 10*time.Second, c.track, 0)
		var passed []int
		for s := 0; s < 20; s++ {
			if h.Allow("k", time.Duration(s)*time.Second, 1).Allowed {
				passed = append(passed, s)
			}
		}
		if !slices.Equal(passed, c.passed) {
			t.Errorf("%s: passed at %v s, want %v", c.track, passed, c.passed)
		}
	}
}

// The lock-out: counted before the deny, a client sending r ≥ limit + 2
// requests a period, evenly, reads a rate of at least r − 1 > limit at every
// request after its first period (the current count plus the previous period's
// r weighted by what is left of this one loses less than two to the floors,
// and on exact spacing none), so it is never let through again: 10 in 20 s. It recovers within a period of
// slowing down to limit / 2. Looked up first, the same client gets about the
// limit through every period.
func TestHAProxyLockOut(t *testing.T) {
	p := Policy{Limit: 10, Period: time.Second}
	for _, r := range []int64{12, 13, 20, 50, 333} {
		for _, phase := range []time.Duration{0, 1, ms(7), ms(999)} {
			h := NewHAProxy(p, TrackBeforeDeny, 0, HAProxyRelease{EvenTicks: true})
			after := NewHAProxy(p, TrackAfterDeny, 0, HAProxyRelease{EvenTicks: true})
			accepted, afterAccepted := 0, 0
			n := 20 * r
			for i := range n {
				at := phase + time.Duration(i)*time.Second/time.Duration(r)
				if h.Allow("k", at, 1).Allowed {
					accepted++
				}
				if after.Allow("k", at, 1).Allowed {
					afterAccepted++
				}
			}
			if accepted != 10 {
				t.Errorf("%d per second from %v, counted before the deny: %d let through in 20 s, want the first period's 10", r, phase, accepted)
			}
			if afterAccepted < 150 || afterAccepted > 210 {
				t.Errorf("%d per second from %v, looked up first: %d let through in 20 s, want about 10 a second", r, phase, afterAccepted)
			}
			// slowing to 5 a second: through again within a second
			end := phase + 20*time.Second
			first := time.Duration(-1)
			for i := range 10 {
				at := end + time.Duration(i)*200*time.Millisecond
				if h.Allow("k", at, 1).Allowed {
					first = at - end
					break
				}
			}
			if first < 0 || first > time.Second {
				t.Errorf("%d per second from %v, then 5 a second: first let through %v later, want within a second", r, phase, first)
			}
		}
	}
}

// RetryAfter is exact to the microsecond for any clock: the same request is let
// through at now + RetryAfter and not a microsecond sooner, with both places of
// track-sc0, with and without expiry, and a request from a clock behind the
// latest seen waits from its own now (HAProxy's clock never goes back).
func TestHAProxyRetryAfterIsExact(t *testing.T) {
	for _, c := range []struct {
		track  HAProxyTrack
		expire time.Duration
		rel    HAProxyRelease
	}{
		{TrackBeforeDeny, 0, HAProxyRelease{EvenTicks: true}},
		{TrackAfterDeny, 0, HAProxyRelease{EvenTicks: true}},
		{TrackBeforeDeny, 1700 * time.Millisecond, HAProxyRelease{EvenTicks: true}},
		{TrackAfterDeny, 700 * time.Millisecond, HAProxyRelease{}},
		{TrackBeforeDeny, 2 * time.Second, HAProxyRelease{EvenTicks: true, SecondClock: true}},
		{TrackAfterDeny, 0, HAProxyRelease{EvenTicks: true, SecondClock: true}},
	} {
		for _, period := range []time.Duration{ms(300), ms(1000), ms(1501)} {
			h := NewHAProxy(Policy{Limit: 4, Period: period}, c.track, c.expire, c.rel)
			denied := 0
			at := time.Duration(0)
			for i := range 400 {
				at += time.Duration((i*7919)%97) * 731 * time.Microsecond
				now := at
				if i%13 == 0 {
					now -= ms(40) // a clock behind
				}
				d := h.Allow("k", now, 1)
				if d.Allowed {
					continue
				}
				denied++
				if d.RetryAfter == Forever {
					if h.Check("k", now+time.Hour, 1).Allowed {
						t.Fatalf("%+v, period %v: request %d at %v refused for ever, but passes an hour later", c, period, i, now)
					}
					continue
				}
				if !h.Check("k", now+d.RetryAfter, 1).Allowed || h.Check("k", now+d.RetryAfter-time.Microsecond, 1).Allowed {
					t.Fatalf("%+v, period %v: request %d at %v: retry-after %v is not the first µs it passes", c, period, i, now, d.RetryAfter)
				}
			}
			if denied < 50 {
				t.Errorf("%+v, period %v: %d denials; the test pushes too little", c, period, denied)
			}
		}
	}
}

// The releases whose counters read the millisecond within the second (1.8.29,
// 2.0.21, 2.1.12, 2.2.11): a counter of a period of a second or more never
// rotates, so the rate is every request since the entry was created, and only
// the entry's expiry resets it (haproxy/haproxy#1196, #1224). A client sending
// two requests per 10 s against gt 3 is let through for ever by 2.6, and shut
// out from its fourth request by 2.2.11: each request refreshes the entry, so it
// never expires. With no expire at all the denial is for ever.
func TestHAProxySecondClockNeverRotates(t *testing.T) {
	p := Policy{Limit: 3, Period: 10 * time.Second}
	for _, c := range []struct {
		version string
		passed  int
	}{{"2.6", 20}, {"2.2.11", 3}, {"2.2.12", 20}, {"1.8.29", 3}} {
		rel, err := ParseHAProxyVersion(c.version)
		if err != nil {
			t.Fatal(err)
		}
		h := NewHAProxy(p, TrackBeforeDeny, 10*time.Second, rel)
		passed := 0
		for i := range 20 {
			d := h.Allow("k", time.Duration(i)*5*time.Second, 1)
			if d.Allowed {
				passed++
			} else if d.RetryAfter != 10*time.Second {
				t.Errorf("%s: request %d denied with retry-after %v, want 10s (the entry's expiry: only a silence of 10 s resets it)", c.version, i, d.RetryAfter)
			}
		}
		if passed != c.passed {
			t.Errorf("%s: %d of 20 requests every 5 s let through against gt 3 per 10 s, want %d", c.version, passed, c.passed)
		}
	}
	rel, _ := ParseHAProxyVersion("2.2.11")
	runSteps(t, NewHAProxy(p, TrackBeforeDeny, 0, rel), []step{
		{at: 0, allowed: true, remaining: 2},
		{at: ms(1000), allowed: true, remaining: 1},
		{at: ms(2000), allowed: true, remaining: 0},
		{at: ms(3000), allowed: false, retry: Forever, remaining: 0},
		{at: 24 * time.Hour, allowed: false, retry: Forever, remaining: 0},
	})
}

func TestParseHAProxyVersion(t *testing.T) {
	for _, c := range []struct {
		version string
		want    HAProxyRelease
		err     bool
	}{
		{"", HAProxyRelease{EvenTicks: true}, false},
		{"2.6", HAProxyRelease{EvenTicks: true}, false},
		{"2.6.12", HAProxyRelease{EvenTicks: true}, false},
		{"3.4.0", HAProxyRelease{EvenTicks: true}, false},
		{"2.2.11", HAProxyRelease{EvenTicks: true, SecondClock: true}, false},
		{"2.2.12", HAProxyRelease{EvenTicks: true}, false},
		{"2.2", HAProxyRelease{EvenTicks: true}, false}, // the branch's latest
		{"2.0.21", HAProxyRelease{EvenTicks: true, SecondClock: true}, false},
		{"2.1.12", HAProxyRelease{EvenTicks: true, SecondClock: true}, false},
		{"1.8.29", HAProxyRelease{EvenTicks: true, SecondClock: true}, false},
		{"2.3.8", HAProxyRelease{EvenTicks: true}, false},
		{"1.7", HAProxyRelease{}, false},
		{"1.6.16", HAProxyRelease{}, false},
		{"1.5", HAProxyRelease{}, true}, // no http-request track-sc
		{"4.0", HAProxyRelease{}, true},
		{"2", HAProxyRelease{}, true},
		{"2.x", HAProxyRelease{}, true},
		{"02.6", HAProxyRelease{}, true},
		{"2.6.", HAProxyRelease{}, true},
		{"2.6.12.1", HAProxyRelease{}, true},
	} {
		got, err := ParseHAProxyVersion(c.version)
		if (err != nil) != c.err || (err == nil && got != c.want) {
			t.Errorf("ParseHAProxyVersion(%q) = %+v, %v; want %+v, error %v", c.version, got, err, c.want, c.err)
		}
	}
}

// The HAProxy lane's options: what HAProxy refuses is refused, naming the key;
// the keys apply to the haproxy lane only.
func TestHAProxyOptions(t *testing.T) {
	for _, c := range []struct {
		name Name
		o    Options
		key  string // "" when accepted
		want string
	}{
		{HAProxyName, Options{DenyStatus: 429, Expire: 30 * time.Second, TrackSC: TrackAfterDeny, HAProxyVersion: "2.6.12"}, "", ""},
		{HAProxyName, Options{DenyStatus: 418}, "deny_status", "deny_status 418 is not one HAProxy 2.6 can send"},
		{HAProxyName, Options{DenyStatus: 200}, "", ""}, // HAProxy takes it (its monitor-uri page)
		{HAProxyName, Options{Expire: -time.Second}, "expire", "expire must be from 0 to"},
		{HAProxyName, Options{Expire: 25 * 24 * time.Hour}, "expire", "the longest HAProxy takes"},
		{HAProxyName, Options{HAProxyVersion: "2.x"}, "haproxy_version", "is not an HAProxy release"},
		{TokenBucketName, Options{TrackSC: TrackAfterDeny}, "track_sc", `track_sc = "after-deny" applies to haproxy only (this lane runs token-bucket)`},
		{SlidingLogName, Options{Expire: time.Second}, "expire", "expire applies to haproxy only"},
		{GuavaName, Options{DenyStatus: 429}, "deny_status", "deny_status applies to"},
	} {
		err := c.o.Check(c.name)
		oe, _ := err.(*OptionError)
		switch {
		case c.key == "" && err != nil:
			t.Errorf("%s %+v: refused: %v", c.name, c.o, err)
		case c.key != "" && (oe == nil || oe.Key != c.key || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %+v: error %v, want one at %s containing %q", c.name, c.o, err, c.key, c.want)
		}
	}
}

// The product's answer: 200 to a request that passes, deny_status (default
// 403) to a denial, with the termination state HAProxy logs; the algorithms
// that are not products have no Status.
func TestHAProxyStatus(t *testing.T) {
	status := MustLookup(HAProxyName).Status
	for _, c := range []struct {
		d    Decision
		o    Options
		code int
		word string
	}{
		{Decision{Allowed: true}, Options{DenyStatus: 429}, 200, "----"},
		{Decision{}, Options{}, 403, "PR--"},
		{Decision{}, Options{DenyStatus: 429}, 429, "PR--"},
	} {
		if code, word := status(c.d, c.o); code != c.code || word != c.word {
			t.Errorf("Status(%+v, %+v) = %d %q, want %d %q", c.d, c.o, code, word, c.code, c.word)
		}
	}
	for _, name := range []Name{FixedWindowName, SlidingLogName, SlidingCounterName, LeakyBucketName, TokenBucketName, GCRAName, UnlimitedName} {
		if MustLookup(name).Status != nil {
			t.Errorf("%s is not a product but has a Status", name)
		}
	}
}

// An entry is its key's bytes and 16 more: the counter's three 32-bit numbers
// and the expiry date.
func TestHAProxyStateBytes(t *testing.T) {
	h := haproxyLane(3, time.Second, TrackBeforeDeny, 0)
	h.Allow("10.0.0.1", 0, 1)
	h.Allow("10.0.0.22", 0, 1)
	if got, want := h.StateBytes(), int64(8+9+2*16); got != want {
		t.Errorf("StateBytes = %d, want %d", got, want)
	}
}

// HAProxy's periods start at each key's first request, so its lanes get no
// window boundaries drawn on the origin's grid; the fixed window and the
// sliding counter do.
func TestGridWindows(t *testing.T) {
	for name, want := range map[Name]bool{FixedWindowName: true, SlidingCounterName: true, SlidingLogName: false, TokenBucketName: false, HAProxyName: false} {
		if got := MustLookup(name).GridWindows(); got != want {
			t.Errorf("%s: GridWindows = %v, want %v", name, got, want)
		}
	}
}

// nginxStep is a step and the $limit_req_status word nginx logs for it.
type nginxStep struct {
	step
	word string // PASSED, DELAYED, REJECTED, DELAYED_DRY_RUN, REJECTED_DRY_RUN; "": not checked
}

// runNginxSteps feeds steps to the zone z (its location's options o) and checks
// each decision, and the word nginx logs for it when the step has one.
func runNginxSteps(t *testing.T, z *Nginx, o Options, steps []nginxStep) {
	t.Helper()
	for i, s := range steps {
		d := z.Allow("k", s.at, max(1, s.cost))
		if d.Allowed != s.allowed || (s.retry != 0 && d.RetryAfter != s.retry) || (!math.IsNaN(s.remaining) && d.Remaining != s.remaining) || d.Delay != s.delay {
			t.Errorf("step %d: nginx.Allow(k, %v, cost %d) = %+v, want allowed %v, retry %v, remaining %g, delay %v", i, s.at, max(1, s.cost), d, s.allowed, s.retry, s.remaining, s.delay)
		}
		if _, word := nginxStatus(d, o); s.word != "" && word != s.word {
			t.Errorf("step %d: at %v nginx logs %s, want %s", i, s.at, word, s.word)
		}
	}
}

// nginx-tests limit_req.t (nginx/nginx-tests at 76bb761c): zone one, rate=2r/s
// (2000 milli-requests/s), limit_req burst=1 nodelay: the policy's burst is 2.
// Requests 1 and 2 pass (e = 0, then 998 at 1 ms), 3 is refused (e = 1996 >
// 1000) and told to come back when 998 has drained, at 500 ms; refusals are not
// counted, so at 600 ms e = 998 − 1198 + 1000 = 800 passes ("rejects not
// counted"), and 1 ms before the retry time it is still refused.
func TestNginxLimitReqT(t *testing.T) {
	o := Options{Nodelay: true}
	z := NewNginx(Policy{Limit: 2, Period: time.Second, Burst: 2}, o)
	runNginxSteps(t, z, o, []nginxStep{
		{step{at: 0, allowed: true, remaining: 1}, "PASSED"},
		{step{at: ms(1), allowed: true, remaining: 0}, "PASSED"},
		{step{at: ms(2), allowed: false, retry: ms(498), remaining: 0}, "REJECTED"},
		{step{at: ms(3), allowed: false, retry: ms(497), remaining: 0}, "REJECTED"},
		{step{at: ms(4), allowed: false, remaining: 0}, "REJECTED"},
		{step{at: ms(499), allowed: false, retry: ms(1), remaining: 0}, "REJECTED"},
		{step{at: ms(600), allowed: true, remaining: 0}, "PASSED"}, // e = 800
	})
	if got := z.stateOf("k").Excess; got != 800 {
		t.Errorf("excess after 'rejects not counted' = %d, want 800", got)
	}
	// the same zone in /status, limit_req_status 501: refused with 501
	if code, word := nginxStatus(z.Check("k", ms(601), 1), Options{DenyStatus: 501}); code != 501 || word != "REJECTED" {
		t.Errorf("/status: %d %s, want 501 REJECTED", code, word)
	}
	if code, _ := nginxStatus(Decision{}, Options{}); code != 503 {
		t.Errorf("a refusal's default status is %d, want 503", code)
	}
	// zone long, rate=2r/s burst=5 (policy burst 6), no nodelay: the second
	// request waits 1000 × 1000 / 2000 = 500 ms
	long := NewNginx(Policy{Limit: 2, Period: time.Second, Burst: 6}, Options{})
	runNginxSteps(t, long, Options{}, []nginxStep{
		{step{at: 0, allowed: true, remaining: 5}, "PASSED"},
		{step{at: 0, allowed: true, remaining: 4, delay: ms(500)}, "DELAYED"},
	})
	// zone fast, rate=1000r/s burst=1: 100 ms after a request, e = 0 − 100000 +
	// 1000 is negative and clamped to 0 ("negative excess")
	fast := NewNginx(Policy{Limit: 1000, Period: time.Second, Burst: 2}, Options{})
	runNginxSteps(t, fast, Options{}, []nginxStep{
		{step{at: 0, allowed: true, remaining: 1}, "PASSED"},
		{step{at: ms(100), allowed: true, remaining: 1}, "PASSED"},
	})
	if got := fast.stateOf("k").Excess; got != 0 {
		t.Errorf("fast: excess after 100 ms = %d, want 0 (negative excess clamped)", got)
	}
}

// nginx-tests limit_req_delay.t: rate=30r/m (500 milli-requests/s), limit_req
// delay=1 burst=2 (policy burst 3): r1 e = 0 and r2 e = 1000 (≤ delay_m) go at
// once; r3 e = 2000 waits (2000 − 1000) × 1000 / 500 = 2 s; r4, sent 0.2 s into
// r3's wait, has e = 2000 − 100 + 1000 > 2000: refused.
func TestNginxLimitReqDelayT(t *testing.T) {
	o := Options{Delay: 1}
	z := NewNginx(Policy{Limit: 30, Period: time.Minute, Burst: 3}, o)
	runNginxSteps(t, z, o, []nginxStep{
		{step{at: 0, allowed: true, remaining: 2}, "PASSED"},
		{step{at: ms(1), allowed: true, remaining: 1}, "PASSED"}, // X-Time: 0.000
		{step{at: ms(2), allowed: true, remaining: 0, delay: 2 * time.Second}, "DELAYED"},
		{step{at: ms(202), allowed: false, remaining: 0}, "REJECTED"},
	})
}

// nginx-tests limit_req_dry_run.t: zone one, rate=1r/m, limit_req_dry_run on.
// /delay (burst=2): PASSED, then DELAYED_DRY_RUN, passing at once but charged
// (e = 1000, which would wait 62.5 s); /reject (no burst, the same zone): e =
// 2000 > 0, REJECTED_DRY_RUN, passing and not charged; /reject/off (dry run
// off): 503 REJECTED. A location's burst is its limit_req's, so /reject is the
// zone read with burst 0: the same nodes (one key: the queue needs no sharing).
func TestNginxLimitReqDryRunT(t *testing.T) {
	dry := Options{DryRun: true}
	delay := NewNginx(Policy{Limit: 1, Period: time.Minute, Burst: 3}, dry)
	runNginxSteps(t, delay, dry, []nginxStep{
		{step{at: 0, allowed: true, remaining: 2}, "PASSED"},
		{step{at: ms(1), allowed: true, remaining: 1}, "DELAYED_DRY_RUN"},
	})
	reject := *delay
	reject.burst = 0
	runNginxSteps(t, &reject, dry, []nginxStep{
		{step{at: ms(2), allowed: true, remaining: 0}, "REJECTED_DRY_RUN"},
	})
	off := reject
	off.dryRun = false
	runNginxSteps(t, &off, Options{}, []nginxStep{
		{step{at: ms(3), allowed: false, remaining: 0}, "REJECTED"},
	})
	if got := delay.stateOf("k").Excess; got != 1000 {
		t.Errorf("excess after the dry run = %d, want 1000: the delayed request charged, the rejected ones not", got)
	}
}

// rate=1r/m is 16 milli-requests per second: a request drains in 62.5 s, not
// 60. Without a burst, a request 60 s after the first has e = 0 − 960 + 1000 =
// 40 > 0 and is refused until 62.5 s; 7r/m is 116 (an interval of 8.62 s, not
// 8.57).
func TestNginxPerMinuteDrainsIn62AndAHalfSeconds(t *testing.T) {
	z := NewNginx(Policy{Limit: 1, Period: time.Minute, Burst: 1}, Options{})
	if z.rate != 16 {
		t.Fatalf("1r/m: rate_m = %d, want 16", z.rate)
	}
	if r := NewNginx(Policy{Limit: 7, Period: time.Minute, Burst: 1}, Options{}).rate; r != 116 {
		t.Errorf("7r/m: rate_m = %d, want 116", r)
	}
	runSteps(t, z, []step{
		{at: 0, allowed: true, remaining: 0},
		{at: time.Minute, allowed: false, retry: 2500 * time.Millisecond, remaining: 0},
		{at: 62499 * time.Millisecond, allowed: false, retry: time.Millisecond, remaining: 0},
		{at: 62500*time.Millisecond - time.Microsecond, allowed: false, retry: time.Microsecond, remaining: 0},
		{at: 62500 * time.Millisecond, allowed: true, remaining: 0},
	})
}

// Without a burst, one key passes one request per millisecond at most: a
// second request in the same millisecond adds a whole 1000 (ms = 0 drains
// nothing), so 5000r/s passes 1,000 a second when requests share milliseconds
// (nginx/nginx PR #12).
func TestNginxOneKeyWithoutBurstIsCappedAtAThousandPerSecond(t *testing.T) {
	z := NewNginx(Policy{Limit: 5000, Period: time.Second, Burst: 1}, Options{})
	runSteps(t, z, []step{
		{at: ms(7.2), allowed: true, remaining: 0},
		{at: ms(7.9), allowed: false, retry: ms(0.1), remaining: 0},
		{at: ms(8), allowed: true, remaining: 0},
	})
	accepted := 0
	for at := time.Second; at < 2*time.Second; at += 100 * time.Microsecond { // 10,000 a second
		if z.Allow("k", at, 1).Allowed {
			accepted++
		}
	}
	if accepted != 1000 {
		t.Errorf("5000r/s without a burst, 10,000 requests in a second: %d passed, want 1000", accepted)
	}
}

// The clock going backwards (1.15.0+): a request stamped up to 60 s before the
// stored time drains nothing (ms = 0); more than 60 s before, it counts as 1 ms
// after it, and then stores its own, earlier, time.
func TestNginxClockBackwardsClamps(t *testing.T) {
	o := Options{Nodelay: true}
	z := NewNginx(Policy{Limit: 1000, Period: time.Second, Burst: 3}, o) // 1000 milli-requests drain per ms
	runSteps(t, z, []step{
		{at: 100 * time.Second, allowed: true, remaining: 2},
		{at: 100 * time.Second, allowed: true, remaining: 1},
		{at: 100 * time.Second, allowed: true, remaining: 0},
		{at: 99990 * time.Millisecond, allowed: false, retry: ms(11), remaining: 0}, // ms = 0: e = 3000
		{at: 30 * time.Second, allowed: true, remaining: 0},                         // ms = 1: e = 2000 − 1000 + 1000
		{at: 30 * time.Second, allowed: false, retry: ms(1), remaining: 0},          // last is now 30 s
		{at: 100 * time.Second, allowed: true, remaining: 2},
	})
}

// delay=N is two-stage: at 10r/s with burst=5 delay=2 (policy burst 6), six
// requests at once: the first three go at once (e ≤ 2000), the next wait 100,
// 200 and 300 ms, the seventh is refused; with nodelay none waits, and without
// either every excess request does.
func TestNginxDelayTwoStages(t *testing.T) {
	p := Policy{Limit: 10, Period: time.Second, Burst: 6}
	burst := func(delays ...time.Duration) []step {
		var s []step
		for i, d := range delays {
			s = append(s, step{at: 0, allowed: true, remaining: float64(5 - i), delay: d})
		}
		return append(s, step{at: 0, allowed: false, retry: ms(100), remaining: 0})
	}
	runSteps(t, NewNginx(p, Options{Delay: 2}), burst(0, 0, 0, ms(100), ms(200), ms(300)))
	runSteps(t, NewNginx(p, Options{Nodelay: true}), burst(0, 0, 0, 0, 0, 0))
	runSteps(t, NewNginx(p, Options{}), burst(0, ms(100), ms(200), ms(300), ms(400), ms(500)))
	// a delay runs until nginx's millisecond clock reads now + the delay: from
	// 0.4 ms into a millisecond, 0.6 ms less
	runSteps(t, NewNginx(p, Options{}), []step{
		{at: ms(0.4), allowed: true, remaining: 5},
		{at: ms(0.4), allowed: true, remaining: 4, delay: ms(99.6)},
	})
}

// A cost of c is c requests in one millisecond, all or none: from an idle key
// the c-th has e = (c − 1) × 1000; above the policy's burst, never. A refusal's
// remaining is what one request would still get; a request waits as its first
// unit would.
func TestNginxCost(t *testing.T) {
	z := NewNginx(Policy{Limit: 10, Period: time.Second, Burst: 4}, Options{Nodelay: true})
	runSteps(t, z, []step{
		{at: 0, cost: 3, allowed: true, remaining: 1},                  // e = 2000
		{at: 0, cost: 2, allowed: false, retry: ms(100), remaining: 1}, // e = 4000 > 3000; one would pass (e₁ = 3000)
		{at: 0, cost: 5, allowed: false, retry: Forever, remaining: 1}, // more than the burst
		{at: ms(100), cost: 2, allowed: true, remaining: 0},            // e = 2000 − 1000 + 1000 + 1000
		{at: ms(100), allowed: false, retry: ms(100), remaining: 0},    // e = 4000
		{at: ms(500), cost: 4, allowed: true, remaining: 0},            // drained: e = 3000
		{at: time.Hour, cost: 4, allowed: true, remaining: 0},          // idle: e = 0 + 3000
	})
	runSteps(t, NewNginx(Policy{Limit: 10, Period: time.Second, Burst: 4}, Options{}), []step{
		{at: 0, cost: 2, allowed: true, remaining: 2},                  // its first unit has e = 0: no wait
		{at: 0, allowed: true, remaining: 1, delay: ms(200)},           // e = 2000
		{at: 0, cost: 2, allowed: false, retry: ms(100), remaining: 1}, // e₁ = 3000 would pass alone
	})
}
