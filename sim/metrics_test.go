package sim

import (
	"math"
	"testing"
	"time"
	"unsafe"

	"ratelab/algorithms"
)

func TestHistogramQuantiles(t *testing.T) {
	var h histogram
	if h.quantile(0.99) != 0 {
		t.Error("an empty histogram has a non-zero p99")
	}
	for i := 1; i <= 1000; i++ {
		h.add(time.Duration(i) * time.Millisecond)
	}
	for q, want := range map[float64]time.Duration{0.5: 500 * time.Millisecond, 0.99: 990 * time.Millisecond, 1: time.Second} {
		got := h.quantile(q)
		if math.Abs(float64(got-want)) > float64(want)/128 {
			t.Errorf("p%g = %v, want %v within 1/128", q*100, got, want)
		}
	}
	var exact histogram
	for _, us := range []int64{0, 7, 7, 100} {
		exact.add(time.Duration(us) * time.Microsecond)
	}
	if exact.quantile(0.5) != 7*time.Microsecond || exact.quantile(1) != 100*time.Microsecond {
		t.Errorf("small values are not exact: p50 %v, p100 %v", exact.quantile(0.5), exact.quantile(1))
	}
}

func TestFairness(t *testing.T) {
	var r recorder
	cfg := newConfig(algorithms.Policy{Limit: 1, Period: time.Second}, time.Second, []LaneConfig{lane("l", "gcra")})
	cfg.Keys = []Key{{Name: "a"}, {Name: "b"}}
	r.keys = []keyStats{{offered: 10, succeeded: 10}, {offered: 0}}
	r.peaks = make([]peakSpan, 2)
	r.extra = []pairStats{{offered: 10, succeeded: 0}}
	if f := r.finish(cfg, cfg.Lanes[0]).Fairness; f != 0.5 {
		t.Errorf("one identity served fully and one not at all: fairness %g, want 0.5", f)
	}
	r.keys = []keyStats{{offered: 4, succeeded: 2}, {}}
	r.extra = []pairStats{{offered: 8, succeeded: 4}}
	if f := r.finish(cfg, cfg.Lanes[0]).Fairness; f != 1 {
		t.Errorf("equal success ratios: fairness %g, want 1", f)
	}
}

func TestCSVFields(t *testing.T) {
	for in, want := range map[string]string{"plain": "plain", "a,b": `"a,b"`, `say "hi"`: `"say ""hi"""`, " pad": `" pad"`, "": ""} {
		if got := csvField(in); got != want {
			t.Errorf("csvField(%q) = %s, want %s", in, got, want)
		}
	}
	for d, want := range map[time.Duration]string{0: "0.000", 1500 * time.Microsecond: "1.500", 12345678 * time.Microsecond: "12345.678", -time.Millisecond: "-1.000"} {
		if got := string(appendMillis(nil, d)); got != want {
			t.Errorf("appendMillis(%v) = %s, want %s", d, got, want)
		}
	}
	for v, want := range map[float64]string{0: "0", 0.5: "0.5", 2.0 / 3: "0.666667", -1e-9: "0", 99: "99"} {
		if got := string(appendDecimal(nil, v)); got != want {
			t.Errorf("appendDecimal(%g) = %s, want %s", v, got, want)
		}
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
	r := recorder{keys: make([]keyStats, 1), peaks: make([]peakSpan, 1)}
	for i, a := range []struct {
		at   time.Duration
		cost int64
	}{{0, 1}, {100 * time.Millisecond, 2}, {50 * time.Millisecond, 3}, {900 * time.Millisecond, 1}, {1050 * time.Millisecond, 5 << 22}} {
		r.addToWindow(0, a.at, a.cost, time.Second)
		_ = i
	}
	// the window ending 1.05 s holds 0.1 s (2), 0.9 s (1) and 1.05 s (5 × 2^22)
	if ks := r.keys[0]; ks.peak != 3+5<<22 || r.peaks[0] != (peakSpan{100 * time.Millisecond, 1050 * time.Millisecond}) {
		t.Errorf("peak %d over %v; want %d from 100ms to 1.05s", ks.peak, r.peaks[0], 3+5<<22)
	}
	for at := time.Duration(0); at < 100*time.Millisecond; at += time.Millisecond {
		r.addToWindow(0, 2*time.Second+at, 1, time.Second)
	}
	if ks := r.keys[0]; ks.sum != 100 || ks.n != 100 {
		t.Errorf("after 100 admissions in 100 ms: %d units in %d entries; want 100 in 100", ks.sum, ks.n)
	}
}
