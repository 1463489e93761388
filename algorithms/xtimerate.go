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
// request, stores the earlier time, as TokenBucket with MonotonicTimestamp off does;
// a refused request changes nothing (reserveN writes only when it accepts), and
// refill resumes from the limiter's last event, so a request stamped before it
// waits for that too.
type XTimeRate struct {
	policy Policy
	limit  rate.Limit
	keyed[xState]
}

// xState is a key's rate.Limiter and the time of its last accepted request, in µs
// (the limiter's own last, which it does not export; it moves only when AllowN
// accepts). A new limiter's last is the zero time: long ago.
type xState struct {
	lim  *rate.Limiter
	last int64
}

// xLimiterBytes is the size of a rate.Limiter's fields (its mutex included); the
// copy of last kept beside it is the limiter's own, not counted twice.
const xLimiterBytes = int64(unsafe.Sizeof(rate.Limiter{}))

// NewXTimeRate returns the x/time/rate lane enforcing p.
func NewXTimeRate(p Policy) *XTimeRate {
	p = p.WithDefaults()
	return &XTimeRate{policy: p, limit: rate.Limit(p.Rate()), keyed: newKeyed[xState]()}
}

func (x *XTimeRate) Algorithm() Name   { return XTimeRateName }
func (x *XTimeRate) Policy() Policy    { return x.policy }
func (x *XTimeRate) StateBytes() int64 { return x.keyBytes + int64(x.Keys())*xLimiterBytes }

// Allow asks the key's rate.Limiter with AllowN; on a denial, the retry-after is
// the first whole microsecond from now at which AllowN would accept the request
// (see retryAfter).
func (x *XTimeRate) Allow(key string, now time.Duration, cost int64) Decision {
	s, ok := x.state(key)
	if !ok {
		s = x.add(key, &xState{lim: rate.NewLimiter(x.limit, int(x.policy.Burst)), last: math.MinInt64})
	}
	n := toMicros(now)
	t := xOrigin.Add(fromMicros(n))
	allowed := s.lim.AllowN(t, int(cost))
	if allowed {
		s.last = n
	}
	return x.decision(key, allowed, s, n, s.lim.TokensAt(t), cost)
}

// Check is what Allow would decide, worked out as rate.Limiter.AllowN does
// (tokens − cost, and a wait that rounds to less than a nanosecond is none),
// without asking it, so nothing changes.
func (x *XTimeRate) Check(key string, now time.Duration, cost int64) Decision {
	n := toMicros(now)
	tokens := float64(x.policy.Burst)
	s, ok := x.state(key) // none: a full bucket, which refuses only a cost over the burst (Forever)
	if ok {
		tokens = s.lim.TokensAt(xOrigin.Add(fromMicros(n)))
	}
	allowed := cost <= x.policy.Burst && xAccepts(tokens, cost, x.limit)
	if allowed {
		tokens -= float64(cost)
	}
	return x.decision(key, allowed, s, n, tokens, cost)
}

// decision composes a decision at n (µs) from the tokens left after it; a
// denial's retry-after is computed from s as it is (a denial does not change
// it). s is nil only for a key with no state, whose full bucket refuses nothing
// within the burst.
//
// Remaining is the tokens, except that a shortfall AllowN would wave through (a
// wait under a nanosecond) is not one: 0.9999999999999998 tokens, which AllowN
// takes as 1, is reported as 1, so a header of whole units says what AllowN
// would accept.
func (x *XTimeRate) decision(key string, allowed bool, s *xState, n int64, tokens float64, cost int64) Decision {
	d := Decision{Limit: x.policy.Burst, Allowed: allowed}
	switch {
	case d.Allowed:
	case cost > x.policy.Burst:
		d.RetryAfter = Forever
	default:
		d.RetryAfter = jitter(x.retryAfter(s, n, cost), JitterFactor(key, x.policy.RetryJitter))
	}
	d.Remaining = tokens
	if whole := math.Ceil(tokens); whole != tokens && whole <= float64(x.policy.Burst) && xAccepts(tokens, int64(whole), x.limit) {
		d.Remaining = whole
		if whole == 0 {
			d.Remaining = 0 // not −0
		}
	}
	d.ResetAfter = time.Duration(max(0, math.Ceil((float64(x.policy.Burst)-tokens)/float64(x.limit)*1e6))) * Resolution
	if !allowed && s != nil && s.last > n && d.ResetAfter > 0 {
		d.ResetAfter += fromMicros(s.last - n) // refill resumes at last (an acceptance moves last to now)
	}
	return d
}

// Level is the tokens in key's bucket at now.
func (x *XTimeRate) Level(key string, now time.Duration) float64 {
	s, ok := x.state(key)
	if !ok {
		return float64(x.policy.Burst)
	}
	return s.lim.TokensAt(xOrigin.Add(fromMicros(toMicros(now))))
}

// Evict forgets keys whose bucket is full at now, and whose last event is not
// later than now (a clock behind would see it).
func (x *XTimeRate) Evict(now time.Duration) int {
	n := toMicros(now)
	t := xOrigin.Add(fromMicros(n))
	return x.evict(func(s *xState) bool { return s.last <= n && s.lim.TokensAt(t) >= float64(x.policy.Burst) })
}

// retryAfter is the wait, in whole microseconds from n, until AllowN(n + wait,
// cost) would accept, s left as it is: the first accepting microsecond, accepted
// there and refused a microsecond before. It is computed (retryEstimate), then
// settled by the library's own rule at the computed instant and the one before
// it; the estimate is at most a microsecond off (TestXTimeRateRetryEstimate), and
// tokens never shrink with time, so settling ends there.
func (x *XTimeRate) retryAfter(s *xState, n, cost int64) int64 {
	from, us := x.retryEstimate(s, n, cost)
	for us > from && x.acceptsAt(s, us-1, cost) {
		us--
	}
	for !x.acceptsAt(s, us, cost) {
		us++
	}
	return us - n
}

// retryEstimate is when, in µs, s's limiter would first accept cost after n:
// before the limiter's last event its tokens stay as they are (elapsed time is
// clamped at zero), and from then on (from) they grow at the rate, so it is last
// plus the time the missing tokens take, ceil((cost − tokens) / rate), computed
// in float64 as x/time/rate computes its tokens.
func (x *XTimeRate) retryEstimate(s *xState, n, cost int64) (from, us int64) {
	from = max(n, s.last)
	missing := float64(cost) - s.lim.TokensAt(xOrigin.Add(fromMicros(from)))
	return from, from + max(0, int64(math.Ceil(missing/float64(x.limit)*1e6)))
}

// acceptsAt says whether AllowN(us, cost) would accept on s's limiter as it is.
func (x *XTimeRate) acceptsAt(s *xState, us, cost int64) bool {
	return xAccepts(s.lim.TokensAt(xOrigin.Add(fromMicros(us))), cost, x.limit)
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
