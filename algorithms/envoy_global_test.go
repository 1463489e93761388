package algorithms

import (
	"strings"
	"testing"
	"time"
)

// unix is the instant n seconds after the Unix epoch, for a lane whose origin
// is the epoch itself: its now is the service's UnixNow().
func unix(n float64) time.Duration { return time.Duration(n * float64(time.Second)) }

// The rate limit service's own vectors (test/redis/fixed_cache_impl_test.go:
// testRedis, at f2fb1577), as steps on a lane whose origin is the Unix epoch. The
// test mocks Redis's replies; here they are the counts the steps build.
func TestEnvoyGlobalServiceVectors(t *testing.T) {
	epoch := time.Unix(0, 0)
	t.Run("10/second at 1234: key _1234, INCRBY -> 5, OK remaining 5", func(t *testing.T) {
		lim := NewEnvoyGlobal(Policy{Limit: 10, Period: time.Second}, false, epoch)
		steps := repeat(unix(1234), 4, 4)
		steps = append(steps, step{at: unix(1234.5), allowed: true, remaining: 5})
		runSteps(t, lim, steps)
		if w := lim.window(toMicros(unix(1234.5))); w != 1234 {
			t.Errorf("window of 1234.5 s = %d, want 1234 (the cache key's suffix)", w)
		}
		if d := lim.Check("k", unix(1234), 1); d.ResetAfter != time.Second {
			t.Errorf("reset after %v at 1234 s, want 1s (CalculateReset: 1 − 1234 mod 1)", d.ResetAfter)
		}
	})
	t.Run("10/minute at 1234: key _1200, INCRBY -> 11, OVER_LIMIT", func(t *testing.T) {
		lim := NewEnvoyGlobal(Policy{Limit: 10, Period: time.Minute}, false, epoch)
		steps := repeat(unix(1200), 10, 10)
		steps = append(steps, step{at: unix(1234), allowed: false, remaining: 0, retry: 26 * time.Second})
		runSteps(t, lim, steps)
		if w := lim.window(toMicros(unix(1234))); w != 1200 {
			t.Errorf("window of 1234 s = %d, want 1200", w)
		}
		if got := lim.Level("k", unix(1234)); got != 11 {
			t.Errorf("count after the refusal = %g, want 11 (INCRBY ran)", got)
		}
	})
	t.Run("hour and day at 1000000: keys _997200 and _950400", func(t *testing.T) {
		hour := NewEnvoyGlobal(Policy{Limit: 10, Period: time.Hour}, false, epoch)
		day := NewEnvoyGlobal(Policy{Limit: 10, Period: 24 * time.Hour}, false, epoch)
		for _, c := range []struct {
			lim   *EnvoyGlobal
			start int64
			reset time.Duration
		}{{hour, 997200, 800 * time.Second}, {day, 950400, 36800 * time.Second}} {
			if w := c.lim.window(toMicros(unix(1000000))); w != c.start {
				t.Errorf("%s: window of 1000000 s = %d, want %d", c.lim.Policy().Period, w, c.start)
			}
			runSteps(t, c.lim, append(repeat(unix(float64(c.start)), 10, 10),
				step{at: unix(1000000), allowed: false, remaining: 0, retry: c.reset}))
		}
	})
}

// Denied requests are counted: a client that keeps sending stays over until its
// window turns, whatever its rate, and the next window starts from zero. A cost
// above the limit is never accepted.
func TestEnvoyGlobalDeniedAreCounted(t *testing.T) {
	lim := NewEnvoyGlobal(Policy{Limit: 3, Period: time.Second}, false, HeaderOrigin)
	runSteps(t, lim, []step{
		{at: 0, allowed: true, remaining: 2},
		{at: ms(100), allowed: true, remaining: 1},
		{at: ms(200), allowed: true, remaining: 0},
		{at: ms(300), allowed: false, retry: ms(700), remaining: 0},
		{at: ms(999), allowed: false, retry: time.Millisecond, remaining: 0},
		{at: time.Second, allowed: true, remaining: 2},
		{at: time.Second, cost: 4, allowed: false, retry: Forever, remaining: 0},
		{at: time.Second, allowed: false, retry: time.Second, remaining: 0}, // the cost-4 refusal counted: 1 + 4 + 1 = 6 > 3
	})
	if got := lim.Level("k", time.Second); got != 6 {
		t.Errorf("count = %g, want 6", got)
	}
}

// shadow_mode: a request over the limit is answered OK, marked as shadowed, and
// counted.
func TestEnvoyGlobalShadowMode(t *testing.T) {
	lim := NewEnvoyGlobal(Policy{Limit: 2, Period: time.Minute}, true, HeaderOrigin)
	for i, want := range []Shadow{ShadowNone, ShadowNone, ShadowRefused, ShadowRefused} {
		d := lim.Allow("k", time.Second, 1)
		if !d.Allowed || d.Shadow != want || (want == ShadowRefused && d.Remaining != 0) {
			t.Errorf("step %d: %+v, want allowed with shadow %d", i, d, want)
		}
		if code, word := envoyGlobalStatus(d, Options{}); (want == ShadowRefused) != (word == "shadow_mode") || code != 200 {
			t.Errorf("step %d: status %d %q", i, code, word)
		}
	}
	if got := lim.Level("k", time.Second); got != 4 {
		t.Errorf("count = %g, want 4: shadowed requests are counted", got)
	}
	plain := NewEnvoyGlobal(Policy{Limit: 2, Period: time.Minute}, false, HeaderOrigin)
	plain.Allow("k", 0, 2)
	if code, word := envoyGlobalStatus(plain.Allow("k", 0, 1), Options{}); code != 429 || word != "OVER_LIMIT" {
		t.Errorf("a refusal is %d %q, want 429 OVER_LIMIT", code, word)
	}
}

