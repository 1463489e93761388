package algorithms

import (
	"strings"
	"testing"
	"time"
)

// Spring's own RedisRateLimiterLuaScriptTests (spring-cloud-gateway-server-webflux/
// src/test/java/org/springframework/cloud/gateway/filter/ratelimit/, at
// 5227205c), each on a key of its own: rate 1, capacity 10, the requested
// tokens as the cost, the test's "now + 3" as three seconds later.
func TestSpringLuaScriptTests(t *testing.T) {
	p := Policy{Limit: 1, Period: time.Second, Burst: 10}
	if c := SpringConfigOf(p); c != (SpringConfig{ReplenishRate: 1, BurstCapacity: 10, RequestedTokens: 1}) || c.TTL() < 10 {
		t.Fatalf("1 per 1s, burst 10 is %+v, ttl %d s; want replenishRate 1, burstCapacity 10, requestedTokens 1, ttl >= 10 s", c, c.TTL())
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"testNewAccess", []step{{at: 0, allowed: true, remaining: 9}}},
		{"testTokenFilled", []step{
			{at: 0, cost: 5, allowed: true, remaining: 5},
			{at: 3 * time.Second, cost: 5, allowed: true, remaining: 3},
		}},
		{"testAfterTillTime", []step{
			{at: 0, allowed: true, remaining: 9},
			{at: 10 * time.Second, allowed: true, remaining: 9},
		}},
		{"testTokensNotEnough", []step{{at: 0, cost: 20, allowed: false, retry: Forever, remaining: 10}}},
	} {
		t.Run(tc.name, func(t *testing.T) { runSteps(t, NewSpring(p), tc.steps) })
	}
}

// The lane's own decisions: whole-second refill, state written on a denial,
// policies below a token a second through requestedTokens.
func TestSpringSteps(t *testing.T) {
	t.Run("whole seconds", func(t *testing.T) {
		// 10 a second, burst 10: emptied at 0.999 s, the 10 tokens of second 1
		// arrive at once at 1.000 s, not one every 100 ms
		runSteps(t, NewSpring(Policy{Limit: 10, Period: time.Second}), append(repeat(ms(999), 11, 10), []step{
			{at: ms(999), allowed: false, retry: time.Millisecond, remaining: 0},
			{at: ms(1000) - time.Microsecond, allowed: false, retry: time.Microsecond, remaining: 0},
			{at: ms(1000), cost: 10, allowed: true, remaining: 0},
			{at: ms(1999), cost: 1, allowed: false, retry: time.Millisecond, remaining: 0},
		}...))
	})
	t.Run("a denial from a clock behind moves the second back", func(t *testing.T) {
		// rate 1, capacity 2: emptied at 5 s; a denied request stamped 3 s stores
		// timestamp 3, and at 5 s the two seconds in between are credited again
		lim := NewSpring(Policy{Limit: 1, Period: time.Second, Burst: 2})
		runSteps(t, lim, []step{
			{at: 5 * time.Second, cost: 2, allowed: true, remaining: 0},
			{at: 3 * time.Second, allowed: false, retry: time.Second, remaining: 0},
			{at: 5 * time.Second, cost: 2, allowed: true, remaining: 0},
		})
		twin := NewSpring(Policy{Limit: 1, Period: time.Second, Burst: 2})
		runSteps(t, twin, []step{
			{at: 5 * time.Second, cost: 2, allowed: true, remaining: 0},
			{at: 5 * time.Second, cost: 2, allowed: false, retry: 2 * time.Second, remaining: 0},
		})
	})
	t.Run("1 per minute", func(t *testing.T) {
		// Spring's documented workaround: replenishRate 1, requestedTokens 60,
		// burstCapacity 60
		p := Policy{Limit: 1, Period: time.Minute}
		if c := SpringConfigOf(p); c != (SpringConfig{ReplenishRate: 1, BurstCapacity: 60, RequestedTokens: 60}) {
			t.Fatalf("1 per 1m is %+v; want replenishRate 1, burstCapacity 60, requestedTokens 60", c)
		}
		runSteps(t, NewSpring(p), []step{
			{at: 0, allowed: true, remaining: 0},
			{at: ms(59500), allowed: false, retry: ms(500), remaining: 59.0 / 60},
			{at: time.Minute, allowed: true, remaining: 0},
		})
	})
	t.Run("5 per 1.5s", func(t *testing.T) {
		// 10/3 a second: requestedTokens 3, replenishRate 10, burstCapacity 15
		p := Policy{Limit: 5, Period: 1500 * time.Millisecond}
		if c := SpringConfigOf(p); c != (SpringConfig{ReplenishRate: 10, BurstCapacity: 15, RequestedTokens: 3}) {
			t.Fatalf("5 per 1.5s is %+v; want replenishRate 10, burstCapacity 15, requestedTokens 3", c)
		}
		runSteps(t, NewSpring(p), append(repeat(0, 6, 5), []step{
			{at: time.Second, cost: 3, allowed: true, remaining: 1.0 / 3}, // 10 tokens: 3 requests, 1 token over
			{at: time.Second, allowed: false, retry: time.Second, remaining: 1.0 / 3},
		}...))
	})
}

