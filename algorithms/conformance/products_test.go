package conformance

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"

	"ratelab/algorithms"
	"ratelab/algorithms/redislua"
	"ratelab/internal/redistest"
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

// springCall is one call of Spring's request_rate_limiter.lua as
// RedisRateLimiter makes it: KEYS tokens and timestamp, ARGV replenishRate,
// burstCapacity, now in seconds ("" for Redis TIME), requested.
func springCall(t *testing.T, c redis.UniversalClient, id string, rate, capacity int64, now string, requested int64) []int64 {
	t.Helper()
	keys := []string{"redis-rate-limiter-lua-script-tests.{" + id + "}.tokens", "redis-rate-limiter-lua-script-tests.{" + id + "}.timestamp"}
	r, err := c.Eval(context.Background(), redislua.Script("spring"), keys, rate, capacity, now, requested).Int64Slice()
	if err != nil {
		t.Fatalf("EVAL spring.lua as Spring calls it: %v", err)
	}
	return r
}

// springTTLs are the seconds to expiry of id's two keys (−2: no such key).
func springTTLs(t *testing.T, c redis.UniversalClient, id string) []int64 {
	t.Helper()
	var ttls []int64
	for _, suffix := range []string{".tokens", ".timestamp"} {
		d, err := c.TTL(context.Background(), "redis-rate-limiter-lua-script-tests.{"+id+"}"+suffix).Result()
		if err != nil {
			t.Fatal(err)
		}
		ttls = append(ttls, int64(d/time.Second))
		if d < 0 {
			ttls[len(ttls)-1] = int64(d) // go-redis: −2 ns for no key, −1 ns for no expiry
		}
	}
	return ttls
}

