package algorithms

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Traefik's own TestNewRateLimiter (pkg/middlewares/ratelimiter/
// rate_limiter_test.go at fd5a576d): maxDelay for average 200 (1s) and for 2 per
// 10 s, and the ttl New derives beside it.
func TestTraefikNewRateLimiter(t *testing.T) {
	for _, tc := range []struct {
		p        Policy
		maxDelay time.Duration
		ttl      int64
	}{
		{Policy{Limit: 200, Period: time.Second, Burst: 10}, 2500 * time.Microsecond, 2},
		{Policy{Limit: 2, Period: 10 * time.Second, Burst: 10}, 500 * time.Millisecond, 6}, // 1 + int(1 / 0.2)
		{Policy{Limit: 100, Period: time.Second, Burst: 1}, 5 * time.Millisecond, 2},
		{Policy{Limit: 3, Period: 2 * time.Second}, 500 * time.Millisecond, 2},       // 1.5/s: 1s / (2 × int(1.5))
		{Policy{Limit: 1, Period: time.Minute}, 500 * time.Millisecond, 61},          // 1 + int(60)
		{Policy{Limit: 50, Period: 500 * time.Millisecond}, 5 * time.Millisecond, 2}, // "period below 1 second": 100/s
	} {
		c := TraefikConfigOf(tc.p)
		if c.MaxDelay != tc.maxDelay || c.TTL != tc.ttl {
			t.Errorf("%s: maxDelay %v, ttl %d s; want %v, %d s", tc.p, c.MaxDelay, c.TTL, tc.maxDelay, tc.ttl)
		}
	}
}

// The three outcomes, step by step: average 100, burst 1 (maxDelay 5 ms). At 0
// the token is there; at 1 ms 0.1 is back, the wait 9 ms is over maxDelay: 429,
// the token given back and the 1 ms of credit kept; at 6 ms 0.6 is there, the
// wait 4 ms is served (a Delay).
func TestTraefikSteps(t *testing.T) {
	lim := NewTraefik(Policy{Limit: 100, Period: time.Second, Burst: 1})
	runSteps(t, lim, []step{
		{at: 0, allowed: true, remaining: 0},
		{at: time.Millisecond, allowed: false, retry: 9 * time.Millisecond, remaining: 0.09999999999999998}, // (0.1 − 1) + 1
		{at: 6 * time.Millisecond, allowed: true, remaining: -0.4, delay: 4 * time.Millisecond},
		{at: 6 * time.Millisecond, allowed: false, retry: 13999999, remaining: -0.4}, // 1.4 / 100 s, in the library's float64, truncated
		// the admitted one took its token at 6 ms: the bucket is empty at 10 ms,
		// not full; at 15 ms the wait is 5 ms = maxDelay: served
		{at: 15 * time.Millisecond, allowed: true, remaining: -0.5, delay: 5 * time.Millisecond},
		// a cost is not a weight: one token whatever it is
		{at: time.Second, cost: 50, allowed: true, remaining: 0},
	})
	lim.Allow("k", 2*time.Second, 1)
	var got []string
	d := lim.Allow("k", 2*time.Second+time.Millisecond, 1)
	for _, h := range HeadersTraefik.Render(0, d, []Quota{{Name: "default", Policy: lim.Policy(), Decision: d}}) {
		got = append(got, h.Name+": "+h.Value)
	}
	if want := "X-Retry-In: 9ms\nRetry-After: 1"; strings.Join(got, "\n") != want {
		t.Errorf("the 429's headers:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	if h := HeadersTraefik.Render(0, Decision{Allowed: true}, []Quota{{Policy: lim.Policy()}}); len(h) != 0 {
		t.Errorf("an allowed request's headers: %v; Traefik sends none", h)
	}
}

// Traefik's TestInMemoryRateLimit, "Average is respected": 400 requests a
// second for 2 s at average 100, burst 1 serve rate × 2 s + burst = 201, within
// the test's bounds (95% of it to 102%), on the virtual clock exactly.
func TestTraefikInMemoryRateLimit(t *testing.T) {
	for _, tc := range []struct {
		name          string
		p             Policy
		perSecond     int
		load          time.Duration
		served, bound int
	}{
		{"Average is respected", Policy{Limit: 100, Period: time.Second, Burst: 1}, 400, 2 * time.Second, 201, 0},
		{"burst allowed, no bursty traffic", Policy{Limit: 100, Period: time.Second, Burst: 100}, 200, 2 * time.Second, 300, 0},
		{"lower than 1/s", Policy{Limit: 5, Period: 10 * time.Second, Burst: 1}, 100, 2 * time.Second, 2, 0},
		{"period below 1 second", Policy{Limit: 50, Period: 500 * time.Millisecond, Burst: 1}, 300, 2 * time.Second, 201, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lim := NewTraefik(tc.p)
			served := 0
			gap := time.Second / time.Duration(tc.perSecond)
			for at := time.Duration(0); at <= tc.load; at += gap {
				if lim.Allow("127.0.0.1", at, 1).Allowed {
					served++
				}
			}
			want := int(float64(tc.p.Limit)/tc.p.Period.Seconds()*tc.load.Seconds()) + int(tc.p.Burst)
			if served < want*95/100 || served > want*102/100 {
				t.Errorf("served %d; Traefik's test wants %d to %d", served, want*95/100, want*102/100)
			}
			if served != tc.served {
				t.Errorf("served %d, want exactly %d on the virtual clock", served, tc.served)
			}
		})
	}
}

