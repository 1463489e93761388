package algorithms

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// EnvoyGlobalName is Envoy's global rate limiting (the envoy.filters.http.ratelimit
// filter asking envoyproxy/ratelimit, the rate limit service) as a lane, in
// scenario files and on the command line.
const EnvoyGlobalName Name = "envoy-global"

// envoyGlobalOptions are the Envoy global lane's scenario keys.
var envoyGlobalOptions = []Option{
	{Key: "shadow_mode", Doc: "the descriptor's shadow_mode: a request over the limit is answered OK (and counted, as every request is); its decision is Allowed with Shadow = ShadowRefused; default false",
		set: func(o Options) string { return setIf(o.ShadowMode, "shadow_mode") }},
}

// envoyGlobalUnit is one of the rate limit service's units and its divider in
// seconds (src/utils/utilities.go: UnitToDivider).
type envoyGlobalUnit struct {
	name    string
	seconds int64
}

// envoyGlobalUnits are the units a rate_limit may be written in: a month is 30
// days and a year 365, as UnitToDivider has them, not calendar months or years.
var envoyGlobalUnits = []envoyGlobalUnit{
	{"second", 1}, {"minute", 60}, {"hour", 3600}, {"day", 86400},
	{"week", 7 * 86400}, {"month", 30 * 86400}, {"year", 365 * 86400},
}

// envoyGlobalStatusOK and envoyGlobalStatusOver are what Envoy's ratelimit
// filter sends: an OK is handed on to the upstream (200 here); an OVER_LIMIT is
// answered 429 (its rate_limited_status default, which the lane does not change).
const (
	envoyGlobalStatusOK   = 200
	envoyGlobalStatusOver = 429
)

// CheckEnvoyGlobalPolicy refuses a policy the rate limit service cannot be
// configured with: its period must be one of the service's units (a
// rate_limit's unit), and its limit, requests_per_unit, a uint32.
func CheckEnvoyGlobalPolicy(p Policy, _ Options) error {
	if _, ok := envoyGlobalDivider(p.Period); !ok {
		units := make([]string, len(envoyGlobalUnits))
		for i, u := range envoyGlobalUnits {
			units[i] = fmt.Sprintf("%s (%s)", u.name, time.Duration(u.seconds)*time.Second)
		}
		return fmt.Errorf("period %s is not a unit of Envoy's rate limit service; use one of %s (a month is 30 days, a year 365), with the limit as requests_per_unit", p.Period, strings.Join(units, ", "))
	}
	if p.Limit > math.MaxUint32 {
		return fmt.Errorf("limit %d is more than Envoy's requests_per_unit holds (a uint32, at most %d)", p.Limit, uint32(math.MaxUint32))
	}
	return nil
}

// envoyGlobalDivider is the divider in seconds of the unit period is, if it is one.
func envoyGlobalDivider(period time.Duration) (int64, bool) {
	for _, u := range envoyGlobalUnits {
		if period == time.Duration(u.seconds)*time.Second {
			return u.seconds, true
		}
	}
	return 0, false
}

// envoyGlobalStatus is what Envoy answers and the service counts for d: OK
// (handed on, 200 here), OVER_LIMIT (429), or, under shadow_mode, a request over
// the limit answered OK and counted in the service's shadow_mode stat, the word
// logged for it.
func envoyGlobalStatus(d Decision, _ Options) (int, string) {
	switch {
	case d.Shadow == ShadowRefused:
		return envoyGlobalStatusOK, "shadow_mode"
	case d.Allowed:
		return envoyGlobalStatusOK, "OK"
	}
	return envoyGlobalStatusOver, "OVER_LIMIT"
}

