package sim

import (
	"fmt"
	"math/bits"
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
//
// Most other kinds of event are scheduled a fixed time after now (a retry's
// backoff, a job's service time and its client's timeout, a queue's admissions),
// so each kind's events mostly come in the order they run: an event that runs
// after every event of its kind already waiting goes at the end of its kind's
// queue (runs), only the others into the heap, and take picks the earliest of
// the heap's top, the arrival slots and the queues' heads. A retry storm's tens
// of thousands of waiting jobs then cost no heap work at all.
type engine struct {
	now    time.Duration
	seq    uint64
	events eventHeap
	runs   [evInput]eventRun // per kind of event, those scheduled in running order
	queued uint16            // the kinds whose queue is not empty, a bit each (evInput ≤ 16)

	arrivals     []event // per client; at == never when empty
	sideArrivals bool

	// pin, while not zero, is the sequence numbers a deferred operation reserved
	// when it was made (see reserve), handed out while its answer is applied.
	pin, pinEnd uint64
}

// queued holds a bit per kind of event with a queue: it would not compile past 16.
const _ = uint16(1) << (evInput - 1)

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

// later is d after t, or never when that does not fit a time.Duration: a wait a
// limiter reports near Forever (a policy of one request a year) must not wrap
// around into the past.
func later(t, d time.Duration) time.Duration {
	if d > never-t {
		return never
	}
	return t + d
}

// schedule adds an event of kind for ref at `at`.
func (e *engine) schedule(at time.Duration, kind eventKind, ref int) {
	e.push(event{at: at, seq: e.nextSeq(), kind: kind, ref: int32(ref)})
}

// push adds ev: at the end of its kind's queue when it runs after every event
// there, else into the heap.
func (e *engine) push(ev event) {
	if int(ev.kind) < len(e.runs) {
		if r := &e.runs[ev.kind]; r.empty() || before(r.last(), &ev) {
			r.buf = append(r.buf, ev)
			e.queued |= 1 << ev.kind
			return
		}
	}
	e.events.push(ev)
}

// eventRun is a queue of events in running order: pushed at the end, taken from
// the head.
type eventRun struct {
	buf  []event
	head int
}

func (r *eventRun) empty() bool  { return r.head == len(r.buf) }
func (r *eventRun) last() *event { return &r.buf[len(r.buf)-1] }

// take removes the head and says whether the queue is empty now; the room
// before the head is reused once the queue empties, or moved into once it is
// most of the buffer.
func (r *eventRun) take() (empty bool) {
	r.head++
	switch {
	case r.head == len(r.buf):
		r.buf, r.head = r.buf[:0], 0
		return true
	case r.head >= 1024 && 2*r.head >= len(r.buf):
		n := copy(r.buf, r.buf[r.head:])
		r.buf, r.head = r.buf[:n], 0
	}
	return false
}

// scheduleArrival schedules client ci's next arrival at `at`, and returns its
// sequence number (an arrival whose number is not its client's latest is stale).
func (e *engine) scheduleArrival(at time.Duration, ci int) uint64 {
	ev := event{at: at, seq: e.nextSeq(), kind: evArrival, ref: int32(ci)}
	if !e.sideArrivals {
		e.push(ev)
	} else {
		e.arrivals[ci] = ev
	}
	return ev.seq
}

// take removes and returns the earliest event before limit, from the heap, the
// arrival slots or the queues, in (time, seq) order; false when there is none.
func (e *engine) take(limit time.Duration) (event, bool) {
	slot, run := -1, -1
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
	for q := e.queued; q != 0; q &= q - 1 {
		k := bits.TrailingZeros16(q)
		if r := &e.runs[k]; ev.at == never || before(&r.buf[r.head], &ev) {
			ev, slot, run = r.buf[r.head], -1, k
		}
	}
	if ev.at >= limit {
		return ev, false
	}
	switch {
	case run >= 0:
		if e.runs[run].take() {
			e.queued &^= 1 << run
		}
	case slot >= 0:
		e.arrivals[slot].at = never
	default:
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
	e.events.push(ev) // the heap: it may run before its kind's queue's events
}
