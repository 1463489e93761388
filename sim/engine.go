package sim

import (
	"fmt"
	"time"
)

// engine is one lane's discrete-event kernel: virtual time, the events scheduled,
// and the sequence numbers that break ties between events at the same instant.
// Events run in (time, sequence) order, sequence being the order they were
// scheduled in, so a run is the same every time.
//
// Open-loop arrivals are the bulk of the events; when a lane has few clients each
// client's next arrival is kept in a slot beside the heap (sideArrivals), and take
// picks the earliest of the slots and the heap's top in the same (time, sequence)
// order: the same run, with no heap work per arrival.
type engine struct {
	now    time.Duration
	seq    uint64
	events eventHeap

	arrivals     []event // per client; at == never when empty
	sideArrivals bool

	// pin, while not zero, is the sequence numbers a deferred operation reserved
	// when it was made (see reserve), handed out while its answer is applied.
	pin, pinEnd uint64
}

// never is the time of an empty arrival slot.
const never = time.Duration(1<<63 - 1)

// maxSideArrivals is the most clients whose arrivals are kept beside the heap; with
// more, scanning them would cost more than the heap does.
const maxSideArrivals = 8

// seqStride spaces the sequence numbers of events. An operation deferred to a
// batch (see batcher) reserves the stride after its own number when it is made,
// and the events its answer schedules, when the batch is decided a round trip
// later, take those numbers: ties then break exactly as if it had been decided at
// once. So one deferred operation may schedule at most seqStride − 1 events;
// nextSeq checks it.
const seqStride = 64

func newEngine(clients int) engine {
	e := engine{seq: inputSeqs, sideArrivals: clients <= maxSideArrivals}
	if e.sideArrivals {
		e.arrivals = make([]event, clients)
		for i := range e.arrivals {
			e.arrivals[i].at = never
		}
	}
	return e
}

// nextSeq is the sequence number of the next event scheduled: the next stride, or,
// while a deferred operation's answer is applied, the next of the numbers it
// reserved.
func (e *engine) nextSeq() uint64 {
	if e.pin != 0 {
		e.pin++
		if e.pin >= e.pinEnd {
			panic(fmt.Sprintf("sim: a deferred decision scheduled %d events; at most %d fit its reserved sequence numbers", seqStride, seqStride-1))
		}
		return e.pin
	}
	e.seq += seqStride
	return e.seq
}

// reserve takes the next stride of sequence numbers for an operation deferred to a
// batch and returns its base, to pass to applying.
func (e *engine) reserve() uint64 {
	e.seq += seqStride
	return e.seq
}

// applying makes the events scheduled until done take the numbers reserved at
// base, at virtual time at, as if the operation had been decided then.
func (e *engine) applying(at time.Duration, base uint64) {
	e.now, e.pin, e.pinEnd = at, base, base+seqStride
}

// done ends applying, back at virtual time now.
func (e *engine) done(now time.Duration) { e.now, e.pin, e.pinEnd = now, 0, 0 }

// schedule adds an event of kind for ref at `at`.
func (e *engine) schedule(at time.Duration, kind eventKind, ref int) {
	e.events.push(event{at: at, seq: e.nextSeq(), kind: kind, ref: int32(ref)})
}

// scheduleArrival schedules client ci's next arrival at `at`, and returns its
// sequence number (an arrival whose number is not its client's latest is stale).
func (e *engine) scheduleArrival(at time.Duration, ci int) uint64 {
	ev := event{at: at, seq: e.nextSeq(), kind: evArrival, ref: int32(ci)}
	if !e.sideArrivals {
		e.events.push(ev)
	} else {
		e.arrivals[ci] = ev
	}
	return ev.seq
}

// take removes and returns the earliest event before limit, from the heap or the
// arrival slots, in (time, seq) order; false when there is none.
func (e *engine) take(limit time.Duration) (event, bool) {
	slot := -1
	var ev event
	if len(e.events) > 0 {
		ev = e.events[0]
	} else {
		ev.at = never
	}
	for i := range e.arrivals {
		if a := &e.arrivals[i]; a.at < ev.at || (a.at == ev.at && a.at != never && a.seq < ev.seq) {
			ev, slot = *a, i
		}
	}
	if ev.at >= limit {
		return ev, false
	}
	if slot >= 0 {
		e.arrivals[slot].at = never
	} else {
		e.events.pop()
	}
	return ev, true
}

// putBack returns an event taken too early to where it was, keeping its order.
func (e *engine) putBack(ev event) {
	if ev.kind == evArrival && e.sideArrivals {
		e.arrivals[ev.ref] = ev
		return
	}
	e.events.push(ev)
}