// envoyGlobalPort is scripts/envoy_global.lua: a hash per key, w and n = the
// latest window's start (Unix seconds) and its count, pw and pn = the window
// before it a request counted in and its count; Args limit, divider_s,
// origin_unix, shadow. Its reply is {allowed, remaining, retry_us (−1: never),
// reset_us, 0, over}.
var envoyGlobalPort = &RedisPort{Script: "envoy_global", Call: func(p Policy, o Options) ScriptCall {
	div, _ := envoyGlobalDivider(p.Period) // CheckEnvoyGlobalPolicy read it
	call := callOf(p.Limit, div, HeaderOrigin.Unix(), bit(o.ShadowMode))
	call.Decision = func(key string, r []int64) Decision {
		d := Decision{Allowed: r[0] == 1, Limit: p.Limit, Remaining: float64(r[1]), ResetAfter: microsToDuration(r[3])}
		if r[5] == 1 && d.Allowed {
			d.Shadow = ShadowRefused
		}
		replyRetry(&d, p, key, r[2])
		return d
	}
	call.Level = func(r []int64) float64 { return plainUnits(r[1]) }
	return call
}}

// EnvoyGlobal is a descriptor's rate_limit in envoyproxy/ratelimit, the rate
// limit service Envoy's global ratelimit filter asks (at f2fb1577: src/limiter/
// cache_key.go GenerateCacheKey; src/utils/utilities.go UnitToDivider,
// CalculateReset; src/redis/fixed_cache_impl.go DoLimit; src/limiter/
// base_limiter.go GetResponseDescriptorStatus; src/service/ratelimit.go
// shouldRateLimitWorker), one counter per key, as the service keeps them in
// Redis.
//
// The model. The policy is unit = Period, which must be one of the service's
// units (CheckEnvoyGlobalPolicy), and requests_per_unit = Limit; Burst is not
// used. The service's clock is Unix time in whole seconds: the run's origin is
// HeaderOrigin (2026-01-01T00:00:00Z, a Thursday at midnight) and a request at
// now reads originUnix + floor(now / 1s). Its window is the cache key's suffix,
// floor(unix / divider) × divider: windows are aligned to the Unix epoch, so a
// week starts on Thursday 00:00 UTC, a "month" is a 30-day block (the one the
// origin falls in began 2025-12-08, the next 2026-01-07) and a "year" a 365-day
// one (2025-12-18 to 2026-12-18); seconds to weeks start at the origin.
//
// Every request adds its cost (hits_addend) to its window's count, INCRBY,
// denied or not; then after = the count, and the request is OVER_LIMIT when
// after > Limit, else OK with remaining Limit − after. So a client that keeps
// sending stays over until its window turns, and a cost above the limit is
// never accepted (RetryAfter Forever). A denial's RetryAfter is the time to the
// window's end, to the µs (or to the next one's, when a clock ahead has already
// filled it); ResetAfter is the time to the window's end for every decision (the service's
// duration_until_reset is divider − unix mod divider, which this rounds up to
// whole seconds).
//
// shadow_mode: OVER_LIMIT is rewritten to OK, the request still counted; its
// Decision is Allowed with Shadow = ShadowRefused and Remaining 0.
//
// Not modelled, because they change no decision of one descriptor: the local
// cache (LOCAL_CACHE_SIZE_IN_BYTES: an over-limit key is answered OVER_LIMIT from
// memory without INCRBY, but within a window a count only grows, so INCRBY would
// have answered OVER_LIMIT too; only Redis's count differs),
// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT (it spares the other descriptors of
// a request one descriptor puts over; a key that goes over is still
// incremented: EnvoyGlobalRequest models it), NEAR_LIMIT_RATIO (stats only),
// EXPIRATION_JITTER_MAX_SECONDS and the EXPIRE (a key outlives its window).
// Envoy's DRAFT_VERSION_03 headers are a lane's headers = "envoy"
// (HeadersEnvoy).
//
// Time going backwards: a request stamped in an earlier window counts in that
// window's own count, as the service's INCRBY on that window's key does. The
// lane keeps a key's latest two windows a request counted in; a request in an
// older one counts from zero, as if its Redis key had expired (it expires one
// unit plus a jitter of up to 300 s after its last INCRBY). Eviction forgets a
// key whose latest window is over.
type EnvoyGlobal struct {
	policy     Policy
	divider    int64 // the unit in seconds
	originUnix int64 // the run's origin, Unix seconds
	shadow     bool
	keyed[EnvoyGlobalState]
}

