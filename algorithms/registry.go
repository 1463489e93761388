package algorithms

import (
	"fmt"
	"strings"
)

// Shape is what an algorithm's state measures, which decides what its Level means,
// what its capacity is, and what it promises over any span of time.
type Shape int

const (
	// ShapeBucket: a balance of tokens refilled at the rate (token bucket, GCRA,
	// x/time/rate). Level is the tokens left; capacity is the burst; over any span
	// T it admits at most burst + rate × T.
	ShapeBucket Shape = iota
	// ShapeLeaky: a level that drains at the rate (leaky bucket). Level is the units in
	// the bucket (the queue's length in queue mode); capacity is the burst.
	ShapeLeaky
	// ShapeFixedWindow: a count per window of one period. Level is the units in the
	// current window; capacity is the limit plus any rollover; across a window
	// boundary it may admit twice its capacity in an instant.
	ShapeFixedWindow
	// ShapeSlidingWindow: the units of the last period, kept exactly (sliding log) or
	// estimated from two windows (sliding counter). Level is the units in the
	// window; capacity is the limit.
	ShapeSlidingWindow
	// ShapeNone: no limit (the baseline lane). It holds nothing; what it shows is
	// the load on the service behind it.
	ShapeNone
)

// Info is what ratelab knows about one algorithm: its name, its shape, what it can
// do, and how to build it. It is the one place these facts are written; the
// scenario compiler, the engine, the Redis ports, the UI and the docs read it.
type Info struct {
	// Name as used in scenario files and on the command line.
	Name  string
	Shape Shape
	// Exact says the algorithm enforces its policy exactly in every window
	// (sliding-log); an estimate (sliding-counter) may stray a little.
	Exact bool
	// Splittable says the state is one value a client can read and write back,
	// so the non-atomic strategies (multi, watch) apply.
	Splittable bool
	// RedisScript names the algorithm's Lua script (algorithms/redislua/scripts);
	// empty when it has no Redis port.
	RedisScript string
	// Options are the scenario keys of Options that apply to it.
	Options []string
	// Baseline marks the no-limit lane, which is not a limiter: a scenario's lanes
	// default to every algorithm but it.
	Baseline bool

	build func(Policy, Options) Limiter
}

// LevelName says what Level measures, for a graph's axis: "tokens left",
// "queue length", "units in the window".
func (i Info) LevelName() string {
	switch i.Shape {
	case ShapeBucket:
		return "tokens left"
	case ShapeLeaky:
		return "units queued"
	case ShapeNone:
		return "nothing (no limit)"
	}
	return "units in the window"
}

// registry lists the algorithms in the order lanes are shown.
var registry = []Info{
	{Name: "fixed-window", Shape: ShapeFixedWindow, RedisScript: "fixed_window", Options: []string{"window_start", "rollover"},
		build: func(p Policy, o Options) Limiter { return NewFixedWindow(p, o.RandomStart, o.Rollover) }},
	{Name: "sliding-log", Shape: ShapeSlidingWindow, Exact: true, RedisScript: "sliding_log",
		build: func(p Policy, _ Options) Limiter { return NewSlidingLog(p) }},
	{Name: "sliding-counter", Shape: ShapeSlidingWindow, RedisScript: "sliding_counter",
		build: func(p Policy, _ Options) Limiter { return NewSlidingCounter(p) }},
	{Name: "leaky-bucket", Shape: ShapeLeaky, RedisScript: "leaky_bucket", Options: []string{"mode"},
		build: func(p Policy, o Options) Limiter { return NewLeakyBucket(p, o.Mode) }},
	{Name: "token-bucket", Shape: ShapeBucket, Splittable: true, RedisScript: "token_bucket", Options: []string{"monotonic_timestamp", "max_reserved"},
		build: func(p Policy, o Options) Limiter { return NewTokenBucket(p, o.MonotonicTimestamp, o.MaxReserved) }},
	{Name: "gcra", Shape: ShapeBucket, Splittable: true, RedisScript: "gcra",
		build: func(p Policy, _ Options) Limiter { return NewGCRA(p) }},
	{Name: "x-time-rate", Shape: ShapeBucket,
		build: func(p Policy, _ Options) Limiter { return NewXTimeRate(p) }},
	{Name: "none", Shape: ShapeNone, Baseline: true,
		build: func(p Policy, _ Options) Limiter { return NewUnlimited(p) }},
}

// All lists every algorithm, in the order lanes are shown.
func All() []Info { return append([]Info(nil), registry...) }

// Limiters lists the names of the algorithms that limit (all but the no-limit
// baseline), in the order lanes are shown: a scenario's default lanes.
func Limiters() []string {
	var names []string
	for _, a := range registry {
		if !a.Baseline {
			names = append(names, a.Name)
		}
	}
	return names
}

// Names lists every algorithm's name, in the order lanes are shown.
func Names() []string {
	names := make([]string, len(registry))
	for i, a := range registry {
		names[i] = a.Name
	}
	return names
}

// Lookup returns the algorithm called name.
func Lookup(name string) (Info, bool) {
	for _, a := range registry {
		if a.Name == name {
			return a, true
		}
	}
	return Info{}, false
}

// Get returns the algorithm called name, or an error listing the known names.
func Get(name string) (Info, error) {
	if a, ok := Lookup(name); ok {
		return a, nil
	}
	return Info{}, fmt.Errorf("unknown algorithm %q; known: %s", name, strings.Join(Names(), ", "))
}

// New returns the limiter called name enforcing p with opts. The policy must have
// passed Validate.
func New(name string, p Policy, opts Options) (Limiter, error) {
	a, err := Get(name)
	if err != nil {
		return nil, err
	}
	if err := opts.Check(name); err != nil {
		return nil, err
	}
	return a.build(p, opts), nil
}

// Capacity is the most units the algorithm accepts at one instant from an idle
// key: the burst for the buckets, GCRA and the leaky bucket, the limit for the
// sliding windows, the limit plus the rollover for the fixed window. A request
// costing more is never accepted; the theoretical maximum over a span T is
// Capacity + rate × T. An unknown name has the burst.
func Capacity(name string, p Policy, o Options) int64 {
	p = p.WithDefaults()
	a, _ := Lookup(name)
	switch a.Shape {
	case ShapeFixedWindow:
		return p.Limit + o.Rollover
	case ShapeSlidingWindow:
		return p.Limit
	}
	return p.Burst
}