// A bucket unused for more than ttl − 1 s, in whole Unix seconds, is dropped
// and made again full: burst 10 at 1 a second (ttl 2 s), emptied at 0.999 s,
// is full again at 2.000 s (1.001 s later), where the rate would give 1 token;
// at 1.999 s it is not.
func TestTraefikBucketExpiry(t *testing.T) {
	p := Policy{Limit: 1, Period: time.Second, Burst: 10}
	expired := NewTraefik(p)
	runSteps(t, expired, append(repeat(ms(999), 11, 10), repeat(2*time.Second, 11, 10)...))
	kept := NewTraefik(p)
	runSteps(t, kept, append(repeat(ms(999), 11, 10), repeat(ms(1999), 2, 1)...))
	// a refused request refreshes the expiry too: refused at 1.2 s (a wait of
	// 0.8 s, over maxDelay 0.5 s), the bucket expires at second 3, not 2
	refreshed := NewTraefik(p)
	steps := append(repeat(ms(999), 11, 10), step{at: ms(1200), allowed: false, remaining: anyRemaining})
	runSteps(t, refreshed, append(steps, repeat(2*time.Second, 3, 1)...))
}

// Past 65,536 sources, a new one takes the place of the one closest to expiring
// (on a tie, the heap's root: here the first inserted), which comes back full.
func TestTraefikMaxSources(t *testing.T) {
	lim := NewTraefik(Policy{Limit: 1, Period: time.Second, Burst: 1})
	runSteps(t, lim, []step{{at: 0, key: "first", allowed: true, remaining: 0}, {at: 0, key: "first", allowed: false, remaining: anyRemaining}})
	for i := 1; i < traefikMaxSources; i++ {
		lim.Allow(fmt.Sprint(i), 0, 1)
	}
	if lim.Keys() != traefikMaxSources {
		t.Fatalf("%d sources kept, want %d", lim.Keys(), traefikMaxSources)
	}
	lim.Allow("one more", 0, 1)
	if lim.Keys() != traefikMaxSources {
		t.Errorf("%d sources kept after one more, want %d", lim.Keys(), traefikMaxSources)
	}
	runSteps(t, lim, []step{{at: 0, key: "first", allowed: true, remaining: 0}, {at: 0, key: "1", allowed: false, remaining: anyRemaining}})
}

func TestTraefikStatus(t *testing.T) {
	info := MustLookup(TraefikName)
	for _, tc := range []struct {
		d    Decision
		code int
		word string
	}{
		{Decision{Allowed: true}, 200, "forwarded"},
		{Decision{Allowed: true, Delay: time.Millisecond}, 200, "delayed"},
		{Decision{RetryAfter: time.Second}, 429, "Too Many Requests"},
	} {
		if code, word := info.Status(tc.d, Options{}); code != tc.code || word != tc.word {
			t.Errorf("%+v: %d %q, want %d %q", tc.d, code, word, tc.code, tc.word)
		}
	}
	if _, err := New(TraefikName, Policy{Limit: 10_000_000_000, Period: time.Second}, Options{}); err == nil || !strings.Contains(err.Error(), "overflows Traefik's average × 1s") {
		t.Errorf("average 10^10: %v", err)
	}
}