// EnvoyGlobalState is one key's counters: its latest window and the one before
// it that a request counted in, each by its start in Unix seconds (the cache
// key's suffix) and its count.
type EnvoyGlobalState struct {
	Window, Count         int64
	PrevWindow, PrevCount int64
}

// envoyGlobalStateBytes is what a key costs in Redis: one counter (the key's
// name holds the window).
const envoyGlobalStateBytes = 8

// NewEnvoyGlobal returns the rate limit service's counter for p (its Period one
// of the service's units), with shadow_mode when shadow; origin is the instant
// the run's origin stands for.
func NewEnvoyGlobal(p Policy, shadow bool, origin time.Time) *EnvoyGlobal {
	p = p.WithDefaults()
	div, ok := envoyGlobalDivider(p.Period)
	if !ok {
		div = max(1, int64(p.Period/time.Second)) // refused by CheckEnvoyGlobalPolicy
	}
	return &EnvoyGlobal{policy: p, divider: div, originUnix: origin.Unix(), shadow: shadow, keyed: newKeyed[EnvoyGlobalState]()}
}

func (e *EnvoyGlobal) Algorithm() Name   { return EnvoyGlobalName }
func (e *EnvoyGlobal) Policy() Policy    { return e.policy }
func (e *EnvoyGlobal) StateBytes() int64 { return e.keyBytes + int64(e.Keys())*envoyGlobalStateBytes }

// window is the start, in Unix seconds, of the window holding n µs from the origin.
func (e *EnvoyGlobal) window(n int64) int64 {
	unix := e.originUnix + floorDiv(n, int64(time.Second/Resolution))
	return floorDiv(unix, e.divider) * e.divider
}

// end is the µs from the origin at which window w ends.
func (e *EnvoyGlobal) end(w int64) int64 {
	return (w + e.divider - e.originUnix) * int64(time.Second/Resolution)
}

// count points at the count of window w in s, moving s to w as the service's
// key for w would be found: the latest window, the one before, or a new one.
func (e *EnvoyGlobal) count(s *EnvoyGlobalState, w int64) *int64 {
	switch {
	case w == s.Window:
		return &s.Count
	case w > s.Window:
		s.PrevWindow, s.PrevCount = s.Window, s.Count
		s.Window, s.Count = w, 0
		return &s.Count
	case w != s.PrevWindow:
		s.PrevWindow, s.PrevCount = w, 0
	}
	return &s.PrevCount
}

// decide is DoLimit for one descriptor: INCRBY cost, then the status of the
// count after it.
func (e *EnvoyGlobal) decide(s *EnvoyGlobalState, key string, n, cost int64) Decision {
	w := e.window(n)
	c := e.count(s, w)
	*c += cost
	return e.status(s, key, n, w, *c, cost)
}

// status is GetResponseDescriptorStatus for a count of after in window w of s,
// and the shadow_mode rewrite. A refusal's RetryAfter is to the next window,
// or, when a clock ahead has already filled that one (s holds it), to the one
// after it.
func (e *EnvoyGlobal) status(s *EnvoyGlobalState, key string, n, w, after, cost int64) Decision {
	left := e.end(w) - n
	d := Decision{Limit: e.policy.Limit, ResetAfter: fromMicros(left)}
	switch {
	case after <= e.policy.Limit:
		d.Allowed, d.Remaining = true, float64(e.policy.Limit-after)
	case e.shadow:
		d.Allowed, d.Shadow = true, ShadowRefused
	case cost > e.policy.Limit:
		d.RetryAfter = Forever
	case s.Window == w+e.divider && s.Count+cost > e.policy.Limit:
		d.RetryAfter = jitter(e.end(s.Window)-n, JitterFactor(key, e.policy.RetryJitter))
	default:
		d.RetryAfter = jitter(left, JitterFactor(key, e.policy.RetryJitter))
	}
	return d
}

// fresh is a key the service has no counter for.
func (e *EnvoyGlobal) fresh(n int64) EnvoyGlobalState {
	return EnvoyGlobalState{Window: e.window(n), PrevWindow: math.MinInt64}
}

