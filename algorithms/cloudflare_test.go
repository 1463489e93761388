package algorithms

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// The docs' example A (waf/rate-limiting-rules/request-rate): 1 request per 10
// seconds, a mitigation of 10 minutes. Request 1 sets its key's counter to 1 and
// passes; request 2, another key, passes; request 3, the first key again, takes
// it to 2, over the limit, and is blocked, and so is every request of that key
// for the next ten minutes, however slow.
func TestCloudflareDocsExample(t *testing.T) {
	lim := NewCloudflare(Policy{Limit: 1, Period: 10 * time.Second}, 10*time.Minute, false)
	after := 2*time.Second + 10*time.Minute
	runSteps(t, lim, []step{
		{at: 0, allowed: true, remaining: 0},
		{at: time.Second, key: "another", allowed: true, remaining: 0},
		{at: 2 * time.Second, allowed: false, retry: 10 * time.Minute, remaining: 0},
		{at: 5 * time.Minute, allowed: false, retry: after - 5*time.Minute, remaining: 0},
		{at: after - time.Microsecond, allowed: false, retry: time.Microsecond, remaining: 0},
		{at: after, allowed: true, remaining: 0},
		{at: after, key: "another", allowed: true, remaining: 0},
	})
	if code, word := cloudflareStatus(lim.Allow("k", after, 1), Options{}); code != 429 || word != "block" {
		t.Errorf("a block is %d %q, want 429 block", code, word)
	}
	if code, word := cloudflareStatus(Decision{}, Options{DenyStatus: 403}); code != 403 || word != "block" {
		t.Errorf("a block with response.status_code 403 is %d %q", code, word)
	}
	if code, word := cloudflareStatus(Decision{Allowed: true}, Options{DenyStatus: 403}); code != 200 || word != "" {
		t.Errorf("a request let through is %d %q, want 200 and no security event", code, word)
	}
}

// A mitigation blocks regardless of the rate: after the 11th request of a burst
// trips it, one request every 10 s (a tenth of the limit) is blocked until the
// 60 s are over; throttle (timeout 0) lets them through as the rate allows.
func TestCloudflareMitigationIgnoresTheRate(t *testing.T) {
	p := Policy{Limit: 10, Period: 10 * time.Second}
	slow := func(allowed bool) []step {
		var s []step
		for at := 10 * time.Second; at < time.Minute; at += 10 * time.Second {
			s = append(s, step{at: at, allowed: allowed, remaining: anyRemaining})
		}
		return s
	}
	burst := repeat(0, 11, 10)
	runSteps(t, NewCloudflare(p, time.Minute, false), append(append(burst, slow(false)...), step{at: time.Minute, allowed: true, remaining: anyRemaining}))
	runSteps(t, NewCloudflare(p, 0, false), append(repeat(0, 11, 10), append(slow(false)[:1], slow(true)[1:]...)...))
}

// Throttle with blocked requests not counted keeps a client steadily at twice
// the limit at the limit; counting them (count_blocked) keeps its rate over
// the limit, and after the first window it gets nothing.
func TestCloudflareCountBlocked(t *testing.T) {
	p := Policy{Limit: 10, Period: 10 * time.Second}
	for _, c := range []struct {
		countBlocked bool
		least, most  int
	}{{false, 90, 101}, {true, 10, 10}} {
		lim := NewCloudflare(p, 0, c.countBlocked)
		accepted := 0
		for at := time.Duration(0); at < 100*time.Second; at += 500 * time.Millisecond {
			if lim.Allow("k", at, 1).Allowed {
				accepted++
			}
		}
		if accepted < c.least || accepted > c.most {
			t.Errorf("count_blocked %v: %d of 200 requests at 2/s let through in 100 s against 1/s; want %d to %d", c.countBlocked, accepted, c.least, c.most)
		}
	}
}

