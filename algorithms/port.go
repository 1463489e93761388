package algorithms

import "time"

// What a port of the algorithms (algorithms/redislua runs them as Lua scripts on
// Redis) needs to make the same integer steps and compose the same decisions.

// Credits is a policy's integer form (see credits.go), as a port needs it.
type Credits struct {
	Unit     int64 // credits in one unit of cost
	PerMicro int64 // credits refilled (or drained) per microsecond
	Capacity int64 // Burst × Unit
	PeriodUS int64 // the period in microseconds
	FillUS   int64 // after this long, any balance from Floor is full (or any level empty)
	Floor    int64 // the lowest balance: −MaxReserved × Unit
}

// CreditsOf is p's credits for balances going down to −maxReserved units.
func CreditsOf(p Policy, maxReserved int64) Credits {
	c := newCredits(p)
	floor := -maxReserved * c.unit
	c = c.withFloor(floor)
	return Credits{Unit: c.unit, PerMicro: c.perMicro, Capacity: c.capacity, PeriodUS: c.periodUS, FillUS: c.fillUS, Floor: floor}
}

// Units converts credits to units of cost exactly as the limiters do (see
// credits.units: the floor of the result is the whole units cr holds).
func (c Credits) Units(cr int64) float64 { return float64(cr) / float64(c.Unit) }

// Micros is d in whole microseconds, rounding towards the past, as limiters read now.
func Micros(d time.Duration) int64 { return toMicros(d) }

// MicrosDuration turns microseconds into a duration, saturating at Forever.
func MicrosDuration(us int64) time.Duration { return microsToDuration(us) }

// Jitter is a denial's retry-after of retryAfterUS µs with the key's jitter factor
// (see JitterFactor) applied, as every limiter applies it.
func Jitter(retryAfterUS int64, factor float64) time.Duration { return jitter(retryAfterUS, factor) }

// WindowOffset is where key's fixed windows start, in µs after the origin's,
// with random starts: a share of the period taken from the key's hash.
func WindowOffset(key string, period time.Duration) int64 {
	return int64(KeyHash(key) % uint64(period/Resolution))
}

// Request is one decision asked of a limiter.
type Request struct {
	Key  string
	Now  time.Duration
	Cost int64
}

// BatchLimiter decides several requests in one round trip, in order, exactly as
// Allow would one at a time: a limiter whose state is remote.
type BatchLimiter interface {
	Limiter
	AllowBatch(reqs []Request, out []Decision)
}

// RedisPort is how an algorithm runs as a Lua script on Redis (package
// algorithms/redislua): the script, the Redis keys one key's state takes, and how
// a call is made and its reply read. The script makes the limiter's own integer
// steps in doubles, so it decides exactly as the Go limiter does.
type RedisPort struct {
	// Script names the Lua script, algorithms/redislua/scripts/<Script>.lua.
	Script string
	// KeySuffixes name the Redis keys of one key's state, appended to the key's
	// Redis name; nil: one key, the name itself.
	KeySuffixes []string
	// Call is the script's calls for a policy and options.
	Call func(p Policy, o Options) ScriptCall
}

// ScriptCall is how one limiter calls its script. Every script takes ARGV: now
// (µs from the run's origin), cost, Args, the keys' expiry in ms, then the mode
// ('allow'; 'check': the same answer, nothing written; 'level'). Each script's
// header lists its Args.
type ScriptCall struct {
	// Args are the policy's arguments, in the script's order.
	Args []any
	// PerKeyArg, when >= 0, is the index in Args of an argument that depends on
	// the key, PerKey(key) in each call (the fixed window's random start).
	PerKeyArg int
	PerKey    func(key string) int64
	// MonotonicArg, when >= 0, is the index in Args of the max(now, ts) switch
	// (1 on, 0 off), which a live control flips (SetMonotonic).
	MonotonicArg int
	// Decision composes the decision for key from an 'allow' or 'check' reply.
	Decision func(key string, reply []int64) Decision
	// Level reads a 'level' reply.
	Level func(reply []int64) float64
}

// callOf starts a ScriptCall with no per-key and no monotonic argument.
func callOf(args ...any) ScriptCall {
	return ScriptCall{Args: args, PerKeyArg: -1, MonotonicArg: -1}
}

// bit is a switch as a script argument.
func bit(b bool) int {
	if b {
		return 1
	}
	return 0
}

// bucketReply composes a decision as the buckets' scripts (and the sliding log's)
// answer: {allowed, remaining, retry_us (−1: never), reset_us, delay_us}, with
// remaining read by units and limit the capacity the decision reports.
func bucketReply(p Policy, limit int64, units func(int64) float64) func(string, []int64) Decision {
	return func(key string, r []int64) Decision {
		d := Decision{Allowed: r[0] == 1, Limit: limit, Remaining: units(r[1]),
			ResetAfter: microsToDuration(r[3]), Delay: microsToDuration(r[4])}
		replyRetry(&d, p, key, r[2])
		return d
	}
}

// replyRetry sets a denial's retry-after from a script's µs (−1: never), with the
// key's jitter, as the limiters do.
func replyRetry(d *Decision, p Policy, key string, us int64) {
	switch {
	case d.Allowed:
	case us < 0:
		d.RetryAfter = Forever
	default:
		d.RetryAfter = jitter(us, JitterFactor(key, p.RetryJitter))
	}
}

// plainUnits reads a reply's count as units.
func plainUnits(n int64) float64 { return float64(n) }