// ratelab's spring.lua, called with Spring's own arguments, answers what
// Spring's RedisRateLimiterLuaScriptTests (spring-cloud-gateway-server-webflux/
// src/test/java/org/springframework/cloud/gateway/filter/ratelimit/, at
// 5227205c) expect of request_rate_limiter.lua, on this test's redis-server; and
// with now left empty it reads Redis TIME, as RedisRateLimiter.isAllowed has it
// do since 3.0.6.
func TestSpringScriptAsSpringCallsIt(t *testing.T) {
	s, err := redislua.Open(context.Background(), redistest.Start(t).URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := s.Client()
	now := time.Now().Unix()
	at := func(dt int64) string { return strconv.FormatInt(now+dt, 10) }

	// testNewAccess: rate 1, capacity 10, 1 requested: allowed, 9 left, both keys
	// kept for at least capacity / rate seconds (Spring's ttl is twice that)
	if got := springCall(t, c, "new_access", 1, 10, at(0), 1); !slices.Equal(got, []int64{1, 9}) {
		t.Errorf("testNewAccess: %v, want [1 9]", got)
	}
	for _, ttl := range springTTLs(t, c, "new_access") {
		if ttl < 10 {
			t.Errorf("testNewAccess: a key's TTL is %d s, want >= 10", ttl)
		}
	}
	// testTokenFilled: 5 of 10, then 3 s later (3 tokens back) 5 more: 3 left
	springCall(t, c, "token_filled", 1, 10, at(0), 5)
	if got := springCall(t, c, "token_filled", 1, 10, at(3), 5); !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("testTokenFilled: %v, want [1 3]", got)
	}
	for _, ttl := range springTTLs(t, c, "token_filled") {
		if ttl < 10 {
			t.Errorf("testTokenFilled: a key's TTL is %d s, want >= 10", ttl)
		}
	}
	// testAfterTillTime: a fill time (10 s) later the bucket is full again
	springCall(t, c, "after_fill_time", 1, 10, at(0), 1)
	if got := springCall(t, c, "after_fill_time", 1, 10, at(10), 1); !slices.Equal(got, []int64{1, 9}) {
		t.Errorf("testAfterTillTime: %v, want [1 9]", got)
	}
	// testTokensNotEnough: 20 requested of a capacity of 10: denied, 10 left
	if got := springCall(t, c, "tokens_not_enough", 1, 10, at(0), 20); !slices.Equal(got, []int64{0, 10}) {
		t.Errorf("testTokensNotEnough: %v, want [0 10]", got)
	}
	// testCapacityExceedsMaxInt: a capacity of 2^53 − 1 is exact on the Redis
	// Spring's test runs (redis:5.0.14-alpine); from Redis 7.0, SETEX refuses
	// its ttl (2^54 − 2 s, past what a millisecond clock holds), the script
	// fails, and RedisRateLimiter lets the request through with remaining −1
	const maxSafe = 1<<53 - 1
	keys := []string{"redis-rate-limiter-lua-script-tests.{capacity_exceeds_max_int}.tokens", "redis-rate-limiter-lua-script-tests.{capacity_exceeds_max_int}.timestamp"}
	got, err := c.Eval(context.Background(), redislua.Script("spring"), keys, 1, int64(maxSafe), at(0), 1).Int64Slice()
	if major := redisMajor(t, c); major >= 7 {
		if err == nil || !strings.Contains(err.Error(), "invalid expire time") {
			t.Errorf("testCapacityExceedsMaxInt on Redis %d: %v, %v; want SETEX's \"invalid expire time\"", major, got, err)
		}
	} else if !slices.Equal(got, []int64{1, maxSafe - 1}) {
		t.Errorf("testCapacityExceedsMaxInt: %v, %v; want [1 %d]", got, err, int64(maxSafe-1))
	}

	// now empty: the script reads Redis TIME and stores its second
	if got := springCall(t, c, "redis_time", 1, 10, "", 1); !slices.Equal(got, []int64{1, 9}) {
		t.Errorf("now from Redis TIME: %v, want [1 9]", got)
	}
	stamp, err := c.Get(context.Background(), "redis-rate-limiter-lua-script-tests.{redis_time}.timestamp").Int64()
	if err != nil || stamp < now || stamp > time.Now().Unix() {
		t.Errorf("now from Redis TIME stored timestamp %d (%v), want a second from %d to now", stamp, err, now)
	}

	// the ttl trap: replenishRate 3, burstCapacity 1 (a YAML route that sets
	// only replenish-rate: 3) is ttl floor(2/3) = 0: nothing is stored, and
	// every request is allowed
	for i := range 5 {
		if got := springCall(t, c, "ttl_trap", 3, 1, at(0), 1); !slices.Equal(got, []int64{1, 0}) {
			t.Errorf("ttl trap, request %d: %v, want [1 0]", i, got)
		}
	}
	if ttls := springTTLs(t, c, "ttl_trap"); !slices.Equal(ttls, []int64{-2, -2}) {
		t.Errorf("ttl trap: the keys' TTLs are %v, want none stored", ttls)
	}
}

// Spring's RedisRateLimiterLuaScriptTests as steps of the spring lane, in
// memory and as ratelab calls spring.lua on Redis: rate 1, capacity 10, the
// requested tokens as the cost, on the virtual clock in whole seconds.
func TestSpringLuaScriptTestsOnEveryBackend(t *testing.T) {
	p := algorithms.Policy{Limit: 1, Period: time.Second, Burst: 10}
	onEveryBackend(t, []string{"spring"}, p, func(t *testing.T, _ lane, lim algorithms.Limiter) {
		runSteps(t, lim, []step{
			{at: 0, key: "new_access", allowed: true, remaining: f(9)},
			{at: 0, key: "token_filled", cost: 5, allowed: true, remaining: f(5)},
			{at: 3 * time.Second, key: "token_filled", cost: 5, allowed: true, remaining: f(3)},
			{at: 0, key: "after_fill_time", allowed: true, remaining: f(9)},
			{at: 10 * time.Second, key: "after_fill_time", allowed: true, remaining: f(9)},
			{at: 0, key: "tokens_not_enough", cost: 20, allowed: false, retry: algorithms.Forever, remaining: f(10)},
			// whole seconds: 2.999 s after emptying, two tokens
			{at: 0, key: "seconds", cost: 10, allowed: true, remaining: f(0)},
			{at: ms(2999), key: "seconds", cost: 3, allowed: false, retry: time.Millisecond, remaining: f(2)},
			{at: 3 * time.Second, key: "seconds", cost: 3, allowed: true, remaining: f(0)},
		})
	})
}

