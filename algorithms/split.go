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

// NewSplitter returns lim as a Splitter: itself if it is one, else its
// algorithm's in-memory split (Info.Split), and false if its state is not a
// value.
func NewSplitter(lim Limiter) (Splitter, bool) {
	if s, ok := lim.(Splitter); ok {
		return s, true
	}
	if a, ok := Lookup(lim.Algorithm()); ok && a.Split != nil {
		return a.Split.memory(lim)
	}
	return nil, false
}

// Split takes a splittable algorithm's decision apart (Info.Split): in memory,
// over its own state type, and for a remote port, over its state as the integers
// the port's script stores.
type Split interface {
	// Fields names the state's integers as the script keeps them: the fields
	// of a Redis hash, in order; nil for one integer held as a plain value.
	Fields() []string
	// Remote returns the algorithm as a remote port's steps need it: it decides
	// on a state read from the store, and holds none itself.
	Remote(p Policy, o Options) RemoteSteps
	// memory returns lim, the algorithm in memory, as a Splitter.
	memory(lim Limiter) (Splitter, bool)
}

// RemoteSteps decides on a state read from a remote store: the integers of
// Split.Fields (one when Fields is nil), in a slice the caller owns. It is safe
// for concurrent use as long as each caller passes its own slice.
type RemoteSteps interface {
	// Idle writes into v the state of a key idle forever at now: what a key the
	// store does not hold has.
	Idle(key string, now time.Duration, v []int64)
	// Decide decides on v and leaves in it the state to write back.
	Decide(v []int64, key string, now time.Duration, cost int64) Decision
	// SetMonotonic switches the max(now, ts) fix where the algorithm has one.
	SetMonotonic(on bool)
}

// newSplit is the split of an algorithm whose Stepper has state S, stored as the
// integers fields names: store writes S into them, load reads it back, build
// makes the algorithm for a policy and options.
func newSplit[S any](fields []string, store func(S, []int64), load func([]int64) S, build func(Policy, Options) Stepper[S]) Split {
	return split[S]{fields: fields, store: store, load: load, build: build}
}

type split[S any] struct {
	fields []string
	store  func(S, []int64)
	load   func([]int64) S
	build  func(Policy, Options) Stepper[S]
}

func (s split[S]) Fields() []string { return s.fields }

func (s split[S]) Remote(p Policy, o Options) RemoteSteps {
	return &remoteSteps[S]{split: s, st: s.build(p, o)}
}

func (s split[S]) memory(lim Limiter) (Splitter, bool) {
	st, ok := lim.(Stepper[S])
	if !ok {
		return nil, false
	}
	return &memorySplitter[S]{st: st, versions: map[string]uint64{}}, true
}

// remoteSteps is a split's RemoteSteps: the algorithm in memory, asked only to
// decide on states it is handed.
type remoteSteps[S any] struct {
	split[S]
	st Stepper[S]
}

func (r *remoteSteps[S]) Idle(key string, now time.Duration, v []int64) {
	r.store(r.st.Read(key, now), v)
}

func (r *remoteSteps[S]) Decide(v []int64, key string, now time.Duration, cost int64) Decision {
	d, next := r.st.Decide(r.load(v), key, now, cost)
	r.store(next, v)
	return d
}

func (r *remoteSteps[S]) SetMonotonic(on bool) {
	if m, ok := r.st.(interface{ SetMonotonic(bool) }); ok {
		m.SetMonotonic(on)
	}
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

// Invalidate is told that the limiter's state was dropped (a store flushed): every
// key ever written changes, as deleting it does on Redis, so a WATCH read before
// it fails to commit.
func (p *memorySplitter[S]) Invalidate() int {
	for key := range p.versions {
		p.versions[key]++
	}
	return len(p.versions)
}
