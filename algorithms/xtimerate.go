package algorithms

import (
	"math"
	"time"
	"unsafe"

	"golang.org/x/time/rate"
)

// XTimeRateName is the x/time/rate lane's name in scenario files and on the command
// line.
const XTimeRateName Name = "x-time-rate"

// xOrigin is the wall-clock instant the virtual origin maps to for x/time/rate,
// which takes a time.Time. Any fixed instant does; only differences matter.
var xOrigin = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// XTimeRate runs golang.org/x/time/rate, one rate.Limiter per key, on the virtual
// clock (AllowN(origin + now, cost)): the reference peer every other lane is
// compared with. Its bucket has Burst tokens refilled at Limit per Period, starts
// full, and uses float64 tokens; a wait shorter than a nanosecond counts as none.
// On integer costs at microsecond-aligned times it decides as TokenBucket does.
//
// Time going backwards: x/time/rate clamps elapsed time at zero and, on an accepted
// request, stores the earlier time, as TokenBucket with MonotonicTimestamp off does.
type XTimeRate struct {
	policy Policy
	limit  rate.Limit
	keyed[rate.Limiter]
}

// xLimiterBytes is the size of a rate.Limiter's fields (its mutex included).
const xLimiterBytes = int64(unsafe.Sizeof(rate.Limiter{}))

// NewXTimeRate returns the x/time/rate lane enforcing p.
func NewXTimeRate(p Policy) *XTimeRate {
	p = p.WithDefaults()
	return &XTimeRate{policy: p, limit: rate.Limit(p.Rate()), keyed: newKeyed[rate.Limiter]()}
}

func (x *XTimeRate) Algorithm() Name   { return XTimeRateName }
func (x *XTimeRate) Policy() Policy    { return x.policy }
func (x *XTimeRate) StateBytes() int64 { return x.keyBytes + int64(x.Keys())*xLimiterBytes }

// Allow asks the key's rate.Limiter with AllowN; on a denial, the retry-after is
// the first whole microsecond from now at which AllowN would accept the request
// (see retryAfter).
func (x *XTimeRate) Allow(key string, now time.Duration, cost int64) Decision {
	lim, ok := x.state(key)
	if !ok {
		lim = x.add(key, rate.NewLimiter(x.limit, int(x.policy.Burst)))
	}
	t := xOrigin.Add(fromMicros(toMicros(now)))
	allowed := lim.AllowN(t, int(cost))
	return x.decision(key, allowed, lim, t, lim.TokensAt(t), cost)
}

// Check is what Allow would decide, worked out as rate.Limiter.AllowN does
// (tokens − cost, and a wait that rounds to less than a nanosecond is none),
// without asking it, so nothing changes.
func (x *XTimeRate) Check(key string, now time.Duration, cost int64) Decision {
	t := xOrigin.Add(fromMicros(toMicros(now)))
	tokens := float64(x.policy.Burst)
	lim, ok := x.state(key) // none: a full bucket, which refuses only a cost over the burst (Forever)
	if ok {
		tokens = lim.TokensAt(t)
	}
	allowed := cost <= x.policy.Burst && xAccepts(tokens, cost, x.limit)
	if allowed {
		tokens -= float64(cost)
	}
	return x.decision(key, allowed, lim, t, tokens, cost)
}

// decision composes a decision from the tokens left after it; a denial's
// retry-after asks lim (as it is at t) when it would accept. lim is nil only for
// a key with no state, whose full bucket refuses nothing within the burst.
func (x *XTimeRate) decision(key string, allowed bool, lim *rate.Limiter, t time.Time, tokens float64, cost int64) Decision {
	d := Decision{Limit: x.policy.Burst, Allowed: allowed}
	switch {
	case d.Allowed:
	case cost > x.policy.Burst:
		d.RetryAfter = Forever
	default:
		d.RetryAfter = jitter(x.retryAfter(lim, t, tokens, cost), JitterFactor(key, x.policy.RetryJitter))
	}
	d.Remaining = tokens
	d.ResetAfter = time.Duration(max(0, math.Ceil((float64(x.policy.Burst)-tokens)/float64(x.limit)*1e6))) * Resolution
	return d
}

// Level is the tokens in key's bucket at now.
func (x *XTimeRate) Level(key string, now time.Duration) float64 {
	lim, ok := x.state(key)
	if !ok {
		return float64(x.policy.Burst)
	}
	return lim.TokensAt(xOrigin.Add(fromMicros(toMicros(now))))
}

// Evict forgets keys whose bucket is full at now.
func (x *XTimeRate) Evict(now time.Duration) int {
	t := xOrigin.Add(fromMicros(toMicros(now)))
	return x.evict(func(lim *rate.Limiter) bool { return lim.TokensAt(t) >= float64(x.policy.Burst) })
}

// retryAfter is the wait, in whole microseconds, until AllowN(t + wait, cost)
// would accept, lim's state left as it is (a denial does not change it). The
// estimate ceil((cost − tokens) / rate) is off by a microsecond now and then, as
// float64 tokens round; the library's own rule at the instants around it decides,
// so the wait is the first microsecond at which the request is accepted.
func (x *XTimeRate) retryAfter(lim *rate.Limiter, t time.Time, tokens float64, cost int64) int64 {
	us := max(0, int64(math.Ceil((float64(cost)-tokens)/float64(x.limit)*1e6)))
	accepts := func(us int64) bool {
		return xAccepts(lim.TokensAt(t.Add(fromMicros(us))), cost, x.limit)
	}
	for steps := 0; steps < 64 && us > 0 && accepts(us-1); steps++ {
		us--
	}
	for steps := 0; steps < 64 && !accepts(us); steps++ {
		us++
	}
	return us
}

// xAccepts is AllowN's rule in golang.org/x/time/rate (rate.go, reserveN): with
// tokens in the bucket at the instant, n events are allowed when the wait for
// the missing tokens, durationFromTokens(n − tokens) truncated to whole
// nanoseconds, is not positive (n <= burst is checked by the caller).
func xAccepts(tokens float64, n int64, limit rate.Limit) bool {
	missing := float64(n) - tokens
	if missing <= 0 {
		return true
	}
	return time.Duration(missing/float64(limit)*float64(time.Second)) <= 0
}
