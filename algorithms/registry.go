package algorithms

import (
	"fmt"
	"strings"
)

// Names lists the algorithms in the order lanes are shown, as used in scenario files
// and on the command line.
var Names = []string{"fixed-window", "sliding-log", "sliding-counter", "leaky-bucket", "token-bucket", "gcra", "x-time-rate"}

// Options are the per-algorithm knobs on top of a Policy. Each applies to the
// algorithm it names and is ignored by the others; Check says so when one is set
// for an algorithm it does not apply to.
type Options struct {
	// RandomStart offsets each key's fixed windows by a share of the period taken
	// from the key's hash (fixed-window).
	RandomStart bool
	// Rollover is the most unused units a fixed window carries into the next
	// (fixed-window).
	Rollover int64
	// Mode is queue (shaping) or meter (policing) (leaky-bucket).
	Mode LeakyMode
	// MonotonicTimestamp stores max(now, ts) rather than now, so a node whose
	// clock is behind cannot move the stored time back (token-bucket).
	MonotonicTimestamp bool
	// MaxReserved lets a token bucket's balance go this far negative: requests are
	// accepted with a Delay until their tokens exist (token-bucket).
	MaxReserved int64
}

// Check returns an error naming an option set for an algorithm it does not apply
// to, so a misplaced knob is not silently ignored.
func (o Options) Check(algorithm string) error {
	misplaced := func(option, owner string) error {
		return fmt.Errorf("%s applies to %s only (this lane runs %s)", option, owner, algorithm)
	}
	switch {
	case o.RandomStart && algorithm != "fixed-window":
		return misplaced(`window_start = "random"`, "fixed-window")
	case o.Rollover != 0 && algorithm != "fixed-window":
		return misplaced("rollover", "fixed-window")
	case o.Mode != LeakyQueue && algorithm != "leaky-bucket":
		return misplaced("mode", "leaky-bucket")
	case o.MaxReserved != 0 && algorithm != "token-bucket":
		return misplaced("max_reserved", "token-bucket")
	case o.Rollover < 0:
		return fmt.Errorf("rollover must be >= 0 (got %d)", o.Rollover)
	case o.MaxReserved < 0:
		return fmt.Errorf("max_reserved must be >= 0 (got %d)", o.MaxReserved)
	}
	return nil
}

// New returns the limiter called name enforcing p with opts. The policy must have
// passed Validate.
func New(name string, p Policy, opts Options) (Limiter, error) {
	if err := opts.Check(name); err != nil {
		return nil, err
	}
	switch name {
	case "fixed-window":
		return NewFixedWindow(p, opts.RandomStart, opts.Rollover), nil
	case "sliding-log":
		return NewSlidingLog(p), nil
	case "sliding-counter":
		return NewSlidingCounter(p), nil
	case "leaky-bucket":
		return NewLeakyBucket(p, opts.Mode), nil
	case "token-bucket":
		return NewTokenBucket(p, opts.MonotonicTimestamp, opts.MaxReserved), nil
	case "gcra":
		return NewGCRA(p), nil
	case "x-time-rate":
		return NewXTimeRate(p), nil
	}
	return nil, fmt.Errorf("unknown algorithm %q; known: %s", name, strings.Join(Names, ", "))
}

// Capacity is the most units the algorithm accepts at one instant from an idle
// key: the burst for the buckets and GCRA, the limit for the sliding windows, the
// limit plus the rollover for the fixed window. A request costing more is never
// accepted; the theoretical maximum over a span T is Capacity + rate × T.
func Capacity(name string, p Policy, o Options) int64 {
	p = p.WithDefaults()
	switch name {
	case "fixed-window":
		return p.Limit + o.Rollover
	case "sliding-log", "sliding-counter":
		return p.Limit
	}
	return p.Burst
}