// traefikSource is in_memory_limiter.go's Allow as Traefik's code reads, over
// golang.org/x/time/rate, with its ttlmap reduced to what a few sources need (a
// map of limiters and their expiries in whole Unix seconds, dropped when a
// request finds them expired), on a clock the test sets.
type traefikSource struct {
	rate     rate.Limit
	burst    int
	maxDelay time.Duration
	ttl      int
	buckets  map[string]*rate.Limiter
	expiry   map[string]int64
}

// newTraefikSource is New's derivation for average, period and burst.
func newTraefikSource(average int64, period time.Duration, burst int) *traefikSource {
	rtl := float64(average*int64(time.Second)) / float64(period)
	maxDelay, ttl := 500*time.Millisecond, 1
	if rtl >= 1 {
		maxDelay = time.Second / (time.Duration(rtl) * 2)
		ttl++
	} else {
		ttl += int(1 / rtl)
	}
	return &traefikSource{rate: rate.Limit(rtl), burst: burst, maxDelay: maxDelay, ttl: ttl, buckets: map[string]*rate.Limiter{}, expiry: map[string]int64{}}
}

// serve is Allow at now and ServeHTTP's verdict: served after delay, or 429.
func (s *traefikSource) serve(source string, now time.Time) (served bool, delay time.Duration) {
	bucket, exists := s.buckets[source]
	if exists && s.expiry[source] <= now.Unix() {
		exists = false
	}
	if !exists {
		bucket = rate.NewLimiter(s.rate, s.burst)
	}
	s.buckets[source], s.expiry[source] = bucket, now.Add(time.Duration(s.ttl)*time.Second).Unix()
	res := bucket.ReserveN(now, 1)
	delay = res.DelayFrom(now)
	if delay > s.maxDelay {
		res.CancelAt(now)
		return false, delay
	}
	return true, delay
}

// The traefik lane decides as Traefik's middleware: on seeded random policies
// and traces (clocks behind and ahead, idle hours, costs Traefik ignores), each
// request served or refused alike, with the same delay and, refused, a
// RetryAfter that is Traefik's X-Retry-In.
func TestTraefikLaneIsTraefiksMiddleware(t *testing.T) {
	compared := 0
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 4))
		p := randomPolicy(r)
		lane, _ := algorithms.New(algorithms.TraefikName, p, algorithms.Options{})
		traefik := newTraefikSource(p.Limit, p.Period, int(p.Burst))
		for i, q := range randomTrace(r, p, traceShape{n: 200, capacity: p.Burst, maxCost: p.Burst + 3, keys: 3, skewed: true, hours: true}) {
			d := lane.Allow(q.Key, q.Now, q.Cost)
			served, delay := traefik.serve(q.Key, algorithms.HeaderOrigin.Add(q.Now))
			if d.Allowed != served || (served && d.Delay != delay) || (!served && d.RetryAfter != delay) {
				t.Fatalf("seed %d, %s: request %d (%s at %v): lane %+v; Traefik served %v after %v", seed, p, i, q.Key, q.Now, d, served, delay)
			}
			compared++
		}
	}
	t.Logf("compared: %d decisions", compared)
}