// With blocked requests counted a count can grow past any product of it with
// the period in µs; the rate is compared without forming one: a day's period
// and 10^13 units blocked leave the key blocked through the next window, with
// a retry-after to the µs and no negative room.
func TestCloudflareHugeCountsStayExact(t *testing.T) {
	day := 24 * time.Hour
	lim := NewCloudflare(Policy{Limit: 100, Period: 86400 * time.Second}, 0, true)
	lim.Allow("k", 0, 1e13)
	for _, at := range []time.Duration{time.Hour, day, day + 23*time.Hour} {
		d := lim.Allow("k", at, 1)
		if d.Allowed || d.Remaining != 0 || d.RetryAfter != 2*day-at {
			t.Errorf("at %v: %+v; want blocked, remaining 0, retry until the next window fades it, %v", at, d, 2*day-at)
		}
	}
	if d := lim.Check("k", 2*day, 1); !d.Allowed {
		t.Errorf("two days on: %+v, want allowed", d)
	}
}

// Throttle, blocked requests not counted, decides as sliding-counter exactly:
// the same requests, remaining and retry-after, on random traces.
func TestCloudflareThrottleIsTheSlidingCounter(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		p := admitted(CloudflareName, randomPolicy(r), Options{})
		trace := randomTrace(r, p, 200, min(3, p.Limit))
		cf := decide(NewCloudflare(p, 0, false), trace)
		if err := checkSameDecisions(cf, decide(NewSlidingCounter(p), trace), true); err != nil {
			t.Fatalf("seed %d, %s: %v", seed, p, err)
		}
	}
}

func TestCheckCloudflarePolicy(t *testing.T) {
	ok := func(period, timeout time.Duration, status int) error {
		return CheckCloudflarePolicy(Policy{Limit: 5, Period: period}, Options{MitigationTimeout: timeout, DenyStatus: status})
	}
	for _, s := range []int64{10, 15, 45, 480, 2400, 65535, 86400} {
		if err := ok(time.Duration(s)*time.Second, time.Duration(s)*time.Second, 0); err != nil {
			t.Errorf("%d s refused: %v", s, err)
		}
	}
	if err := ok(10*time.Second, 45*time.Minute, 403); err != nil {
		t.Errorf("a custom timeout of 45m (Enterprise, through the API), status 403: %v", err)
	}
	for _, c := range []struct {
		period, timeout time.Duration
		status          int
		want            string
	}{
		{time.Second, 0, 0, "period 1s is not a period Cloudflare takes; use one of 10, 15, 20, 30, 40, 45, 60, 90, 120, 180, 240, 300, 480, 600, 900, 1200, 1800, 2400, 3600, 65535, 86400 seconds"},
		{11 * time.Second, 0, 0, "period 11s"},
		{ms(10500), 0, 0, "period 10.5s"},
		{10 * time.Second, 25 * time.Hour, 0, "mitigation_timeout must be 0 (throttle) or one of 10, 15"},
		{10 * time.Second, ms(1500), 0, "got 1.5s"},
		{10 * time.Second, 0, 503, "deny_status (response.status_code) must be from 400 to 499"},
	} {
		if err := ok(c.period, c.timeout, c.status); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("period %s, timeout %s, status %d: %v; want %q", c.period, c.timeout, c.status, err, c.want)
		}
	}
}

// A request stamped before a mitigation's end (a clock behind) is blocked; the
// retry-after counts from its own clock.
func TestCloudflareClockBehind(t *testing.T) {
	lim := NewCloudflare(Policy{Limit: 1, Period: 10 * time.Second}, time.Minute, false)
	runSteps(t, lim, []step{
		{at: 20 * time.Second, allowed: true, remaining: 0},
		{at: 20 * time.Second, allowed: false, retry: time.Minute, remaining: 0},
		{at: 15 * time.Second, allowed: false, retry: 65 * time.Second, remaining: 0},
		{at: -5 * time.Second, key: "new", allowed: true, remaining: 0},
	})
}