// The run's origin stands for 2026-01-01T00:00:00Z, a Thursday at midnight:
// windows of a second to a week start at the origin (the service's weeks start
// on Thursdays), a 30-day "month" started 2025-12-08 and turns 6 days into the
// run, a 365-day "year" started 2025-12-18 and turns 351 days in.
func TestEnvoyGlobalWindowsAlignToTheEpoch(t *testing.T) {
	day := 24 * time.Hour
	for _, c := range []struct {
		period time.Duration
		turns  time.Duration // the first window end after the origin
	}{
		{time.Second, time.Second}, {time.Minute, time.Minute}, {time.Hour, time.Hour},
		{day, day}, {7 * day, 7 * day}, {30 * day, 6 * day}, {365 * day, 351 * day},
	} {
		lim := NewEnvoyGlobal(Policy{Limit: 1, Period: c.period}, false, HeaderOrigin)
		runSteps(t, lim, []step{
			{at: 0, allowed: true, remaining: 0},
			{at: 0, allowed: false, retry: c.turns, remaining: 0},
			{at: c.turns - time.Microsecond, allowed: false, retry: time.Microsecond, remaining: 0},
			{at: c.turns, allowed: true, remaining: 0},
		})
	}
	month := NewEnvoyGlobal(Policy{Limit: 1, Period: 30 * day}, false, HeaderOrigin)
	if start := time.Unix(month.window(0), 0).UTC(); start.Format(time.DateOnly) != "2025-12-08" {
		t.Errorf("the month holding the origin starts %s, want 2025-12-08", start)
	}
	week := NewEnvoyGlobal(Policy{Limit: 1, Period: 7 * day}, false, HeaderOrigin)
	if start := time.Unix(week.window(toMicros(3*day)), 0).UTC(); start.Weekday() != time.Thursday {
		t.Errorf("a week starts on %s, want Thursday", start.Weekday())
	}
	// the service's clock is whole seconds: 0.4 s before a minute's end is still in it
	minute := NewEnvoyGlobal(Policy{Limit: 1, Period: time.Minute}, false, HeaderOrigin)
	minute.Allow("k", 0, 1)
	if d := minute.Allow("k", ms(59600), 1); d.Allowed || d.RetryAfter != ms(400) || d.ResetAfter != ms(400) {
		t.Errorf("at 59.6 s: %+v; want refused until the minute's end, 400ms", d)
	}
}

// A request stamped in an earlier window (a clock behind) counts in that
// window, as the service's INCRBY on that window's key does.
func TestEnvoyGlobalClockBehind(t *testing.T) {
	lim := NewEnvoyGlobal(Policy{Limit: 2, Period: time.Second}, false, HeaderOrigin)
	runSteps(t, lim, []step{
		{at: ms(500), allowed: true, remaining: 1},
		{at: ms(500), allowed: true, remaining: 0},
		{at: ms(1500), allowed: true, remaining: 1},
		{at: ms(900), allowed: false, retry: ms(100), remaining: 0},  // the first second's count: 3
		{at: ms(1600), allowed: true, remaining: 0},                  // the second's: 2
		{at: ms(950), allowed: false, retry: ms(1050), remaining: 0}, // the next window is full: retry at the one after
		{at: ms(-500), allowed: true, remaining: 1},                  // an older window: a new count
	})
}

func TestCheckEnvoyGlobalPolicy(t *testing.T) {
	for _, period := range []time.Duration{time.Second, time.Minute, time.Hour, 24 * time.Hour, 168 * time.Hour, 720 * time.Hour, 8760 * time.Hour} {
		if err := CheckEnvoyGlobalPolicy(Policy{Limit: 1, Period: period}, Options{}); err != nil {
			t.Errorf("period %s refused: %v", period, err)
		}
	}
	for _, period := range []time.Duration{ms(1500), 10 * time.Second, ms(100), 744 * time.Hour} {
		err := CheckEnvoyGlobalPolicy(Policy{Limit: 1, Period: period}, Options{})
		if err == nil || !strings.Contains(err.Error(), "second (1s), minute (1m0s), hour (1h0m0s), day (24h0m0s), week (168h0m0s), month (720h0m0s), year (8760h0m0s)") {
			t.Errorf("period %s: %v; want a refusal naming the units", period, err)
		}
	}
	if err := CheckEnvoyGlobalPolicy(Policy{Limit: 1 << 32, Period: time.Second}, Options{}); err == nil {
		t.Error("a limit above a uint32 was taken")
	}
	if _, err := New(EnvoyGlobalName, Policy{Limit: 1, Period: ms(1500)}, Options{}); err == nil {
		t.Error("New built an envoy-global lane with a period of 1.5s")
	}
}

