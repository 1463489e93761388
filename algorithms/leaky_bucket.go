package algorithms

import "time"

// LeakyBucketName is the leaky bucket's name in scenario files and on the command
// line.
const LeakyBucketName Name = "leaky-bucket"

// leakyBucketOptions are the leaky bucket's scenario keys.
var leakyBucketOptions = []Option{
	{Key: "mode", Doc: `"queue" (default): accepted requests wait their turn at the leak rate; "meter": they go at once, and the bucket only meters`,
		set: func(o Options) string { return setIf(o.Mode != LeakyQueue, "mode") }},
	{Key: "abandoned", Doc: `what the queue does with a request whose client stops waiting before its turn: "keep" (default, as nginx's limit_req does): it keeps its place and the queue drains for it; "leave": it leaves the queue, and the requests behind it go ahead sooner (in memory only)`,
		set: func(o Options) string { return setIf(o.LeaveAbandoned, "abandoned = \"leave\"") }},
}

// leakyBucketPort is scripts/leaky_bucket.lua: a hash per key of the level in
// credits and the last drain in µs; Args unit, per_micro, capacity, fill_us,
// queue (1: queue mode). Its reply is a bucket's (see bucketReply).
var leakyBucketPort = &RedisPort{Script: "leaky_bucket", Call: func(p Policy, o Options) ScriptCall {
	c := CreditsOf(p, 0)
	call := callOf(c.Unit, c.PerMicro, c.Capacity, c.FillUS, bit(o.Mode == LeakyQueue))
	call.Decision = bucketReply(p, p.Burst, c.Units)
	call.Level = func(r []int64) float64 { return c.Units(r[1]) }
	return call
}}

// LeakyMode says what a leaky bucket does with an accepted request.
type LeakyMode int

const (
	// LeakyQueue shapes: accepted requests wait in a queue of Burst units that
	// drains at Limit per Period, so they leave evenly at the leak rate; the
	// decision's Delay is the wait. A full queue rejects.
	LeakyQueue LeakyMode = iota
	// LeakyMeter polices: the bucket is a meter of Burst units that drains at the
	// leak rate; a request that would overflow it is rejected, an accepted one goes
	// ahead at once. It decides exactly as a token bucket of the same policy does.
	LeakyMeter
)

// String is the mode's name in scenario files.
func (m LeakyMode) String() string {
	if m == LeakyMeter {
		return "meter"
	}
	return "queue"
}

// LeakyBucket holds, per key, a level of units (the water in the bucket) that drains
// at Limit per Period. A request of cost c is accepted while level + c stays within
// Burst, and adds c to the level. In queue mode the level is the queue ahead of the
// request, and it leaves once that has drained: Delay = level / rate. The output is
// smoothed to the leak rate, which is the point: the backend never sees a burst.
//
// Time going backwards drains nothing, and the stored leak time never moves back:
// a request stamped before it (a clock behind) sees the level as of the stored
// time, and draining resumes only then, so every wait the decision reports
// (RetryAfter, a queue's Delay, ResetAfter) counts the time until the stored time
// from the request's own clock: the same request is accepted at now + RetryAfter.
type LeakyBucket struct {
	policy Policy
	c      credits
	mode   LeakyMode
	keyed[LeakyState]
}

// LeakyState is a leaky bucket's state for one key: the level, in credits (see
// credits.go), and the time it was last drained, in µs.
type LeakyState struct{ Level, Last int64 }

const leakyStateBytes = 16

// NewLeakyBucket returns a leaky bucket enforcing p in the given mode.
func NewLeakyBucket(p Policy, mode LeakyMode) *LeakyBucket {
	p = p.WithDefaults()
	return &LeakyBucket{policy: p, c: newCredits(p), mode: mode, keyed: newKeyed[LeakyState]()}
}

func (b *LeakyBucket) Algorithm() Name   { return LeakyBucketName }
func (b *LeakyBucket) Policy() Policy    { return b.policy }
func (b *LeakyBucket) Mode() LeakyMode   { return b.mode }
func (b *LeakyBucket) StateBytes() int64 { return b.keyBytes + int64(b.Keys())*leakyStateBytes }

// Allow decides atomically.
func (b *LeakyBucket) Allow(key string, now time.Duration, cost int64) (d Decision) {
	s, ok := b.state(key)
	if !ok {
		s = b.add(key, &LeakyState{Last: toMicros(now)})
	}
	b.decide(&d, s, key, now, cost)
	return d
}

// Check is what Allow would decide, on a copy of the state: nothing changes.
func (b *LeakyBucket) Check(key string, now time.Duration, cost int64) (d Decision) {
	s := LeakyState{Last: toMicros(now)}
	if stored, ok := b.state(key); ok {
		s = *stored
	}
	b.decide(&d, &s, key, now, cost)
	return d
}

// decide decides on *s, updates it in place and writes the decision into *d,
// which is zero: a Decision returned by value would be copied once more into
// Allow's, a third of a decision's time.
func (b *LeakyBucket) decide(d *Decision, s *LeakyState, key string, now time.Duration, cost int64) {
	n := toMicros(now)
	level := b.c.drain(s.Level, n-s.Last)
	// ahead is how far the stored time is ahead of now: draining resumes only then
	ahead := max(0, s.Last-n)
	s.Level, s.Last = level, max(n, s.Last)
	need := cost * b.c.unit
	d.Limit = b.policy.Burst
	if level+need <= b.c.capacity {
		d.Allowed = true
		if b.mode == LeakyQueue && level > 0 {
			d.Delay = fromMicros(ahead + b.c.wait(level))
		}
		s.Level += need
	} else if need > b.c.capacity {
		d.RetryAfter = Forever
	} else {
		d.RetryAfter = jitter(ahead+b.c.wait(level+need-b.c.capacity), JitterFactor(key, b.policy.RetryJitter))
	}
	d.Remaining = b.c.units(b.c.capacity - s.Level)
	if s.Level > 0 {
		d.ResetAfter = fromMicros(ahead + b.c.wait(s.Level))
	}
}

// Leave takes a queued request of cost units out of key's queue at now,
// before its turn (its client stopped waiting; abandoned = "leave"): its units
// are no longer waiting to drain, so every request queued behind it goes ahead
// the returned wait sooner (cost / rate, in whole µs rounded down: never
// sooner than the drain allows, where a rate does not divide into whole µs at
// most a µs later per leave), and a request arriving later waits that much
// less. A request that is not queued any more (its units drained) takes
// nothing out.
func (b *LeakyBucket) Leave(key string, now time.Duration, cost int64) time.Duration {
	s, ok := b.state(key)
	if !ok {
		return 0
	}
	n := toMicros(now)
	level := b.c.drain(s.Level, n-s.Last)
	s.Level, s.Last = level, max(n, s.Last)
	take := min(cost*b.c.unit, level)
	s.Level -= take
	return fromMicros(take / b.c.perMicro)
}

// Level is the units in key's bucket at now (the queue's length in queue mode).
func (b *LeakyBucket) Level(key string, now time.Duration) float64 {
	s, ok := b.state(key)
	if !ok {
		return 0
	}
	return b.c.units(b.c.drain(s.Level, toMicros(now)-s.Last))
}

// Evict forgets keys whose bucket has drained empty by now.
func (b *LeakyBucket) Evict(now time.Duration) int {
	n := toMicros(now)
	return b.evict(func(s *LeakyState) bool { return s.Last <= n && b.c.drain(s.Level, n-s.Last) == 0 })
}
