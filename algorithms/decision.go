package algorithms

import (
	"math"
	"time"
)

// Forever is the RetryAfter of a request that can never be accepted, because its
// cost exceeds what the limiter can ever hold (a cost above the burst, say).
const Forever = time.Duration(math.MaxInt64)

// foreverUS is Forever in microseconds: the retry-after, in µs, of a request that can
// never be accepted.
const foreverUS = int64(Forever / Resolution)

// Decision is a limiter's answer to one request.
type Decision struct {
	// Allowed says whether the request may go ahead.
	Allowed bool
	// Remaining is the capacity left after this decision, in units of cost: tokens
	// in the bucket, room left in the window or the queue. It is fractional for the
	// buckets (at 10/s, 0.05 s of refill is half a token), is never negative but
	// when a token bucket has reserved ahead, and its floor is exactly the whole
	// units the limiter's integer state holds (credits.units), which is what a
	// header reports.
	Remaining float64
	// Limit is the capacity Remaining is measured against: the burst for the
	// buckets, the limit per window for the windows.
	Limit int64
	// RetryAfter, on a denial, is how long until the same request would be
	// accepted, including any per-key jitter; Forever if it never would. Zero when
	// allowed. It is measured from the request's own now, also when that is
	// before the key's stored time (a clock behind): without jitter, the same
	// request is accepted at now + RetryAfter and not a microsecond sooner.
	RetryAfter time.Duration
	// ResetAfter is how long until this key's limit resets if no more requests
	// arrive: until the bucket is full, the queue or the sliding window is empty,
	// or the current fixed window ends.
	ResetAfter time.Duration
	// Delay is how long an accepted request waits before it may run: its place in
	// a leaky-bucket queue, the time until a token-bucket reservation's tokens
	// exist, a product's own wait (nginx's limit_req delay, Guava's ticket).
	// Zero for everything else.
	Delay time.Duration
	// OnError says the decision is the lane's on_error (open or closed) because
	// the store failed to answer: the limiter did not decide it. Always false
	// in memory.
	OnError bool
	// Shadow, on a request a product let through only because it runs in dry
	// run or shadow mode (nginx's limit_req_dry_run, the Envoy rate limit
	// service's shadow_mode), is what it would have done otherwise: delayed it
	// or refused it. The request is Allowed, with no Delay; what it was charged
	// is what the product charges in dry run. ShadowNone for every other
	// decision.
	Shadow Shadow
	// Windows, from a product that enforces several windows at once and tells
	// the client about each (Kong's X-RateLimit-Remaining-<Period>), is each
	// window's answer, in the order its Info.Windows lists them: Remaining as
	// the product shows it, Limit, ResetAfter. nil for every other decision.
	Windows []Decision
}

// Shadow is what a product in dry run would have done with a request it let
// through (Decision.Shadow).
type Shadow uint8

const (
	// ShadowNone: nothing held back; the decision is what it says.
	ShadowNone Shadow = iota
	// ShadowDelayed: it would have delayed the request (nginx logs
	// DELAYED_DRY_RUN).
	ShadowDelayed
	// ShadowRefused: it would have refused the request (nginx logs
	// REJECTED_DRY_RUN).
	ShadowRefused
)

// Limiter is one algorithm holding per-key state.
type Limiter interface {
	// Algorithm is the limiter's name as used in files and on the command line.
	Algorithm() Name
	// Policy is the policy the limiter enforces, with defaults applied.
	Policy() Policy
	// Allow decides on a request of cost units for key at now, and records it
	// when accepted. cost >= 1.
	Allow(key string, now time.Duration, cost int64) Decision
	// Level is the key's fill at now, for graphs: tokens for the buckets, units
	// in the current window for the windows, units queued for the leaky bucket. It
	// does not change state.
	Level(key string, now time.Duration) float64
	// Keys is the number of keys holding state.
	Keys() int
	// StateBytes is the size of the state the algorithm keeps for all its keys:
	// per key, the key's bytes plus the numbers the algorithm stores (what a Redis
	// port would keep), not Go's own overhead.
	StateBytes() int64
	// Evict forgets every key whose state at now is the idle state a new key
	// would get, and returns how many it forgot. It never changes a decision,
	// provided no later request is made at a time before now: with clocks that
	// disagree, pass the earliest any of them reads.
	Evict(now time.Duration) int
}

// Leaver is a limiter whose queue a waiting request can leave before its turn
// (the leaky bucket's, abandoned = "leave"): Leave takes its cost units out of
// key's queue at now and says how much sooner each request queued behind it
// goes ahead.
type Leaver interface {
	Leave(key string, now time.Duration, cost int64) time.Duration
}

// Forgetter is a limiter that can lose its state as a store does: a key that
// expires (Forget), or every key at once, a store flushed or a failover to an
// empty replica (ForgetAll). A key forgotten is new again: its next request finds
// the idle state a new key gets (a full bucket, an empty window), whatever it had
// spent. Unlike Evict, forgetting changes decisions: that is what it is for.
// Every limiter in this package with per-key state is one (the no-limit lane
// keeps none); so is a Redis limiter (it deletes the keys).
type Forgetter interface {
	// Forget drops key's state and says whether it had any.
	Forget(key string) bool
	// ForgetAll drops every key's state and returns how many keys had some.
	ForgetAll() int
}

// microsToDuration turns microseconds into a duration, saturating at Forever.
func microsToDuration(us int64) time.Duration {
	if us >= foreverUS {
		return Forever
	}
	return fromMicros(us)
}

// IsZero says d is the zero Decision: no limiter's answer (a lost race, a
// failure that is not the limiter's).
func (d Decision) IsZero() bool {
	return !d.Allowed && d.Remaining == 0 && d.Limit == 0 && d.RetryAfter == 0 && d.ResetAfter == 0 &&
		d.Delay == 0 && !d.OnError && d.Shadow == ShadowNone && d.Windows == nil
}
