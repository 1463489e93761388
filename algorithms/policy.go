package algorithms

import (
	"fmt"
	"time"
)

// Resolution is the smallest step of time a limiter tells apart: one microsecond,
// the resolution of Redis TIME. Periods must be whole multiples of it.
const Resolution = time.Microsecond

// MaxExact is the largest integer every limiter's arithmetic may reach: 2^53, the
// last integer a double (and so a Redis Lua number) holds exactly. Policy.Validate
// rejects policies whose credit arithmetic could pass it.
const MaxExact = int64(1) << 53

// Policy is one rate limit, stated once and mapped onto every algorithm: Limit units
// of cost per Period at the sustained rate, with room for Burst units at once.
//
//   - fixed window, sliding log, sliding window counter: at most Limit units in a
//     window of length Period (Burst is not used);
//   - token bucket, GCRA, leaky bucket, x/time/rate: capacity Burst, refilled (or
//     drained) at Limit per Period.
type Policy struct {
	// Limit is how many units of cost the policy allows per Period; > 0.
	Limit int64
	// Period is the length of the window, and the unit of the rate; a positive
	// whole number of microseconds.
	Period time.Duration
	// Burst is the most units a bucket holds, so the most accepted at one instant;
	// >= 1. Zero means "the same as Limit".
	Burst int64
	// RetryJitter adds a deterministic per-key jitter of up to this fraction
	// (0 to 1) to every denial's RetryAfter, seeded from the key, so clients told
	// to wait together come back spread out; the same key always gets the same share.
	RetryJitter float64
}

// WithDefaults returns p with Burst set to Limit when it was left at zero.
func (p Policy) WithDefaults() Policy {
	if p.Burst == 0 {
		p.Burst = p.Limit
	}
	return p
}

// Rate is the sustained rate in units per second, for display.
func (p Policy) Rate() float64 { return float64(p.Limit) / p.Period.Seconds() }

// String renders the policy the way a person writes it: "100 per 1s, burst 100".
func (p Policy) String() string {
	p = p.WithDefaults()
	return fmt.Sprintf("%d per %s, burst %d", p.Limit, p.Period, p.Burst)
}

// Validate checks p (after WithDefaults) and returns an error naming the field, the
// value and the rule. maxCost is the largest cost the caller will ask for; it must
// fit the exact arithmetic too.
func (p Policy) Validate(maxCost int64) error {
	p = p.WithDefaults()
	switch {
	case p.Limit <= 0:
		return fmt.Errorf("limit must be > 0 (got %d)", p.Limit)
	case p.Period <= 0:
		return fmt.Errorf("period must be > 0 (got %s)", p.Period)
	case p.Period%Resolution != 0:
		return fmt.Errorf("period must be a whole number of microseconds (got %s)", p.Period)
	case p.Burst < 1:
		return fmt.Errorf("burst must be >= 1 (got %d)", p.Burst)
	case !(p.RetryJitter >= 0 && p.RetryJitter <= 1): // NaN too
		return fmt.Errorf("retry_after_jitter must be a number from 0 to 1 (got %g)", p.RetryJitter)
	}
	periodUS := int64(p.Period / Resolution)
	largest := max(p.Limit, p.Burst)
	if largest <= MaxExact { // each below 2^53: the sum cannot overflow
		largest += max(min(maxCost, MaxExact), 1)
	}
	if largest > MaxExact/periodUS {
		return fmt.Errorf("limit %d (or burst %d) over a period of %s is too large for exact arithmetic: (limit + cost) × period in µs must stay below 2^53; use a shorter period", p.Limit, p.Burst, p.Period)
	}
	return nil
}

// MaxExactLimit is the largest limit (or burst) over period that Validate
// takes for requests of cost 1 (Validate(1)): (limit + cost) × period in µs stays below
// MaxExact. period is a whole positive number of microseconds.
func MaxExactLimit(period time.Duration) int64 { return MaxExact/int64(period/Resolution) - 1 }

// toMicros converts an offset from the origin to whole microseconds, rounding towards
// the past for negative offsets too.
func toMicros(d time.Duration) int64 { return floorDiv(int64(d), int64(Resolution)) }

// fromMicros converts whole microseconds back to a duration.
func fromMicros(us int64) time.Duration { return time.Duration(us) * Resolution }

// floorDiv divides rounding towards negative infinity (Go's / truncates towards zero).
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// ceilDiv divides rounding towards positive infinity; b > 0.
func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// CheckHorizon checks that times up to h either side of the origin keep the
// arithmetic exact: GCRA's scaled time is microseconds × (Limit / gcd(Limit, period
// in µs)), which must stay below 2^53.
func (p Policy) CheckHorizon(h time.Duration) error {
	c := newCredits(p)
	us := int64(h/Resolution) + 1
	if us > (MaxExact-2*c.capacity)/c.perMicro {
		return fmt.Errorf("a run of %s at %s is too long for exact arithmetic; shorten it or use a period that shares more factors with the limit", h, p)
	}
	return nil
}
