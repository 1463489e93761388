package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestEventsRunInTimeThenScheduleOrder(t *testing.T) {
	var h eventHeap
	for i, at := range []time.Duration{5, 1, 5, 3, 1, 5} {
		h.push(event{at: at, seq: uint64(i), ref: int32(i)})
	}
	var got []int32
	for len(h) > 0 {
		got = append(got, h.pop().ref)
	}
	want := []int32{1, 4, 3, 0, 2, 5}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events popped in order %v, want %v (time, then scheduling order)", got, want)
		}
	}
}

// Pushes and pops interleaved at random, many events at one time: every pop is
// the earliest by (time, seq) of those pushed and not yet popped.
func TestEventHeapPopsTheEarliest(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var h eventHeap
	var live []event
	seq := uint64(0)
	for step := 0; step < 200_000; step++ {
		if len(h) == 0 || r.IntN(3) > 0 {
			seq++
			e := event{at: time.Duration(r.IntN(50)), seq: seq}
			h.push(e)
			live = append(live, e)
			continue
		}
		got := h.pop()
		best := 0
		for i := range live {
			if before(&live[i], &live[best]) {
				best = i
			}
		}
		if got != live[best] {
			t.Fatalf("step %d: pop = %+v, want %+v", step, got, live[best])
		}
		live = append(live[:best], live[best+1:]...)
	}
}

// The engine, with its kinds' queues and arrival slots beside the heap, takes
// events in (time, seq) order whatever order they were scheduled in: events of
// one kind mostly in running order (a fixed delay after a clock that moves on),
// some out of it, sequence numbers out of order as a deferred operation's are,
// events put back after being taken too early, and limits that stop a take.
func TestEngineTakesTheEarliest(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	e := newEngine(3)
	var live []event
	var reserved []uint64
	now := time.Duration(0)
	for step := 0; step < 200_000; step++ {
		switch {
		case len(live) == 0 || r.IntN(2) == 0:
			kind := eventKind(r.IntN(int(evInput) + 1))
			at := now + time.Duration(r.IntN(4))*10 // a fixed delay, mostly
			if r.IntN(8) == 0 {
				at = now + time.Duration(r.IntN(100))
			}
			seq := e.nextSeq()
			switch {
			case r.IntN(10) == 0:
				reserved = append(reserved, e.reserve()) // for a deferred operation
			case r.IntN(10) == 0 && len(reserved) > 0 && reserved[0]%seqStride < seqStride-1:
				reserved[0]++ // a number the operation reserved earlier
				seq = reserved[0]
			}
			ev := event{at: at, seq: seq, kind: kind, ref: int32(step)}
			if kind == evArrival {
				ev.ref = int32(r.IntN(3))
				if e.arrivals[ev.ref].at != never {
					continue // one pending arrival a client
				}
				e.arrivals[ev.ref] = ev
			} else {
				e.push(ev)
			}
			live = append(live, ev)
		default:
			limit := now + time.Duration(r.IntN(60))
			got, ok := e.take(limit)
			best := 0
			for i := range live {
				if before(&live[i], &live[best]) {
					best = i
				}
			}
			if want := live[best]; want.at >= limit {
				if ok {
					t.Fatalf("step %d: took %+v at limit %v", step, got, limit)
				}
				continue
			}
			if !ok || got != live[best] {
				t.Fatalf("step %d: took %+v (%v), want %+v", step, got, ok, live[best])
			}
			if r.IntN(10) == 0 { // taken too early: back where it was
				e.putBack(got)
				continue
			}
			live = append(live[:best], live[best+1:]...)
			now = max(now, got.at)
		}
	}
}
