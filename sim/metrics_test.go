package sim

import (
	"testing"
	"time"
	"unsafe"

	"ratelab/algorithms"
)

func TestFairness(t *testing.T) {
	cfg := newConfig(algorithms.Policy{Limit: 1, Period: time.Second}, time.Second, []LaneConfig{lane("l", "gcra")})
	cfg.Keys = []Key{{Name: "a"}, {Name: "b"}}
	r := newRecorder(cfg, cfg.Lanes[0])
	r.keys = []keyStats{{offered: 10, succeeded: 10}, {offered: 0}}
	r.extra = []pairStats{{offered: 10, succeeded: 0}}
	if f := r.finish().Fairness; f != 0.5 {
		t.Errorf("one identity served fully and one not at all: fairness %g, want 0.5", f)
	}
	r.keys = []keyStats{{offered: 4, succeeded: 2}, {}}
	r.extra = []pairStats{{offered: 8, succeeded: 4}}
	if f := r.finish().Fairness; f != 1 {
		t.Errorf("equal success ratios: fairness %g, want 1", f)
	}
}

func TestKeyStatsFitOneCacheLine(t *testing.T) {
	if size := unsafe.Sizeof(keyStats{}); size != 64 {
		t.Errorf("keyStats is %d bytes; keep it to one 64-byte cache line (see peak.go)", size)
	}
}

// The peak window is exact: out-of-order admissions are placed in order, costs
// larger than an entry holds are split, and the ring grows without losing any.
func TestPeakWindow(t *testing.T) {
	cfg := newConfig(algorithms.Policy{Limit: 1, Period: time.Second}, time.Second, []LaneConfig{lane("l", "gcra")})
	cfg.Keys = []Key{{Name: "k"}}
	r := newRecorder(cfg, cfg.Lanes[0])
	for i, a := range []struct {
		at   time.Duration
		cost int64
	}{{0, 1}, {100 * time.Millisecond, 2}, {50 * time.Millisecond, 3}, {900 * time.Millisecond, 1}, {1050 * time.Millisecond, 5 << 22}} {
		r.admit(0, a.at, 0, a.cost, time.Second)
		_ = i
	}
	// the window ending 1.05 s holds 0.1 s (2), 0.9 s (1) and 1.05 s (5 × 2^22)
	if ks := r.keys[0]; ks.peak != 3+5<<22 || r.peaks[0] != (peakSpan{100 * time.Millisecond, 1050 * time.Millisecond}) {
		t.Errorf("peak %d over %v; want %d from 100ms to 1.05s", ks.peak, r.peaks[0], 3+5<<22)
	}
	for at := time.Duration(0); at < 100*time.Millisecond; at += time.Millisecond {
		r.admit(0, 2*time.Second+at, 2*time.Second+at, 1, time.Second)
	}
	if ks := r.keys[0]; ks.sum != 100 || ks.n != 100 {
		t.Errorf("after 100 admissions in 100 ms: %d units in %d entries; want 100 in 100", ks.sum, ks.n)
	}
}
