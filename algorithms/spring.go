package algorithms

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode"
)

// SpringName is Spring Cloud Gateway's RedisRateLimiter as a lane, in scenario
// files and on the command line.
const SpringName Name = "spring"

// springPort is scripts/spring.lua: two Redis keys per key, as Spring keeps them
// (request_rate_limiter.{id}.tokens and .timestamp); Args replenishRate,
// burstCapacity, requestedTokens per unit of cost. Its reply is a bucket's (see
// bucketReply) with the tokens as Spring counts them.
var springPort = &RedisPort{Script: "spring", KeySuffixes: []string{".tokens", ".timestamp"}, Call: func(p Policy, _ Options) ScriptCall {
	c := SpringConfigOf(p)
	call := callOf(c.ReplenishRate, c.BurstCapacity, c.RequestedTokens)
	units := func(tokens int64) float64 { return float64(tokens) / float64(c.RequestedTokens) }
	call.Decision = bucketReply(p, p.Burst, units)
	call.Level = func(r []int64) float64 { return units(r[1]) }
	return call
}}

// springStatus is RequestRateLimiterGatewayFilterFactory's answer (apply, at
// 5227205c): the request goes on to the route, or the filter sets
// Config.statusCode (the lane's deny_status; default
// HttpStatus.TOO_MANY_REQUESTS) and completes the response with no body; the
// word is the HttpStatus's name.
func springStatus(d Decision, o Options) (int, string) {
	if d.Allowed {
		return http.StatusOK, "allowed"
	}
	if o.DenyStatus != 0 {
		return o.DenyStatus, SpringStatusName(o.DenyStatus)
	}
	return http.StatusTooManyRequests, "TOO_MANY_REQUESTS"
}

// springOptions are the Spring lane's scenario keys.
var springOptions = []Option{
	{Key: "deny_status", Doc: "the HTTP status of a refusal, the filter's statusCode (an HttpStatus from 400 to 599); default 429",
		set: func(o Options) string { return setIf(o.DenyStatus != 0, "deny_status") }},
}

// springStatuses are Spring's HttpStatus constants from 400 to 599
// (spring-projects/spring-framework: spring-web/src/main/java/org/
// springframework/http/HttpStatus.java), the statuses a refusal can be given;
// where two names share a code, the first is the one HttpStatus.valueOf gives.
var springStatuses = []struct {
	Code int
	Name string
}{
	{400, "BAD_REQUEST"}, {401, "UNAUTHORIZED"}, {402, "PAYMENT_REQUIRED"}, {403, "FORBIDDEN"}, {404, "NOT_FOUND"},
	{405, "METHOD_NOT_ALLOWED"}, {406, "NOT_ACCEPTABLE"}, {407, "PROXY_AUTHENTICATION_REQUIRED"}, {408, "REQUEST_TIMEOUT"},
	{409, "CONFLICT"}, {410, "GONE"}, {411, "LENGTH_REQUIRED"}, {412, "PRECONDITION_FAILED"}, {413, "PAYLOAD_TOO_LARGE"},
	{413, "REQUEST_ENTITY_TOO_LARGE"}, {414, "URI_TOO_LONG"}, {414, "REQUEST_URI_TOO_LONG"}, {415, "UNSUPPORTED_MEDIA_TYPE"},
	{416, "REQUESTED_RANGE_NOT_SATISFIABLE"}, {417, "EXPECTATION_FAILED"}, {418, "I_AM_A_TEAPOT"},
	{419, "INSUFFICIENT_SPACE_ON_RESOURCE"}, {420, "METHOD_FAILURE"}, {421, "DESTINATION_LOCKED"},
	{422, "UNPROCESSABLE_ENTITY"}, {423, "LOCKED"}, {424, "FAILED_DEPENDENCY"}, {425, "TOO_EARLY"}, {426, "UPGRADE_REQUIRED"},
	{428, "PRECONDITION_REQUIRED"}, {429, "TOO_MANY_REQUESTS"}, {431, "REQUEST_HEADER_FIELDS_TOO_LARGE"},
	{451, "UNAVAILABLE_FOR_LEGAL_REASONS"}, {500, "INTERNAL_SERVER_ERROR"}, {501, "NOT_IMPLEMENTED"}, {502, "BAD_GATEWAY"},
	{503, "SERVICE_UNAVAILABLE"}, {504, "GATEWAY_TIMEOUT"}, {505, "HTTP_VERSION_NOT_SUPPORTED"}, {506, "VARIANT_ALSO_NEGOTIATES"},
	{507, "INSUFFICIENT_STORAGE"}, {508, "LOOP_DETECTED"}, {509, "BANDWIDTH_LIMIT_EXCEEDED"}, {510, "NOT_EXTENDED"},
	{511, "NETWORK_AUTHENTICATION_REQUIRED"},
}

