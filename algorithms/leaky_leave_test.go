package algorithms

import (
	"testing"
	"time"
)

// A request leaving a leaky queue takes its units out: those after it wait
// its cost over the rate less; leaving an empty or unknown key takes nothing.
func TestLeakyLeaveTakesItsUnitsOut(t *testing.T) {
	b := NewLeakyBucket(Policy{Limit: 10, Period: time.Second, Burst: 10}, LeakyQueue)
	for range 3 {
		b.Allow("k", 0, 1) // waits 0, 100 and 200 ms
	}
	if sooner := b.Leave("k", 50*time.Millisecond, 1); sooner != 100*time.Millisecond {
		t.Errorf("one unit left at 10 a second: %v sooner, want 100ms", sooner)
	}
	// 3 units − 0.5 drained − 1 left = 1.5 ahead: 150 ms
	if d := b.Allow("k", 50*time.Millisecond, 1); !d.Allowed || d.Delay != 150*time.Millisecond {
		t.Errorf("the next request: %+v, want accepted after 150ms", d)
	}
	if sooner := b.Leave("other", 0, 1); sooner != 0 {
		t.Errorf("leaving a key with no queue: %v sooner", sooner)
	}
	if sooner := b.Leave("k", 10*time.Second, 1); sooner != 0 {
		t.Errorf("leaving a drained queue: %v sooner", sooner)
	}
}
