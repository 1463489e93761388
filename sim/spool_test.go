package sim

import (
	"reflect"
	"testing"
	"time"

	"ratelab/algorithms"
)

// Rows go through a spool in order and unchanged, however many are in it: in
// memory, on disk, read back, and the file reused once it is empty.
func TestSpoolKeepsOrderAndRows(t *testing.T) {
	defer func(m int) { spoolMemory = m }(spoolMemory)
	spoolMemory = 4
	row := func(i int) Row {
		r := Row{At: time.Duration(i) * time.Microsecond, Lane: i % 3, Client: i % 5, Key: i % 7, Request: int64(i), Attempt: 1 + i%2, Cost: 3,
			Allowed: i%2 == 0, Remaining: float64(i) / 3, RetryAfter: algorithms.Forever, Shard: int32(i%4) - 1,
			DecidedAt: -time.Duration(i), Latency: -1, Outcome: Outcome(i % 7), Wasted: i%3 == 0, Shadow: algorithms.Shadow(i % 3)}
		if i%5 == 0 {
			r.Limits = []algorithms.Decision{{Allowed: true, Remaining: 0.5, Limit: 10, Delay: time.Second, OnError: true, Shadow: algorithms.ShadowRefused}, {}}
		}
		return r
	}
	var s spool
	defer s.close()
	next, taken := 0, 0
	take := func(n int) {
		for range n {
			got, err := s.peek()
			if err != nil {
				t.Fatal(err)
			}
			if want := row(taken); got == nil || !reflect.DeepEqual(*got, want) {
				t.Fatalf("row %d: got %+v, want %+v", taken, got, want)
			}
			s.pop()
			taken++
		}
	}
	for _, step := range []struct{ push, take int }{{3, 1}, {20, 5}, {1, 10}, {40, 48}, {9, 2}, {0, 7}} {
		for range step.push {
			if err := s.push(row(next)); err != nil {
				t.Fatal(err)
			}
			next++
		}
		take(step.take)
		if s.len() != next-taken {
			t.Fatalf("after %d pushed and %d taken the spool holds %d", next, taken, s.len())
		}
	}
	if got, _ := s.peek(); got != nil || s.file == nil {
		t.Errorf("the spool should be empty (got %v) and have used its file (%v)", got, s.file)
	}
}