// Several descriptors: every one is charged by default, also when another puts
// the request over; with STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT only the
// descriptors that go over are, and the others keep their count.
func TestEnvoyGlobalRequest(t *testing.T) {
	for _, stop := range []bool{false, true} {
		user := NewEnvoyGlobal(Policy{Limit: 1, Period: time.Second}, false, HeaderOrigin)
		tenant := NewEnvoyGlobal(Policy{Limit: 10, Period: time.Minute}, false, HeaderOrigin)
		req := []EnvoyGlobalDescriptor{{user, "alice"}, {tenant, "acme"}}
		if d, _ := EnvoyGlobalRequest(req, 0, 1, stop); !d.Allowed || d.Remaining != 0 {
			t.Errorf("stop %v: first request %+v; want OK, remaining 0 (the user's)", stop, d)
		}
		for i := 0; i < 3; i++ {
			d, each := EnvoyGlobalRequest(req, ms(100), 1, stop)
			if d.Allowed || each[0].Allowed || !each[1].Allowed || d.RetryAfter != ms(900) {
				t.Errorf("stop %v, request %d: %+v %+v; want OVER_LIMIT by the user's limit, retry 900ms", stop, i, d, each)
			}
		}
		want := 4.0 // 1 + 3 over-limit requests
		if stop {
			want = 1
		}
		if got := tenant.Level("acme", ms(100)); got != want {
			t.Errorf("stop %v: the tenant's count = %g, want %g", stop, got, want)
		}
		if got := user.Level("alice", ms(100)); got != 4 {
			t.Errorf("stop %v: the user's count = %g, want 4: the descriptor that goes over is charged either way", stop, got)
		}
	}
	// shadow_mode on the descriptor that is over: the request passes, marked
	user := NewEnvoyGlobal(Policy{Limit: 1, Period: time.Second}, true, HeaderOrigin)
	tenant := NewEnvoyGlobal(Policy{Limit: 10, Period: time.Minute}, false, HeaderOrigin)
	req := []EnvoyGlobalDescriptor{{user, "alice"}, {tenant, "acme"}}
	EnvoyGlobalRequest(req, 0, 1, false)
	if d, _ := EnvoyGlobalRequest(req, 0, 1, false); !d.Allowed || d.Shadow != ShadowRefused {
		t.Errorf("a request over a shadow_mode limit only: %+v; want OK, shadowed", d)
	}
}

// Envoy's DRAFT_VERSION_03 headers, its own vectors
// (test/extensions/filters/http/ratelimit/ratelimit_headers_test.cc at
// aa010617): a descriptor status is a quota (requests_per_unit the policy's
// limit per its unit, limit_remaining the decision's remaining,
// duration_until_reset its reset), the limit's name the quota's.
func TestEnvoyGlobalHeaders(t *testing.T) {
	status := func(name string, limit int64, unit time.Duration, remaining float64, reset time.Duration) Quota {
		return Quota{Name: name, Policy: Policy{Limit: limit, Period: unit}, Decision: Decision{Allowed: true, Remaining: remaining, ResetAfter: reset}}
	}
	for _, c := range []struct {
		name   string
		quotas []Quota
		want   string
	}{
		{"empty name is not appended", []Quota{status("", 1, time.Minute, 2, 3*time.Second)},
			`x-ratelimit-limit: 1, 1;w=60|x-ratelimit-remaining: 2|x-ratelimit-reset: 3`},
		{"an unknown unit is ignored in window, but not overall (a week is unknown to the filter)", []Quota{status("first", 1, 168*time.Hour, 2, 3*time.Second), status("second", 4, time.Hour, 5, 6*time.Second)},
			`x-ratelimit-limit: 1, 4;w=3600;name="second"|x-ratelimit-remaining: 2|x-ratelimit-reset: 3`},
		{"normal case, multiple arguments", []Quota{status("first", 1, time.Minute, 2, 3*time.Second), status("second", 4, time.Hour, 5, 6*time.Second)},
			`x-ratelimit-limit: 1, 1;w=60;name="first", 4;w=3600;name="second"|x-ratelimit-remaining: 2|x-ratelimit-reset: 3`},
		{"the least remaining reports; a refusal sends no Retry-After", []Quota{status("a", 10, time.Second, 7, time.Second), {Name: "b", Policy: Policy{Limit: 100, Period: 720 * time.Hour}, Decision: Decision{RetryAfter: time.Hour, ResetAfter: ms(2500)}}},
			`x-ratelimit-limit: 100, 10;w=1;name="a", 100;w=2592000;name="b"|x-ratelimit-remaining: 0|x-ratelimit-reset: 3`},
	} {
		var got []string
		for _, h := range HeadersEnvoy.Render(0, c.quotas[len(c.quotas)-1].Decision, c.quotas) {
			got = append(got, h.Name+": "+h.Value)
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, strings.Join(got, "|"), c.want)
		}
	}
}
