package sim

import (
	"time"

	"ratelab/algorithms"
)

// Splitter is a limiter whose decision a non-atomic lane takes apart into steps:
// read the key's state into a slot, decide on the slot's copy, and a round trip
// later write it back blindly (Multi) or commit it only if nobody wrote the key
// since the read (Watch). The in-memory token bucket and GCRA are splitters
// through newSplitter; the Redis limiters are splitters themselves, whose steps are
// real Redis commands.
type Splitter interface {
	// ReadState copies key's state at now into a slot and returns the slot; node
	// is the application node reading (its connection), watch says a commit will
	// follow rather than a blind write.
	ReadState(node int, key string, now time.Duration, watch bool) int32
	// DecideOn decides on the slot's state and makes it the state to write.
	DecideOn(slot int32, key string, now time.Duration, cost int64) algorithms.Decision
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
// trip, in order, as one at a time would (the Redis limiters, pipelined). A Multi
// lane with a round trip batches its steps as an atomic lane batches decisions.
type StepBatcher interface {
	Splitter
	Steps(steps []algorithms.Step)
}

// newSplitter returns lim as a Splitter: itself if it is one, an adapter for an
// in-memory algorithms.Stepper, and false if its state is not a value.
func newSplitter(lim algorithms.Limiter) (Splitter, bool) {
	switch s := lim.(type) {
	case Splitter:
		return s, true
	case algorithms.Stepper[algorithms.TokenState]:
		return &steps[algorithms.TokenState]{st: s, versions: map[string]uint64{}}, true
	case algorithms.Stepper[algorithms.GCRAState]:
		return &steps[algorithms.GCRAState]{st: s, versions: map[string]uint64{}}, true
	}
	return nil, false
}

// steps adapts an in-memory algorithms.Stepper with state type S. A key's version
// counts the writes to it, so a commit can tell whether the key changed since its
// read, as WATCH does.
type steps[S any] struct {
	st       algorithms.Stepper[S]
	slots    slab[stepSlot[S]]
	versions map[string]uint64
}

type stepSlot[S any] struct {
	state   S
	version uint64
}

func (p *steps[S]) ReadState(_ int, key string, now time.Duration, _ bool) int32 {
	return p.slots.put(stepSlot[S]{state: p.st.Read(key, now), version: p.versions[key]})
}

func (p *steps[S]) DecideOn(slot int32, key string, now time.Duration, cost int64) algorithms.Decision {
	st := p.slots.at(slot)
	d, next := p.st.Decide(st.state, key, now, cost)
	st.state = next
	return d
}

func (p *steps[S]) WriteState(slot int32, _ int, key string) {
	p.st.Write(key, p.slots.at(slot).state)
	p.versions[key]++
	p.slots.release(slot)
}

func (p *steps[S]) CommitState(slot int32, key string) bool {
	if p.versions[key] != p.slots.at(slot).version {
		p.slots.release(slot)
		return false
	}
	p.WriteState(slot, 0, key)
	return true
}

func (p *steps[S]) DropState(slot int32) { p.slots.release(slot) }
