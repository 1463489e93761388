package algorithms

import "time"

// TokenBucketName is the token bucket's name in scenario files and on the command
// line.
const TokenBucketName Name = "token-bucket"

// tokenBucketOptions are the token bucket's scenario keys.
var tokenBucketOptions = []Option{
	// on by default (Info.Defaults), and a lane's to turn off: not an option Check polices
	{Key: "monotonic_timestamp", Doc: "store max(now, ts), so a node whose clock is behind cannot move the stored time back; default true"},
	{Key: "max_reserved", Doc: "how many units the balance may go below zero: requests then wait (a Delay) rather than being denied; default 0",
		set: func(o Options) string { return setIf(o.MaxReserved != 0, "max_reserved") }},
}

// tokenBucketPort is scripts/token_bucket.lua: a hash per key, c = the balance in
// credits, t = the last refill in µs; Args unit, per_micro, capacity, floor,
// fill_us, monotonic. Its reply is a bucket's (see bucketReply).
var tokenBucketPort = &RedisPort{Script: "token_bucket", Call: func(p Policy, o Options) ScriptCall {
	c := CreditsOf(p, o.MaxReserved)
	call := callOf(c.Unit, c.PerMicro, c.Capacity, c.Floor, c.FillUS, bit(o.MonotonicTimestamp))
	call.MonotonicArg = 5
	call.Decision = bucketReply(p, p.Burst, c.Units)
	call.Level = func(r []int64) float64 { return c.Units(r[1]) }
	return call
}}

// tokenBucketSplit takes the token bucket's decision apart; its state is stored as
// its script keeps it (fields c and t).
var tokenBucketSplit = newSplit([]string{"c", "t"},
	func(s TokenState, v []int64) { v[0], v[1] = s.Credits, s.Last },
	func(v []int64) TokenState { return TokenState{Credits: v[0], Last: v[1]} },
	func(p Policy, o Options) Stepper[TokenState] {
		return NewTokenBucket(p, o.MonotonicTimestamp, o.MaxReserved)
	})

// TokenBucket holds, per key, a bucket of Burst tokens refilled at Limit per Period
// (tokens = min(capacity, tokens + elapsed × rate)). A request of cost c is
// accepted when the bucket holds c tokens, which it then spends; a denial's
// retry-after is ceil((c − tokens) / rate). Refill is lazy: it is computed from the
// time since the stored timestamp when the key is next used.
//
// Time going backwards (a request stamped before the stored timestamp, by a node
// whose clock is behind): elapsed time is clamped at zero, so no tokens appear,
// and the request sees the balance as of the stored time. Refill resumes from the
// stored time, so every wait the decision reports (RetryAfter, Delay, ResetAfter)
// counts from the request's own clock the time still to come until then: the
// same request is accepted at now + RetryAfter, and not a microsecond sooner.
// What an accepted request stores as the timestamp depends on
// MonotonicTimestamp: with it off the request's own time (as x/time/rate does),
// and the next caller with a later clock is credited the difference again, so
// skewed clocks over-grant; with it on max(now, stored), and they cannot. A
// refused request never moves the stored time back (x/time/rate's reserveN
// writes only when it accepts); with the fix on it may store the refill up to a
// later now, which changes no decision of a clock at or after that now.
//
// Reservations: with MaxReserved > 0 the balance may go negative down to
// −MaxReserved; a request that would take it below zero is accepted with a Delay
// saying when its tokens will exist, so large requests are scheduled rather than
// starved and nobody retries. A cost above the burst is never accepted, however
// deep the reservations: the bucket never holds it (as x/time/rate's ReserveN
// refuses n > burst, and as Capacity says).
type TokenBucket struct {
	policy    Policy
	c         credits
	monotonic bool
	floor     int64 // the lowest balance, in credits: −MaxReserved × unit
	keyed[TokenState]
}

// TokenState is a token bucket's state for one key: two numbers.
type TokenState struct {
	// Credits is the balance in credits (see credits.go); may be negative with
	// reservations.
	Credits int64
	// Last is the time of the last refill, in µs from the origin.
	Last int64
}

// tokenStateBytes is what a key's state costs: two 8-byte numbers.
const tokenStateBytes = 16

// NewTokenBucket returns a token bucket enforcing p. monotonic turns on the
// ts = max(now, ts) fix; maxReserved >= 0 allows reservations that deep.
func NewTokenBucket(p Policy, monotonic bool, maxReserved int64) *TokenBucket {
	p = p.WithDefaults()
	c := newCredits(p)
	floor := -maxReserved * c.unit
	return &TokenBucket{
		policy:    p,
		c:         c.withFloor(floor),
		monotonic: monotonic,
		floor:     floor,
		keyed:     newKeyed[TokenState](),
	}
}

