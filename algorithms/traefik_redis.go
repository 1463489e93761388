package algorithms

import (
	"math"
	"strconv"
	"time"
)

// TraefikRedisName is Traefik's rateLimit middleware with its redis option (the
// distributed mode, v3.4+) as a lane, in scenario files and on the command line.
const TraefikRedisName Name = "traefik-redis"

// traefikRedisPort is scripts/traefik_redis.lua: AllowTokenBucketRaw's steps on
// one hash per key. Args: the rate per µs (a double), burst, Traefik's ttl in
// seconds, maxDelay in whole µs and in ns, the origin's Unix µs. Its reply is
// {allowed, the delay in ns as Traefik's Go reads it, the tokens left as
// mantissa × 2^53 and exponent (math.frexp: a double, exactly)}; the decision
// is made from the delay, as Traefik's Go makes it.
var traefikRedisPort = &RedisPort{Script: "traefik_redis", Call: func(p Policy, _ Options) ScriptCall {
	tr := NewTraefikRedis(p)
	call := callOf(tr.perMicro, tr.burst, tr.cfg.TTL, tr.maxDelayUS, int64(tr.cfg.MaxDelay), HeaderOrigin.UnixMicro())
	call.Decision = func(key string, r []int64) Decision {
		return tr.decision(key, time.Duration(r[1]), math.Ldexp(float64(r[2]), int(r[3])-53))
	}
	call.Level = func(r []int64) float64 { return math.Ldexp(float64(r[2]), int(r[3])-53) }
	return call
}}

// TraefikRedis is Traefik's rateLimit middleware in its Redis mode (traefik/
// traefik at fd5a576d, v3.7: pkg/middlewares/ratelimiter/lua.go
// AllowTokenBucketRaw, redis_limiter.go evaluateScript, rate_limiter.go New and
// ServeHTTP): the script's steps, in its doubles, on the hash it keeps per
// source (rate:<middleware>:<source>, {last, tokens}), kept here in memory, or
// on Redis through its port. Average is Limit, period Period, burst Burst;
// rate, maxDelay and ttl are New's (TraefikConfigOf).
//
// The model, a request at t, the instance's own clock in Unix µs
// (time.Now().UnixMicro(); here HeaderOrigin + now, so a lane's clock =
// "client" gives each node's): a source with no hash has tokens 0 and last 0;
// last = min(last, t) (a clock behind is clamped, and stored); tokens =
// min(burst, tokens + rate/1e6 × (t − last)) − 1, a double; a new source's
// elapsed time is all of Unix time, so it starts full (unless its burst
// is above rate × the seconds since 1970). wait = −tokens / (rate
// per µs) when tokens < 0, else 0; when wait > maxDelay in whole µs the token is
// given back (min(burst, tokens + 1)). HSET last t, tokens; EXPIRE ttl — on every
// call, refusals too. One token a request, whatever its cost.
//
// The verdict is Traefik's Go, not the script's: the script returns
// tostring(wait), which Lua writes with 14 significant digits; Go parses it,
// makes it a time.Duration of wait × 1000 ns (truncated) and refuses when that
// is above maxDelay in nanoseconds. So where the script restored the token
// (wait above maxDelay's whole µs) and Go serves (the wait at most maxDelay in
// ns: a rate whose maxDelay is not whole µs, 3 a second's 166,666.666 µs), the
// request is served after its wait and its token is back: every request in
// that sub-µs window is served. The in-memory middleware (traefik) charges
// those. A refusal's RetryAfter is the delay (X-Retry-In), a served request's
// Delay the wait Traefik sleeps.
//
// Expiry: EXPIRE ttl s on every call, counted here on the request's clock to
// the millisecond (Redis drops the key once its clock is past the expiry): a
// source idle longer than ttl s starts full. The in-memory middleware's TTL
// map counts whole Unix seconds instead (an idle spell in (ttl − 1, ttl] may
// reset it) and keeps at most 65,536 sources; Redis keeps every one. With
// several instances on skewed clocks Redis expires on its own clock, which the
// lane does not have: it uses the caller's.
//
// Time going backwards: t < last is clamped (no refill) and stored, so the
// hash's last moves back. Eviction forgets expired sources (which decide as
// new ones).
type TraefikRedis struct {
	policy     Policy
	cfg        TraefikConfig
	perMicro   float64 // rate / 1e6, as evaluateScript passes it
	burst      int64
	maxDelayUS int64
	keyed[TraefikRedisState]
}

// TraefikRedisState is a source's hash: last (Unix µs, as the script stores
// it), tokens (a double), and when the key expires (ms from the origin on the
// caller's clock).
type TraefikRedisState struct {
	Last      int64
	Tokens    float64
	ExpiresMS int64
}

// traefikRedisStateBytes is a hash of two fields, last and tokens, each a
// name and a number.
const traefikRedisStateBytes = 4 + 6 + 2*8

