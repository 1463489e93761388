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
