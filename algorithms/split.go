package algorithms

import (
	"time"

	"ratelab/internal/slab"
)

// The non-atomic strategies. A decision is read, compute and write; when those are
// not one atomic step, another client can decide on the same state in between,
// which is how read-compute-write over-grants. These types are the one home of that
// protocol: the in-memory limiters implement it through Stepper and NewSplitter, the
// Redis ports (algorithms/redislua) with real commands, and the simulator schedules
// its steps on the virtual clock.

// Strategy is how a lane's deciders reach the limiter's state.
type Strategy int

const (
	// Atomic: read, decide and write in one step (a Lua script, a mutex).
	Atomic Strategy = iota
	// Multi: read at t, decide, write back blindly at t + round trip (HMGET,
	// compute, HSET): concurrent deciders over-grant.
	Multi
	// Watch: read at t, commit at t + round trip only if nobody wrote the key in
	// between (WATCH/MULTI/EXEC), else read again, up to a number of tries.
	Watch
)

// Strategies lists the strategies by their names in scenario files and on the
// command line.
var Strategies = []string{"atomic", "multi", "watch"}

// String is the strategy's name.
func (s Strategy) String() string { return Strategies[s] }

// ParseStrategy reads a strategy's name; "lua" is accepted for atomic, the name
// ratelab bench used for it.
func ParseStrategy(name string) (Strategy, bool) {
	switch name {
	case "atomic", "lua":
		return Atomic, true
	case "multi":
		return Multi, true
	case "watch":
		return Watch, true
	}
	return 0, false
}

// Stepper is a limiter whose decision can be taken apart into the steps a
// non-atomic client takes: read the key's state, decide on the copy, write the
// result back. Allow is the three steps taken at once.
type Stepper[S any] interface {
	Limiter
	// Read returns key's state, or the state of a key idle forever.
	Read(key string, now time.Duration) S
	// Decide decides on s without touching the limiter, returning the state to
	// write back.
	Decide(s S, key string, now time.Duration, cost int64) (Decision, S)
	// Write stores s as key's state, whatever is stored now.
	Write(key string, s S)
}

var (
	_ Stepper[TokenState] = (*TokenBucket)(nil)
	_ Stepper[GCRAState]  = (*GCRA)(nil)
)

// Splitter is a limiter whose decision a non-atomic lane takes apart into steps:
// read the key's state into a slot, decide on the slot's copy, and a round trip
// later write it back blindly (Multi) or commit it only if nobody wrote the key
// since the read (Watch).
type Splitter interface {
	// ReadState copies key's state at now into a slot and returns the slot; node
	// is the application node reading (its connection), watch says a commit will
	// follow rather than a blind write.
	ReadState(node int, key string, now time.Duration, watch bool) int32
	// DecideOn decides on the slot's state and makes it the state to write.
	DecideOn(slot int32, key string, now time.Duration, cost int64) Decision
	// WriteState stores the slot's state as key's, whatever is there now, and
	// frees the slot.
	WriteState(slot int32, node int, key string)
	// CommitState stores the slot's state only if key was not written since the
	// slot's read, says whether it did, and frees the slot.
	CommitState(slot int32, key string) bool
	// DropState frees the slot without writing.
	DropState(slot int32)
}

// StepBatcher is a Splitter that can take many reads and blind writes in one round
// trip, in order, as one at a time would (the Redis limiters, pipelined).
type StepBatcher interface {
	Splitter
	Steps(steps []Step)
}

// Step is one step of a non-atomic decision taken in a batch: a read, which fills
// Slot, or a blind write of Slot's state, which frees it.
type Step struct {
	Write bool
	Slot  int32
	Node  int
	Key   string
	Now   time.Duration
}

// NewSplitter returns lim as a Splitter: itself if it is one, an adapter for an
// in-memory Stepper, and false if its state is not a value (the algorithm's Info
// says Splittable).
func NewSplitter(lim Limiter) (Splitter, bool) {
	switch s := lim.(type) {
	case Splitter:
		return s, true
	case Stepper[TokenState]:
		return &memorySplitter[TokenState]{st: s, versions: map[string]uint64{}}, true
	case Stepper[GCRAState]:
		return &memorySplitter[GCRAState]{st: s, versions: map[string]uint64{}}, true
	}
	return nil, false
}

// memorySplitter adapts an in-memory Stepper with state type S. A key's version
// counts the writes to it, so a commit can tell whether the key changed since its
// read, as WATCH does.
type memorySplitter[S any] struct {
	st       Stepper[S]
	slots    slab.Slab[splitSlot[S]]
	versions map[string]uint64
}

type splitSlot[S any] struct {
	state   S
	version uint64
}

func (p *memorySplitter[S]) ReadState(_ int, key string, now time.Duration, _ bool) int32 {
	return p.slots.Put(splitSlot[S]{state: p.st.Read(key, now), version: p.versions[key]})
}

func (p *memorySplitter[S]) DecideOn(slot int32, key string, now time.Duration, cost int64) Decision {
	st := p.slots.At(slot)
	d, next := p.st.Decide(st.state, key, now, cost)
	st.state = next
	return d
}

func (p *memorySplitter[S]) WriteState(slot int32, _ int, key string) {
	p.st.Write(key, p.slots.At(slot).state)
	p.versions[key]++
	p.slots.Release(slot)
}

func (p *memorySplitter[S]) CommitState(slot int32, key string) bool {
	if p.versions[key] != p.slots.At(slot).version {
		p.slots.Release(slot)
		return false
	}
	p.WriteState(slot, 0, key)
	return true
}

func (p *memorySplitter[S]) DropState(slot int32) { p.slots.Release(slot) }
