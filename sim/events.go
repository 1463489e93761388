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
)

// event is one thing scheduled on the virtual clock. Events run in (at, seq) order:
// seq is the order they were scheduled in, so ties break the same way every run.
type event struct {
	at   time.Duration
	seq  uint64
	kind eventKind
	ref  int32
}

// eventHeap is a binary min-heap of events, earliest first, written out for the
// event type rather than through container/heap, whose interface calls (Less, Swap)
// cannot be inlined and which would box every event pushed: the heap is on the
// hot path of every delayed admission and retry. (time, seq) is a strict order
// (seq is unique), so any heap pops the events in the same order.
type eventHeap []event

// before says event a runs before b.
func before(a, b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// push schedules e.
func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !before(&s[i], &s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

// pop removes and returns the earliest event; the heap must not be empty.
func (h *eventHeap) pop() event {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(s) {
			break
		}
		if r := c + 1; r < len(s) && before(&s[r], &s[c]) {
			c = r
		}
		if !before(&s[c], &s[i]) {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
	*h = s
	return top
}