func (t *TokenBucket) Algorithm() Name   { return TokenBucketName }
func (t *TokenBucket) Policy() Policy    { return t.policy }
func (t *TokenBucket) StateBytes() int64 { return t.keyBytes + int64(t.Keys())*tokenStateBytes }

// SetMonotonic switches the max(now, ts) fix on or off from now on (a live control).
func (t *TokenBucket) SetMonotonic(on bool) { t.monotonic = on }

// Allow decides atomically: read, decide and write in one step. A key whose
// first request is refused keeps no state (as the script stores none).
func (t *TokenBucket) Allow(key string, now time.Duration, cost int64) (d Decision) {
	s, ok := t.state(key)
	if !ok {
		idle := t.Read(key, now)
		t.decide(&d, &idle, key, now, cost)
		if d.Allowed {
			t.add(key, &idle)
		}
		return d
	}
	t.decide(&d, s, key, now, cost)
	return d
}

// Read returns key's state as stored, or the idle state (a full bucket) if it has
// none. With Decide and Write it splits Allow into the steps a non-atomic client
// takes.
func (t *TokenBucket) Read(key string, now time.Duration) TokenState {
	if s, ok := t.state(key); ok {
		return *s
	}
	return TokenState{Credits: t.c.capacity, Last: toMicros(now)}
}

// Write stores s as key's state, whatever is there now (a blind overwrite).
func (t *TokenBucket) Write(key string, s TokenState) {
	if old, ok := t.state(key); ok {
		*old = s
		return
	}
	t.add(key, &s)
}

// Decide is the pure decision on state s: it returns the decision and the state to
// store, and changes nothing itself. On a denial the state returned is s, or
// with the fix on s refilled up to a later now, as the script stores it.
func (t *TokenBucket) Decide(s TokenState, key string, now time.Duration, cost int64) (Decision, TokenState) {
	var d Decision
	t.decide(&d, &s, key, now, cost)
	return d, s
}

// decide decides on *s, updates it in place and writes the decision into *d,
// which is zero: a Decision returned by value would be copied once more into
// Allow's, a third of a decision's time.
func (t *TokenBucket) decide(d *Decision, s *TokenState, key string, now time.Duration, cost int64) {
	n := toMicros(now)
	balance := t.c.refill(s.Credits, n-s.Last)
	// ahead is how far the stored time is ahead of now: refill resumes only then
	ahead := max(0, s.Last-n)
	need := cost * t.c.unit
	d.Limit = t.policy.Burst
	switch {
	case need > t.c.capacity:
		d.RetryAfter = Forever
	case balance-need >= t.floor:
		balance -= need
		d.Allowed = true
		if !t.monotonic {
			ahead = 0 // the stored time moves back to now, and refill with it
		}
		if balance < 0 {
			d.Delay = fromMicros(t.stampedWait(ahead, -balance))
		}
	default:
		d.RetryAfter = jitter(t.stampedWait(ahead, need+t.floor-balance), JitterFactor(key, t.policy.RetryJitter))
	}
	d.Remaining = t.c.units(balance)
	if balance < t.c.capacity {
		d.ResetAfter = fromMicros(t.stampedWait(ahead, t.c.capacity-balance))
	}
	switch {
	case d.Allowed && !t.monotonic:
		s.Credits, s.Last = balance, n
	case d.Allowed || (t.monotonic && n > s.Last):
		s.Credits, s.Last = balance, max(n, s.Last)
	}
}

// stampedWait is the µs from a request's now until deficit credits have been
// refilled, when refill resumes ahead µs after now (the stored time is ahead).
func (t *TokenBucket) stampedWait(ahead, deficit int64) int64 {
	return ahead + t.c.wait(deficit)
}

// Level is the number of tokens key's bucket holds at now.
func (t *TokenBucket) Level(key string, now time.Duration) float64 {
	s := t.Read(key, now)
	return t.c.units(t.c.refill(s.Credits, toMicros(now)-s.Last))
}

// Evict forgets keys whose bucket has refilled to full by now. A key whose stored
// timestamp is later than now (written by a node whose clock runs ahead) is kept:
// with the monotonic fix, that timestamp still holds back the next refill.
func (t *TokenBucket) Evict(now time.Duration) int {
	n := toMicros(now)
	return t.evict(func(s *TokenState) bool { return s.Last <= n && t.c.refill(s.Credits, n-s.Last) == t.c.capacity })
}

// Check is what Allow would decide, and changes nothing.
func (t *TokenBucket) Check(key string, now time.Duration, cost int64) (d Decision) {
	s := t.Read(key, now)
	t.decide(&d, &s, key, now, cost)
	return d
}
