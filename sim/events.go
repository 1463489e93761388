package sim

import "time"

// eventKind says what happens at an event.
type eventKind uint8

const (
	evArrival        eventKind = iota // a client's next request(s) arrive; ref: client
	evAttempt                         // a request tries the limiter (again); ref: request
	evCommit                          // a non-atomic decision's write or EXEC lands; ref: request
	evAdmit                           // an accepted request leaves the limiter's queue; ref: request
	evBackendDone                     // the backend finishes a job; ref: job
	evBackendTimeout                  // a job's client stops waiting; ref: job
	evDeadline                        // a client stops waiting while its request is still in the limiter's queue; ref: request
	evWorker                          // a closed-loop worker sends its next request; ref: client
	evInput                           // an input (see inputs.go) is applied; ref: input
	evQueueTurn                       // a queued request's turn, where abandoned requests leave the queue (abandon.go); ref: request
	evQueueLeave                      // a queued request's client stops waiting there; ref: request
)

// event is one thing scheduled on the virtual clock. Events run in (at, seq) order:
// seq is the order they were scheduled in, so ties break the same way every run.
type event struct {
	at   time.Duration
	seq  uint64
	kind eventKind
	ref  int32
}

// eventHeap is a 4-ary min-heap of events, earliest first, written out for the
// event type rather than through container/heap, whose interface calls (Less, Swap)
// cannot be inlined and which would box every event pushed: the heap is on the
// hot path of every delayed admission and retry that comes out of running order
// (engine.push). Four children a node halve a binary heap's depth, and the four
// sit together in memory. (time, seq) is a strict order (seq is unique), so any
// heap pops the events in the same order.
type eventHeap []event

// heapArity is the children of a node: node i's are arity·i+1 … arity·i+arity.
const heapArity = 4

// before says event a runs before b.
func before(a, b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// push schedules e: it moves up from the end, parents moving down into its
// place, until its parent runs before it.
func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / heapArity
		if !before(&e, &s[p]) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = e
}

// pop removes and returns the earliest event; the heap must not be empty. The
// hole the earliest leaves goes down to a leaf, the earliest child moving up at
// each level, and the last event goes in from there upwards (Floyd's): the last
// event nearly always belongs near the bottom, so it is not compared on the way
// down.
func (h *eventHeap) pop() event {
	s := *h
	top := s[0]
	last := len(s) - 1
	x := s[last]
	s = s[:last]
	*h = s
	if last == 0 {
		return top
	}
	i := 0
	for {
		c := heapArity*i + 1
		if c >= last {
			break
		}
		best := c
		for j := c + 1; j < min(c+heapArity, last); j++ {
			if before(&s[j], &s[best]) {
				best = j
			}
		}
		s[i] = s[best]
		i = best
	}
	for i > 0 {
		p := (i - 1) / heapArity
		if !before(&x, &s[p]) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = x
	return top
}
