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
