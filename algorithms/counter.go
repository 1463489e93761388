package algorithms

import "time"

// Counter is a limiter whose state for a key is a count of units in windows,
// which a store can add to without deciding (Redis's INCRBY). A replicated
// limiter that decides on a count read from a replica and adds to the count on
// the primary (GitHub's 2021 design) takes Allow apart into those two steps on
// two servers: Check on one copy, then Add on another. Allow is Check, then Add
// when allowed, on one copy.
type Counter interface {
	Limiter
	Checker
	// Add counts cost units for key at now whatever the limit: the count may
	// pass it, as an increment of a number in a store does. A count past the
	// limit refuses until its windows have passed, as Allow would refuse it.
	Add(key string, now time.Duration, cost int64)
}

var (
	_ Counter = (*FixedWindow)(nil)
	_ Counter = (*SlidingCounter)(nil)
)

// Counters are the algorithms whose limiters are Counters, in registry order.
func Counters() []Name {
	return Where(func(a Info) bool {
		lim, err := New(a.Name, Policy{Limit: 1, Period: time.Second}, Options{})
		if err != nil {
			return false
		}
		_, ok := lim.(Counter)
		return ok
	})
}

// Add counts cost units in key's window at now, whatever its allowance. A
// window counted past its allowance carries nothing into the next (rollover).
func (f *FixedWindow) Add(key string, now time.Duration, cost int64) {
	s, ok := f.state(key)
	if !ok {
		idle := f.idle(key, toMicros(now))
		s = f.add(key, &idle)
	}
	*s = f.roll(*s, toMicros(now))
	s.Count += cost
}

// Add counts cost units in key's current window at now, whatever the
// estimate.
func (c *SlidingCounter) Add(key string, now time.Duration, cost int64) {
	s, ok := c.state(key)
	if !ok {
		s = c.add(key, &SlidingCounterState{Window: floorDiv(toMicros(now), c.periodUS)})
	}
	*s, _ = c.roll(*s, toMicros(now))
	s.Curr += cost
}