// NewTraefikRedis returns Traefik's Redis-mode middleware enforcing p.
func NewTraefikRedis(p Policy) *TraefikRedis {
	p = p.WithDefaults()
	c := TraefikConfigOf(p)
	return &TraefikRedis{policy: p, cfg: c, perMicro: float64(c.Rate / 1000000), burst: p.Burst,
		maxDelayUS: c.MaxDelay.Microseconds(), keyed: newKeyed[TraefikRedisState]()}
}

func (tr *TraefikRedis) Algorithm() Name { return TraefikRedisName }
func (tr *TraefikRedis) Policy() Policy  { return tr.policy }
func (tr *TraefikRedis) StateBytes() int64 {
	return tr.keyBytes + int64(tr.Keys())*traefikRedisStateBytes
}

// Config is what Traefik derives from the policy.
func (tr *TraefikRedis) Config() TraefikConfig { return tr.cfg }

// live is key's hash at n µs, and false when it has none (never made, or
// expired).
func (tr *TraefikRedis) live(key string, n int64) (*TraefikRedisState, bool) {
	s, ok := tr.state(key)
	if !ok || floorDiv(n, 1000) > s.ExpiresMS {
		return nil, false
	}
	return s, true
}

// script is AllowTokenBucketRaw on the hash s (nil: none) at n µs: the state
// it writes, the wait in µs (a double) and the delay Traefik's Go reads from it.
func (tr *TraefikRedis) script(s *TraefikRedisState, n int64) (TraefikRedisState, float64, time.Duration) {
	t, tokens := tr.refilled(s, n)
	tokens = tokens - 1
	wait := 0.0
	if tokens < 0 {
		wait = (tokens * -1) / tr.perMicro
		if wait > float64(tr.maxDelayUS) {
			tokens = tokens + 1
			tokens = luaMin(tokens, float64(tr.burst))
		}
	}
	// Go: strconv.ParseFloat(tostring(wait)), then time.Duration(delay * 1µs)
	read, _ := strconv.ParseFloat(strconv.FormatFloat(wait, 'g', 14, 64), 64)
	return TraefikRedisState{Last: t, Tokens: tokens, ExpiresMS: floorDiv(n, 1000) + tr.cfg.TTL*1000}, wait, time.Duration(read * float64(time.Microsecond))
}

// refilled is the script's t (Unix µs) at n µs and the tokens of the hash s
// (nil: none) refilled to it: min(burst, tokens + rate per µs × (t − last)),
// last clamped to t.
func (tr *TraefikRedis) refilled(s *TraefikRedisState, n int64) (int64, float64) {
	t := HeaderOrigin.UnixMicro() + n
	last, tokens := int64(0), 0.0
	if s != nil {
		last, tokens = s.Last, s.Tokens
	}
	last = min(last, t)
	tokens = tokens + tr.perMicro*float64(t-last)
	return t, luaMin(tokens, float64(tr.burst))
}

// luaMin is Lua 5.1's math.min(a, b): a unless b is less.
func luaMin(a, b float64) float64 {
	if b < a {
		return b
	}
	return a
}

// decision is ServeHTTP's verdict on a delay, the hash holding tokens after
// the script.
func (tr *TraefikRedis) decision(key string, delay time.Duration, tokens float64) Decision {
	d := traefikVerdict(tr.policy, tr.cfg.MaxDelay, key, delay, tokens)
	if missing := float64(tr.burst) - tokens; missing > 0 {
		d.ResetAfter = fromMicros(int64(math.Ceil(missing / tr.perMicro)))
	}
	return d
}

// Allow runs the script for key at now and answers as Traefik's Go does.
func (tr *TraefikRedis) Allow(key string, now time.Duration, _ int64) Decision {
	n := toMicros(now)
	s, _ := tr.live(key, n)
	next, _, delay := tr.script(s, n)
	if st, ok := tr.state(key); ok {
		*st = next
	} else {
		tr.add(key, &next)
	}
	return tr.decision(key, delay, next.Tokens)
}

// Check is what Allow would decide, and changes nothing.
func (tr *TraefikRedis) Check(key string, now time.Duration, _ int64) Decision {
	n := toMicros(now)
	s, _ := tr.live(key, n)
	next, _, delay := tr.script(s, n)
	return tr.decision(key, delay, next.Tokens)
}

// Level is the tokens key's hash holds at now, refilled to it (a full bucket
// for a source with none).
func (tr *TraefikRedis) Level(key string, now time.Duration) float64 {
	n := toMicros(now)
	s, _ := tr.live(key, n)
	_, tokens := tr.refilled(s, n)
	return tokens
}

// Evict forgets sources whose hash has expired at now.
func (tr *TraefikRedis) Evict(now time.Duration) int {
	ms := floorDiv(toMicros(now), 1000)
	return tr.evict(func(s *TraefikRedisState) bool { return ms > s.ExpiresMS })
}
