package sim

import (
	"container/heap"
	"time"
)

// eventKind says what happens at an event.
type eventKind uint8

const (
	evArrival        eventKind = iota // a client's next request(s) arrive; ref: client
	evAttempt                         // a request tries the limiter (again); ref: request
	evCommit                          // a non-atomic decision's write or EXEC lands; ref: request
	evAdmit                           // an accepted request leaves the limiter's queue; ref: request
	evBackendDone                     // the backend finishes a job; ref: job
	evBackendTimeout                  // a job's client stops waiting; ref: job
	evWorker                          // a closed-loop worker sends its next request; ref: client
	evInput                           // an input (see inputs.go) is applied; ref: input
)

// event is one thing scheduled on the virtual clock. Events run in (at, seq) order:
// seq is the order they were scheduled in, so ties break the same way every run.
type event struct {
	at   time.Duration
	seq  uint64
	kind eventKind
	ref  int32
}

// eventHeap is a container/heap of events, earliest first. push and pop go through
// heap.Fix rather than heap.Push and heap.Pop, which would box every event in an
// interface (an allocation per event on the hot path).
type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// push schedules e.
func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	heap.Fix(h, len(*h)-1)
}

// pop removes and returns the earliest event; the heap must not be empty.
func (h *eventHeap) pop() event {
	old := *h
	e := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	if last > 0 {
		heap.Fix(h, 0)
	}
	return e
}
