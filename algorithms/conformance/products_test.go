package conformance

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

// The product lanes decide as their products' own tests and documented
// examples say, on every backend that runs them: each vector is a table of steps
// at fixed instants.

// unixAt is the run time at which a lane's clock reads Unix second s: the run's
// origin stands for algorithms.HeaderOrigin.
func unixAt(s float64) time.Duration {
	return time.Unix(0, int64(s*1e9)).Sub(algorithms.HeaderOrigin)
}

// Envoy's rate limit service (envoyproxy/ratelimit at f2fb1577,
// test/redis/fixed_cache_impl_test.go: testRedis). Its test mocks Redis: at Unix
// second 1234 a 10/second descriptor's key ends _1234 and INCRBY answers 5 (OK,
// remaining 5, reset 1 s); a 10/minute one's ends _1200 and INCRBY answers 11
// (OVER_LIMIT); at 1000000 an hour's key ends _997200 and a day's _950400. Here
// the counts are built by the steps, every request counted, the refused ones too.
func TestEnvoyGlobalDecidesAsTheServiceTests(t *testing.T) {
	for _, c := range []struct {
		name   string
		period time.Duration
		start  float64 // the window's start, the key's suffix
		at     float64 // the request the service's test makes
		after  int64   // the count INCRBY answers it
		reset  time.Duration
	}{
		{"10/second at 1234", time.Second, 1234, 1234, 5, time.Second},
		{"10/minute at 1234", time.Minute, 1200, 1234, 11, 26 * time.Second},
		{"10/hour at 1000000", time.Hour, 997200, 1000000, 11, 800 * time.Second},
		{"10/day at 1000000", 24 * time.Hour, 950400, 1000000, 11, 36800 * time.Second},
	} {
		p := algorithms.Policy{Limit: 10, Period: c.period}
		t.Run(c.name, func(t *testing.T) {
			onEveryBackend(t, []string{"envoy-global"}, p, func(t *testing.T, _ lane, lim algorithms.Limiter) {
				var steps []step
				for i := int64(1); i < c.after; i++ { // earlier requests of the window, from its first second
					steps = append(steps, step{at: unixAt(c.start), allowed: i <= 10})
				}
				want := step{at: unixAt(c.at), allowed: c.after <= 10, remaining: f(float64(max(0, 10-c.after)))}
				if !want.allowed {
					want.retry = c.reset // to the window's end: the next key
				}
				runSteps(t, lim, append(steps, want,
					step{check: true, at: unixAt(c.start) - time.Microsecond, allowed: true}, // the window before: another key
					step{check: true, at: unixAt(c.start + c.period.Seconds()), allowed: true},
				))
				if got := lim.Level("k", unixAt(c.at)); got != float64(c.after) {
					t.Errorf("the window's count = %g, want %d (INCRBY's answer)", got, c.after)
				}
			})
		})
	}
}

// Cloudflare's rate limiting rules publish no code; their docs' examples
// (waf/rate-limiting-rules: request-rate, example A; parameters, "With the
// following behavior") as steps. A rule of 1 request per 10 s: a key's second
// request takes its counter to 2 and is blocked; with a duration of 10 minutes
// every request of that key is blocked until it ends, another key's pass; with
// throttle (duration 0) only the requests over the rate are.
func TestCloudflareDecidesAsItsDocsExamples(t *testing.T) {
	p := algorithms.Policy{Limit: 1, Period: 10 * time.Second}
	end := 2*time.Second + 10*time.Minute
	for _, c := range []struct {
		l     lane
		steps []step
	}{
		{lane{"cloudflare (10 minutes)", algorithms.CloudflareName, algorithms.Options{MitigationTimeout: 10 * time.Minute}}, []step{
			{at: 0, allowed: true, remaining: f(0)},
			{at: time.Second, key: "another", allowed: true},
			{at: 2 * time.Second, allowed: false, retry: 10 * time.Minute, remaining: f(0)},
			{at: 3 * time.Minute, allowed: false, retry: end - 3*time.Minute},
			{check: true, at: end - time.Microsecond, allowed: false},
			{at: end, allowed: true},
		}},
		{laneNamed("cloudflare (throttle)"), []step{
			{at: 0, allowed: true, remaining: f(0)},
			{at: 2 * time.Second, allowed: false, retry: 18 * time.Second}, // the rate: 1 in [0, 10 s), fading over [10 s, 20 s)
			{at: 3 * time.Minute, allowed: true},
		}},
	} {
		t.Run(c.l.label, func(t *testing.T) { // in memory: Cloudflare keeps its counters at its edge, not in Redis
			lim, _ := memory.build(t, c.l, p)
			runSteps(t, lim, c.steps)
		})
	}
}

// Amazon API Gateway publishes no code; its developer guide's examples
// (awsdocs/amazon-api-gateway-developer-guide at 13945642,
// doc_source/api-gateway-request-throttling.md, "Account-Level Throttling"),
// with the default account throttle of 10,000 requests a second and a burst of
// 5,000: the requests served of each one-second sequence. "The 101st
// millisecond" is the one starting at 100 ms, by when 1,000 tokens are back.
func TestAPIGatewayDecidesAsItsGuideExamples(t *testing.T) {
	p := algorithms.Policy{Limit: 10000, Period: time.Second, Burst: 5000}
	burst := func(at time.Duration, n int) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = at
		}
		return out
	}
	spread := func(from, span time.Duration, n int) []time.Duration { // request i at from + i × span / n
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = from + (span * time.Duration(i) / time.Duration(n)).Truncate(time.Microsecond)
		}
		return out
	}
	cat := func(parts ...[]time.Duration) []time.Duration {
		var out []time.Duration
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, c := range []struct {
		name   string
		at     []time.Duration
		served int
	}{
		{"10,000 evenly over the second (10 a millisecond)", spread(0, time.Second, 10000), 10000},
		{"10,000 in the first millisecond", burst(0, 10000), 5000},
		{"5,000 in the first millisecond, 5,000 spread over the other 999", cat(burst(0, 5000), spread(ms(1), ms(999), 5000)), 10000},
		{"5,000 in the first millisecond, 5,000 at the 101st", cat(burst(0, 5000), burst(ms(100), 5000)), 6000},
		{"5,000 in the first millisecond, 1,000 at the 101st, 4,000 over the other 899", cat(burst(0, 5000), burst(ms(100), 1000), spread(ms(101), ms(899), 4000)), 10000},
	} {
		t.Run(c.name, func(t *testing.T) { // in memory: API Gateway's counters are its own
			lim, _ := memory.build(t, laneNamed("api-gateway"), p)
			served := 0
			for _, at := range c.at {
				if lim.Allow("account", at, 1).Allowed {
					served++
				}
			}
			if served != c.served {
				t.Errorf("served %d, want %d", served, c.served)
			}
		})
	}
}
