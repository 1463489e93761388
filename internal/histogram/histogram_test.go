package histogram

import (
	"math"
	"testing"
	"time"
)

func TestQuantiles(t *testing.T) {
	var h Histogram
	if h.Quantile(0.99) != 0 {
		t.Error("an empty histogram has a non-zero p99")
	}
	for i := 1; i <= 1000; i++ {
		h.Add(time.Duration(i) * time.Millisecond)
	}
	for q, want := range map[float64]time.Duration{0.5: 500 * time.Millisecond, 0.99: 990 * time.Millisecond, 1: time.Second} {
		got := h.Quantile(q)
		if math.Abs(float64(got-want)) > float64(want)/128 {
			t.Errorf("p%g = %v, want %v within 1/128", q*100, got, want)
		}
	}
	var exact Histogram
	for _, us := range []int64{0, 7, 7, 100, -5} {
		exact.Add(time.Duration(us) * time.Microsecond)
	}
	if exact.Quantile(0.4) != 0 || exact.Quantile(0.6) != 7*time.Microsecond || exact.Quantile(1) != 100*time.Microsecond || exact.Count() != 5 {
		t.Errorf("small values are not exact: p40 %v, p60 %v, p100 %v, count %d", exact.Quantile(0.4), exact.Quantile(0.6), exact.Quantile(1), exact.Count())
	}
}