// SpringStatusName is the name of Spring's HttpStatus code; "" when Spring
// has none from 400 to 599.
func SpringStatusName(code int) string {
	for _, s := range springStatuses {
		if s.Code == code {
			return s.Name
		}
	}
	return ""
}

// SpringStatusCode is the code of the HttpStatus called name, read as Spring
// Boot binds an enum (leniently: letters and digits, any case); false when there is none from 400
// to 599.
func SpringStatusCode(name string) (int, bool) {
	n := springCanonical(name)
	for _, s := range springStatuses {
		if springCanonical(s.Name) == n {
			return s.Code, true
		}
	}
	return 0, false
}

// springCanonical is Spring Boot's LenientObjectToEnumConverterFactory's
// getCanonicalName: the letters and digits of name, lower-cased, so
// TOO_MANY_REQUESTS, too-many-requests and TooManyRequests bind alike.
func springCanonical(name string) string {
	var b strings.Builder
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// springMaxInt and springMaxBurst are the largest replenishRate and
// requestedTokens (Java ints) and burstCapacity (RedisRateLimiter's
// REDIS_LUA_MAX_SAFE_INTEGER) Spring takes.
const (
	springMaxInt   = math.MaxInt32
	springMaxBurst = 1<<53 - 1
	// springMaxTTL is the longest SETEX Redis 7 takes at any date before 2286
	// (now in ms + ttl × 1000 must fit an int64; t_string.c, getExpireMillisecondsOrReply)
	springMaxTTL = (math.MaxInt64 - 10_000_000_000_000) / 1000
)

// SpringConfig is a policy as Spring Cloud Gateway's RedisRateLimiter.Config
// states it: replenishRate whole tokens added every second, burstCapacity tokens
// at most, requestedTokens per request. Spring has no rate below one token a
// second and no fraction of a token; a limit that is not a whole number of
// tokens a second is written as Spring's own documentation writes 1 request a
// minute (replenishRate 1, requestedTokens 60, burstCapacity 60): every request
// takes k tokens, the rate is k × limit / period a second and the capacity
// k × burst, with k the smallest that makes the rate whole.
type SpringConfig struct {
	ReplenishRate   int64 // tokens added per whole second
	BurstCapacity   int64 // the most tokens a key holds
	RequestedTokens int64 // tokens one unit of cost takes
}

// SpringConfigOf is p as Spring states it (p must pass checkSpringPolicy: its
// numbers fit Spring's types). k = period in µs / gcd(limit × 10⁶, period in µs).
func SpringConfigOf(p Policy) SpringConfig {
	c, _ := springConfig(p)
	return c
}

// springConfig is SpringConfigOf, and an error when Spring's types cannot hold
// the result.
func springConfig(p Policy) (SpringConfig, error) {
	p = p.WithDefaults()
	periodUS := int64(p.Period / Resolution)
	// gcd(limit × 10⁶, period) = gcd(limit, period) × gcd(10⁶, period / gcd(limit, period)),
	// without the product that could overflow
	g1 := gcd(p.Limit, periodUS)
	g2 := gcd(1_000_000, periodUS/g1)
	k, perLimit := periodUS/g1/g2, int64(1_000_000)/g2
	c := SpringConfig{RequestedTokens: k}
	switch {
	case p.Limit/g1 > springMaxInt/perLimit:
		return c, fmt.Errorf("%s is more than %d tokens a second: Spring's replenishRate is an int, at most %d", p, springMaxInt, springMaxInt)
	case k > springMaxInt:
		return c, fmt.Errorf("%s takes requestedTokens %d to state in whole tokens a second; Spring's requestedTokens is an int, at most %d: use a period that shares more factors with the limit", p, k, springMaxInt)
	case p.Burst > springMaxBurst/k:
		return c, fmt.Errorf("%s is burstCapacity %d × %d tokens, more than Spring's largest, %d", p, p.Burst, k, int64(springMaxBurst))
	}
	c.ReplenishRate, c.BurstCapacity = p.Limit/g1*perLimit, p.Burst*k
	if ttl := c.TTL(); ttl > springMaxTTL {
		return c, fmt.Errorf("%s is Spring's ttl floor(2 × %d / %d) = %d s, past Redis's millisecond clock: from Redis 7.0 SETEX refuses it, the script fails and Spring lets every request through; use a shorter period or a smaller burst", p, c.BurstCapacity, c.ReplenishRate, ttl)
	}
	return c, nil
}

// checkSpringPolicy refuses a policy whose Spring numbers do not fit Spring's
// types, and a deny_status no HttpStatus from 400 to 599 has (an *OptionError).
func checkSpringPolicy(p Policy, o Options) error {
	if s := o.DenyStatus; s != 0 && SpringStatusName(s) == "" {
		return &OptionError{"deny_status", fmt.Errorf("deny_status (the filter's statusCode) must be one of Spring's HttpStatus codes from 400 to 599, 429 by default (got %d)", s)}
	}
	_, err := springConfig(p)
	return err
}

// TTL is the expiry, in seconds, request_rate_limiter.lua gives both keys:
// math.floor(capacity / rate * 2) in the script's doubles. 0 when replenishRate
// is more than twice burstCapacity: the script's "if ttl > 0" then writes
// nothing, so every request finds a full bucket and nothing is limited.
func (c SpringConfig) TTL() int64 {
	return int64(math.Floor(float64(c.BurstCapacity) / float64(c.ReplenishRate) * 2))
}

// Spring is Spring Cloud Gateway's RedisRateLimiter (spring-cloud/spring-cloud-
// gateway at 5227205c, v5.0.x: spring-cloud-gateway-server-webflux/src/main/
// resources/META-INF/scripts/request_rate_limiter.lua and filter/ratelimit/
// RedisRateLimiter.java: isAllowed, getHeaders, Config), one token bucket per
// key, in the script's own steps. The policy is SpringConfigOf(p):
// replenishRate, burstCapacity, and requestedTokens = k × the request's cost.
//
// The clock is whole seconds: now = Redis TIME[1] (since 3.0.6; before, the
// gateway's epoch second), here the request's time floored to the second. The
// run's origin stands for HeaderOrigin, a whole Unix second, so the seconds
// counted from it floor exactly where Unix seconds do.
//
// The model. A key's state is its two Redis keys: tokens (default
// burstCapacity) and timestamp (default 0). A request at second now sees
// filled = min(capacity, tokens + max(0, now − timestamp) × rate); it is allowed
// when filled ≥ requested and then takes them; either way, allowed or not, both
// keys are written back (filled or filled − requested, and now) with SETEX ttl,
// ttl = TTL(). Tokens arrive in whole-second steps of replenishRate: a key
// emptied at 0.999 s holds rate tokens at 1.000 s. A denied request changes
// nothing but the stored second; a request from a clock behind sees the
// stored tokens (max(0, …)) and stores its own, earlier second.
//
// The ttl trap: with replenishRate > 2 × burstCapacity, ttl is 0 and the
// script stores nothing, so every request finds a full bucket: the lane
// limits nothing but a cost above the capacity. It still answers as Spring
// does: remaining burstCapacity − requested, which is not what the next
// request finds. Spring 3.1.5 and 4.0.1 added a check that burstCapacity ≥
// replenishRate (Config.setBurstCapacity), but it runs only if
// replenishRate is set first: a YAML route binds burst-capacity first, and
// one that leaves it out keeps the default burstCapacity 1, so
// replenish-rate: 3 alone (ttl = floor(2 / 3) = 0) limits nothing.
//
// Expiry. The keys expire ttl seconds after they are written (Redis: gone
// once its millisecond clock is past the write's plus ttl × 1000), measured
// here on the request's clock. An expired key reads as a new one: full. That
// changes no decision — a key gone by then has seen at least ttl ≥ capacity /
// rate whole seconds pass, so it would have refilled anyway — but it is what
// Redis holds: Evict forgets expired keys, and nothing else.
//
// Decision: Remaining is the tokens the script returns (X-RateLimit-Remaining)
// over k, in units of cost; Limit the burst; a denial's RetryAfter is until
// the first whole second at which the stored tokens reach the request's
// (Forever above the capacity); ResetAfter until the bucket is full (0 in the
// ttl trap). Not modelled: Redis errors (Spring lets the request through with
// remaining −1; a lane's on_error says what a Redis lane does), an empty key
// (403 by denyEmptyKey).
type Spring struct {
	policy Policy
	cfg    SpringConfig
	ttl    int64 // seconds
	keyed[SpringState]
}

// SpringState is one key's two Redis keys and when they were written.
type SpringState struct {
	Tokens  int64 // the tokens key
	Stamp   int64 // the timestamp key: whole seconds from the origin
	WroteMS int64 // when both were written (SETEX), ms from the origin
}

// springKeyBytes is what a key's state costs beyond its name, which it holds
// twice: the suffixes ".tokens" and ".timestamp" and two numbers.
const springKeyBytes = len(".tokens") + len(".timestamp") + 16

// NewSpring returns Spring's RedisRateLimiter enforcing p.
func NewSpring(p Policy) *Spring {
	p = p.WithDefaults()
	c := SpringConfigOf(p)
	return &Spring{policy: p, cfg: c, ttl: c.TTL(), keyed: newKeyed[SpringState]()}
}

func (s *Spring) Algorithm() Name { return SpringName }
func (s *Spring) Policy() Policy  { return s.policy }

// StateBytes counts each key's name twice (Spring's two Redis keys).
func (s *Spring) StateBytes() int64 {
	return 2*s.keyBytes + int64(s.Keys())*int64(springKeyBytes)
}

// Config is the policy as Spring states it.
func (s *Spring) Config() SpringConfig { return s.cfg }

// read is key's state at n (µs) as the script's GETs find it: stored, or a new
// key's (tokens = capacity, timestamp 0) when there is none or it has expired.
func (s *Spring) read(key string, n int64) SpringState {
	if st, ok := s.state(key); ok && !s.expired(*st, n) {
		return *st
	}
	return SpringState{Tokens: s.cfg.BurstCapacity}
}

// expired says st's keys are gone from Redis at n (µs): its clock, in ms, is
// past the write's plus ttl seconds.
func (s *Spring) expired(st SpringState, n int64) bool {
	return floorDiv(n, 1000) > st.WroteMS+s.ttl*1000
}

// filled is the script's filled_tokens at second now.
func (s *Spring) filled(st SpringState, now int64) int64 {
	delta := max(0, now-st.Stamp)
	missing := s.cfg.BurstCapacity - st.Tokens
	if missing <= 0 || delta >= ceilDiv(missing, s.cfg.ReplenishRate) {
		return s.cfg.BurstCapacity
	}
	return st.Tokens + delta*s.cfg.ReplenishRate
}

// decide is the script on st at n (µs) for cost: the decision and the keys it
// writes (none when ttl is 0).
func (s *Spring) decide(st SpringState, key string, n, cost int64) (Decision, SpringState, bool) {
	now := floorDiv(n, int64(time.Second/Resolution))
	requested := cost * s.cfg.RequestedTokens
	filled := s.filled(st, now)
	d := Decision{Limit: s.policy.Burst, Allowed: filled >= requested}
	left := filled
	if d.Allowed {
		left -= requested
	}
	d.Remaining = float64(left) / float64(s.cfg.RequestedTokens)
	// until the whole second at which the tokens stored now reach want, in µs
	until := func(want int64) int64 {
		return (now+ceilDiv(want-left, s.cfg.ReplenishRate))*int64(time.Second/Resolution) - n
	}
	switch {
	case d.Allowed:
	case requested > s.cfg.BurstCapacity:
		d.RetryAfter = Forever
	default:
		d.RetryAfter = jitter(until(requested), JitterFactor(key, s.policy.RetryJitter))
	}
	if s.ttl > 0 && left < s.cfg.BurstCapacity {
		d.ResetAfter = fromMicros(until(s.cfg.BurstCapacity))
	}
	return d, SpringState{Tokens: left, Stamp: now, WroteMS: floorDiv(n, 1000)}, s.ttl > 0
}

// Allow runs the script for key at now: requestedTokens = cost × k.
func (s *Spring) Allow(key string, now time.Duration, cost int64) Decision {
	n := toMicros(now)
	d, next, write := s.decide(s.read(key, n), key, n, cost)
	if write {
		if st, ok := s.state(key); ok {
			*st = next
		} else {
			s.add(key, &next)
		}
	}
	return d
}

// Check is what Allow would decide, and changes nothing.
func (s *Spring) Check(key string, now time.Duration, cost int64) Decision {
	n := toMicros(now)
	d, _, _ := s.decide(s.read(key, n), key, n, cost)
	return d
}

// Level is the tokens key's bucket holds at now, in units of cost.
func (s *Spring) Level(key string, now time.Duration) float64 {
	n := toMicros(now)
	return float64(s.filled(s.read(key, n), floorDiv(n, int64(time.Second/Resolution)))) / float64(s.cfg.RequestedTokens)
}

// Evict forgets the keys Redis has expired by now (see Spring).
func (s *Spring) Evict(now time.Duration) int {
	n := toMicros(now)
	return s.evict(func(st *SpringState) bool { return s.expired(*st, n) })
}