// kongPlugin is the rate-limiting plugin's access phase as handler.lua and
// policies/init.lua read (Kong 3.11), with its counters in a map: shm:incr for
// local (a key lives while its expiry is ahead), the database's rows for
// cluster (policies/cluster.lua: INSERT … ttl = now + expiration ON CONFLICT
// DO UPDATE SET value = value + 1, the ttl kept; find reads a row while ttl
// >= now; the clean-up deletes rows whose ttl < its time, every 300 s from
// the start), Redis INCR-then-EXPIRE for redis (a key lives until the clock
// is past its expiry); increments landing at once.
type kongPlugin struct {
	policy   string
	limits   map[string]int64
	counters map[string]*kongCount
}

// kongCount is a counter: its value, and its expiry (local and redis: ms;
// cluster: the row's ttl, µs).
type kongCount struct{ value, expiresMS, ttlUS int64 }

// kongCleanupUS is the database clean-up's interval (ttl_cleanup_interval).
const kongCleanupUS = 300 * 1_000_000

var kongPeriods = []string{"second", "minute", "hour", "day", "month", "year"}
var kongExpiration = map[string]int64{"second": 1, "minute": 60, "hour": 3600, "day": 86400, "month": 2592000, "year": 31536000}

// timestamps is get_timestamps: each period's start, in Unix seconds.
func kongTimestamps(unix int64) map[string]int64 {
	t := time.Unix(unix, 0).UTC()
	y, mo, d := t.Date()
	return map[string]int64{
		"second": unix,
		"minute": time.Date(y, mo, d, t.Hour(), t.Minute(), 0, 0, time.UTC).Unix(),
		"hour":   time.Date(y, mo, d, t.Hour(), 0, 0, 0, time.UTC).Unix(),
		"day":    time.Date(y, mo, d, 0, 0, 0, 0, time.UTC).Unix(),
		"month":  time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC).Unix(),
		"year":   time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC).Unix(),
	}
}

// live says c is read at n µs (ms, its millisecond).
func (k *kongPlugin) live(c *kongCount, n, ms int64) bool {
	switch k.policy {
	case "cluster":
		return c.ttlUS >= n
	case "redis":
		return ms <= c.expiresMS
	}
	return ms < c.expiresMS
}

// inTable says the cluster's row c is still in the table at n µs: no clean-up
// (at 300 s, 600 s, … from the start) at or before n has found its ttl past.
func inTable(c *kongCount, n int64) bool {
	first := (c.ttlUS/kongCleanupUS + 1) * kongCleanupUS // the first clean-up with ttl < its time
	return n < first
}

// incr is shm:incr(key, 1, 0, ttl), the cluster's upsert or Redis INCR (+
// EXPIRE on 1) at n µs: the value after.
func (k *kongPlugin) incr(key, period string, n, ms int64) int64 {
	c, ok := k.counters[key]
	switch {
	case k.policy == "cluster" && ok && inTable(c, n): // ON CONFLICT: value + 1, the ttl kept
	case !ok || k.policy == "cluster" || !k.live(c, n, ms):
		c = &kongCount{expiresMS: ms + kongExpiration[period]*1000, ttlUS: n + kongExpiration[period]*1_000_000}
		k.counters[key] = c
	}
	c.value++
	return c.value
}

