package sim

import (
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
