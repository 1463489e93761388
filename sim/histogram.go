package sim

import (
	"math"
	"math/bits"
	"time"
)

// histogram counts durations, in whole microseconds, in log-linear buckets: exact
// below 128 µs, then 64 buckets per power of two, so a quantile is within 1/128
// (under 1%) of the true value, in fixed memory however many values are added.
type histogram struct {
	counts [128 + 57*64]int64
	n      int64
}

const histSubBits = 6 // 64 buckets per power of two

const histExact = 2 << histSubBits // values below this have a bucket each

func histBucket(us int64) int {
	if us < histExact {
		return int(max(us, 0))
	}
	shift := bits.Len64(uint64(us)) - histSubBits - 1 // ≥ 1
	top := us >> shift                                // in [64, 128)
	return histExact + (shift-1)<<histSubBits + int(top-histExact/2)
}

// histMid is the middle of bucket i, in µs.
func histMid(i int) int64 {
	if i < histExact {
		return int64(i)
	}
	shift := (i-histExact)>>histSubBits + 1
	top := int64((i-histExact)%(1<<histSubBits) + histExact/2)
	return top<<shift + (1<<shift)/2
}

func (h *histogram) add(d time.Duration) {
	h.counts[histBucket(int64(d/time.Microsecond))]++
	h.n++
}

// quantile is the q-quantile (0 < q <= 1) of the values added: the middle of the
// bucket holding the ceil(q × n)-th smallest; 0 when nothing was added.
func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return time.Duration(histMid(i)) * time.Microsecond
		}
	}
	return 0
}

// Histogram is the histogram the metrics use, for other packages' figures
// (ratelab tune's Retry-After spread): durations in log-linear buckets, a
// quantile within 1% of the true value, fixed memory.
type Histogram = histogram

// Add counts d.
func (h *histogram) Add(d time.Duration) { h.add(d) }

// Quantile is the q-quantile (0 < q <= 1) of what was added; 0 when nothing was.
func (h *histogram) Quantile(q float64) time.Duration { return h.quantile(q) }