// Allow adds cost to key's counter for now's window and answers from the sum.
func (e *EnvoyGlobal) Allow(key string, now time.Duration, cost int64) Decision {
	n := toMicros(now)
	s, ok := e.state(key)
	if !ok {
		f := e.fresh(n)
		s = e.add(key, &f)
	}
	return e.decide(s, key, n, cost)
}

// Check is what Allow would decide, and changes nothing.
func (e *EnvoyGlobal) Check(key string, now time.Duration, cost int64) Decision {
	n := toMicros(now)
	s := e.fresh(n)
	if st, ok := e.state(key); ok {
		s = *st
	}
	return e.decide(&s, key, n, cost)
}

// Level is key's count in now's window.
func (e *EnvoyGlobal) Level(key string, now time.Duration) float64 {
	s, ok := e.state(key)
	if !ok {
		return 0
	}
	switch w := e.window(toMicros(now)); w {
	case s.Window:
		return float64(s.Count)
	case s.PrevWindow:
		return float64(s.PrevCount)
	}
	return 0
}

// Evict forgets keys whose latest window is over at now.
func (e *EnvoyGlobal) Evict(now time.Duration) int {
	w := e.window(toMicros(now))
	return e.evict(func(s *EnvoyGlobalState) bool { return s.Window < w })
}

// EnvoyGlobalDescriptor is one descriptor of a request: its rate_limit's
// counter and the key its count is under.
type EnvoyGlobalDescriptor struct {
	Limit *EnvoyGlobal
	Key   string
}

// EnvoyGlobalRequest is the service's answer to a request of several
// descriptors (DoLimit and shouldRateLimitWorker): each descriptor's decision,
// in order, and the overall one, OVER_LIMIT when any descriptor is (after its
// own shadow_mode). By default every descriptor's count takes cost, whatever
// the others answer. With stopIncrement (STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT)
// the counts are read first (GET); if any descriptor would go over its limit,
// only the descriptors that would are incremented (getHitsAddend: the others
// take 0, and answer from their count as it is); if none would, all are. The
// overall decision's Remaining, Limit and ResetAfter are those of the first
// descriptor with the least remaining; its RetryAfter is the longest of the
// descriptors over their limit; it is Allowed with Shadow = ShadowRefused when
// only descriptors in shadow_mode were over. The service's global SHADOW_MODE
// (every OVER_LIMIT answered OK) is not modelled: give each descriptor
// shadow_mode.
func EnvoyGlobalRequest(descs []EnvoyGlobalDescriptor, now time.Duration, cost int64, stopIncrement bool) (overall Decision, each []Decision) {
	n := toMicros(now)
	states := make([]*EnvoyGlobalState, len(descs))
	wouldOver := make([]bool, len(descs))
	anyOver := false
	for i, d := range descs {
		s, ok := d.Limit.state(d.Key)
		if !ok {
			f := d.Limit.fresh(n)
			s = d.Limit.add(d.Key, &f)
		}
		states[i] = s
		snapshot := *s
		wouldOver[i] = *d.Limit.count(&snapshot, d.Limit.window(n))+cost > d.Limit.policy.Limit
		anyOver = anyOver || wouldOver[i]
	}
	each = make([]Decision, len(descs))
	overall = Decision{Allowed: true}
	least := math.Inf(1)
	for i, d := range descs {
		add := cost
		if stopIncrement && anyOver && !wouldOver[i] {
			add = 0
		}
		w := d.Limit.window(n)
		c := d.Limit.count(states[i], w)
		*c += add
		each[i] = d.Limit.status(states[i], d.Key, n, w, *c, cost)
		if each[i].Shadow != ShadowNone {
			overall.Shadow = ShadowRefused
		}
		if !each[i].Allowed {
			overall.Allowed = false
			overall.RetryAfter = max(overall.RetryAfter, each[i].RetryAfter)
		}
		if r := each[i].Remaining; r < least {
			least = r
			overall.Remaining, overall.Limit, overall.ResetAfter = r, each[i].Limit, each[i].ResetAfter
		}
	}
	if !overall.Allowed {
		overall.Shadow = ShadowNone
	}
	return overall, each
}