// The ttl trap: with replenishRate > 2 × burstCapacity the script's ttl is 0,
// it stores nothing, and nothing is limited but a cost above the capacity;
// each answer still says what Spring says (capacity − requested left).
func TestSpringTTLTrap(t *testing.T) {
	trap := NewSpring(Policy{Limit: 3, Period: time.Second, Burst: 1}) // replenish-rate: 3 with the default burstCapacity 1
	if ttl := trap.Config().TTL(); ttl != 0 {
		t.Fatalf("replenishRate 3, burstCapacity 1: ttl %d, want floor(2/3) = 0", ttl)
	}
	steps := repeat(0, 100, 100)
	for i := range steps {
		steps[i].remaining = 0
	}
	steps = append(steps, step{at: 0, cost: 2, allowed: false, retry: Forever, remaining: 1})
	runSteps(t, trap, steps)
	if trap.Keys() != 0 {
		t.Errorf("the ttl trap stored %d keys; Spring's script writes nothing", trap.Keys())
	}
	// one more token of capacity, and ttl is floor(4/3) = 1: it limits
	runSteps(t, NewSpring(Policy{Limit: 3, Period: time.Second, Burst: 2}), append(repeat(0, 5, 2), step{at: time.Second, cost: 2, allowed: true, remaining: 0}))
}

// The keys expire ttl seconds after they are written, on Redis's millisecond
// clock; Evict forgets them then and not before, and an expired key decides as
// the state it had would have.
func TestSpringExpiry(t *testing.T) {
	lim := NewSpring(Policy{Limit: 1, Period: time.Second, Burst: 10}) // ttl 20 s
	lim.Allow("k", ms(0.5), 10)
	if n := lim.Evict(20*time.Second + 999*time.Microsecond); n != 0 {
		t.Errorf("Evict at 20.000999 s forgot %d keys; written at 0 ms with ttl 20 s they are gone only past 20000 ms", n)
	}
	if n := lim.Evict(20*time.Second + time.Millisecond); n != 1 {
		t.Errorf("Evict at 20.001 s forgot %d keys, want 1", n)
	}
	runSteps(t, lim, []step{{at: 21 * time.Second, cost: 10, allowed: true, remaining: 0}})
}

// What Spring cannot state is refused, with the reason.
func TestSpringRefuses(t *testing.T) {
	for _, tc := range []struct {
		p    Policy
		want string
	}{
		{Policy{Limit: 3_000_000_000, Period: time.Second}, "Spring's replenishRate is an int"},
		{Policy{Limit: 1, Period: 4_000_000_001 * time.Microsecond}, "requestedTokens 4000000001"},
	} {
		_, err := New(SpringName, tc.p, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.p, err, tc.want)
		}
	}
	if _, err := New(SpringName, Policy{Limit: 7, Period: 7 * time.Second}, Options{}); err != nil {
		t.Errorf("7 per 7s: %v", err)
	}
}

func TestSpringStatus(t *testing.T) {
	info := MustLookup(SpringName)
	if code, word := info.Status(Decision{Allowed: true}, Options{}); code != 200 || word != "allowed" {
		t.Errorf("allowed: %d %q", code, word)
	}
	if code, word := info.Status(Decision{}, Options{}); code != 429 || word != "TOO_MANY_REQUESTS" {
		t.Errorf("denied: %d %q, want RequestRateLimiterGatewayFilterFactory's 429", code, word)
	}
	// the filter's statusCode, as deny_status: the code and HttpStatus's name
	for _, tc := range []struct {
		status int
		word   string
	}{{503, "SERVICE_UNAVAILABLE"}, {413, "PAYLOAD_TOO_LARGE"}, {418, "I_AM_A_TEAPOT"}} {
		o := Options{DenyStatus: tc.status}
		if _, err := New(SpringName, Policy{Limit: 10, Period: time.Second}, o); err != nil {
			t.Fatalf("deny_status %d: %v", tc.status, err)
		}
		if code, word := info.Status(Decision{}, o); code != tc.status || word != tc.word {
			t.Errorf("deny_status %d: %d %q, want %d %q", tc.status, code, word, tc.status, tc.word)
		}
		if code, _ := info.Status(Decision{Allowed: true}, o); code != 200 {
			t.Errorf("deny_status %d, allowed: %d, want 200", tc.status, code)
		}
	}
	for _, bad := range []int{200, 302, 427, 600} {
		if _, err := New(SpringName, Policy{Limit: 10, Period: time.Second}, Options{DenyStatus: bad}); err == nil || !strings.Contains(err.Error(), "one of Spring's HttpStatus codes from 400 to 599") {
			t.Errorf("deny_status %d: %v, want refused", bad, err)
		}
	}
}

// statusCode binds as Spring Boot binds an enum: by its letters and digits in
// any case (LenientObjectToEnumConverterFactory); a number is no HttpStatus's
// name, and a status outside 400–599 is no refusal's.
func TestSpringStatusCodeBindsLeniently(t *testing.T) {
	for _, c := range []struct {
		name string
		code int
	}{
		{"TOO_MANY_REQUESTS", 429}, {"too_many_requests", 429}, {"too-many-requests", 429}, {"TooManyRequests", 429},
		{" Service Unavailable ", 503}, {"serviceUnavailable", 503}, {"429", 0}, {"OK", 0}, {"TOO_MANY", 0}, {"", 0},
	} {
		code, ok := SpringStatusCode(c.name)
		if code != c.code || ok != (c.code != 0) {
			t.Errorf("SpringStatusCode(%q) = %d, %v; want %d", c.name, code, ok, c.code)
		}
	}
}
