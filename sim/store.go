package sim

import (
	"time"

	"ratelab/algorithms"
)

// splitter is a limiter whose decision a non-atomic lane takes apart into steps (see
// algorithms.Stepper): read the key's state into a slot, decide on the slot's copy,
// and later write the slot back or drop it. Slots are reused, so no step allocates.
type splitter interface {
	// read copies key's state at now into a free slot and returns it.
	read(key string, now time.Duration) int32
	// decide decides on the slot's state and replaces it with the state to write.
	decide(slot int32, key string, now time.Duration, cost int64) algorithms.Decision
	// write stores the slot's state as key's, whatever is there, and frees the slot.
	write(slot int32, key string)
	// drop frees the slot without writing.
	drop(slot int32)
}

// newSplitter returns the splitter for lim, and false if its state is not a value.
func newSplitter(lim algorithms.Limiter) (splitter, bool) {
	switch s := lim.(type) {
	case algorithms.Stepper[algorithms.TokenState]:
		return &steps[algorithms.TokenState]{st: s}, true
	case algorithms.Stepper[algorithms.GCRAState]:
		return &steps[algorithms.GCRAState]{st: s}, true
	}
	return nil, false
}

// steps adapts an algorithms.Stepper with state type S.
type steps[S any] struct {
	st    algorithms.Stepper[S]
	slots []S
	free  []int32
}

func (p *steps[S]) read(key string, now time.Duration) int32 {
	s := p.st.Read(key, now)
	if n := len(p.free); n > 0 {
		slot := p.free[n-1]
		p.free = p.free[:n-1]
		p.slots[slot] = s
		return slot
	}
	p.slots = append(p.slots, s)
	return int32(len(p.slots) - 1)
}

func (p *steps[S]) decide(slot int32, key string, now time.Duration, cost int64) algorithms.Decision {
	d, next := p.st.Decide(p.slots[slot], key, now, cost)
	p.slots[slot] = next
	return d
}

func (p *steps[S]) write(slot int32, key string) {
	p.st.Write(key, p.slots[slot])
	p.free = append(p.free, slot)
}

func (p *steps[S]) drop(slot int32) { p.free = append(p.free, slot) }