// access answers a request at n µs: allowed, and the headers RateLimit-Limit,
// RateLimit-Remaining, RateLimit-Reset (also Retry-After when refused).
func (k *kongPlugin) access(id string, n int64) (allowed bool, limit, remaining, reset int64) {
	unix := algorithms.HeaderOrigin.Unix() + n/1_000_000
	if n < 0 && n%1_000_000 != 0 {
		unix--
	}
	ms := n / 1000
	if n < 0 && n%1000 != 0 {
		ms--
	}
	stamps := kongTimestamps(unix)
	usage := map[string]int64{}
	stop := ""
	for _, period := range kongPeriods {
		lim, ok := k.limits[period]
		if !ok {
			continue
		}
		key := fmt.Sprintf("ratelimit:%s:%d:%s", id, stamps[period], period)
		var used int64
		if k.policy == "redis" {
			used = k.incr(key, period, n, ms) - 1
		} else if c, ok := k.counters[key]; ok && k.live(c, n, ms) {
			used = c.value
		}
		usage[period] = lim - used
		if lim-used <= 0 {
			stop = period
		}
	}
	window := int64(0)
	first := true
	for _, period := range kongPeriods {
		lim, ok := k.limits[period]
		if !ok {
			continue
		}
		cur := usage[period]
		if stop == "" || stop == period {
			cur--
		}
		cur = max(0, cur)
		if first || cur < remaining || (cur == remaining && kongExpiration[period] > window) {
			first, limit, window, remaining = false, lim, kongExpiration[period], cur
			reset = max(1, window-(unix-stamps[period]))
		}
	}
	if stop != "" {
		return false, limit, remaining, reset
	}
	if k.policy != "redis" {
		for _, period := range kongPeriods {
			if _, ok := k.limits[period]; ok {
				k.incr(fmt.Sprintf("ratelimit:%s:%d:%s", id, stamps[period], period), period, n, ms)
			}
		}
	}
	return true, limit, remaining, reset
}

// The kong lane decides as the plugin's code: on seeded random configs (every
// policy, the policy's window with others of the six, a longer one never below
// a shorter) and traces (clocks behind and ahead, idle hours, for half of them
// idle days: months, counters and rows that expire), the same
// answers and the same RateLimit-Limit, -Remaining, -Reset and Retry-After.
func TestKongLaneIsKongsPlugin(t *testing.T) {
	periods := []time.Duration{time.Second, time.Minute, time.Hour, 24 * time.Hour}
	compared := 0
	for seed := uint64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		which := algorithms.KongPolicy(r.IntN(3))
		w := r.IntN(len(periods))
		p := algorithms.Policy{Limit: 1 + r.Int64N(20), Period: periods[w]}
		plugin := &kongPlugin{policy: which.String(), limits: map[string]int64{kongPeriods[w]: p.Limit}, counters: map[string]*kongCount{}}
		o := algorithms.Options{KongPolicy: which}
		limit := p.Limit
		for other := w + 1; other < len(kongPeriods); other++ { // longer windows, never below
			if r.IntN(3) == 0 {
				limit += r.Int64N(3 * limit)
				o.KongWindows[other], plugin.limits[kongPeriods[other]] = limit, limit
			}
		}
		lane, err := algorithms.New(algorithms.KongName, p, o)
		if err != nil {
			t.Fatalf("seed %d, %s, %+v: %v", seed, p, o.KongWindows, err)
		}
		for i, q := range randomTrace(r, p, traceShape{n: 200, capacity: p.Limit, maxCost: 3, keys: 3, skewed: true, hours: true, days: seed%2 == 0}) {
			d := lane.Allow(q.Key, q.Now, q.Cost)
			allowed, lim, rem, reset := plugin.access(q.Key, algorithms.Micros(q.Now))
			want := algorithms.Decision{Allowed: allowed, Limit: lim, Remaining: float64(rem), ResetAfter: time.Duration(reset) * time.Second}
			if !allowed {
				want.RetryAfter = want.ResetAfter
			}
			d.Windows = nil // the plugin's model answers for the window shown; each window's own is the headers' (TestKongHeaders)
			if !reflect.DeepEqual(d, want) {
				t.Fatalf("seed %d, %s policy, %s, %+v: request %d (%s at %v): lane %+v, plugin %+v", seed, which, p, o.KongWindows, i, q.Key, q.Now, d, want)
			}
			compared++
		}
	}
	t.Logf("compared: %d decisions", compared)
}

// redisMajor is the server's major version.
func redisMajor(t *testing.T, c redis.UniversalClient) int {
	t.Helper()
	info, err := c.Info(context.Background(), "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	_, v, _ := strings.Cut(info, "redis_version:")
	major, err := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	if err != nil {
		t.Fatalf("redis_version in %q: %v", info, err)
	}
	return major
}
