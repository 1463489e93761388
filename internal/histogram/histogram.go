// Package histogram counts durations in fixed memory and answers quantiles within
// 1% of the true value: the latency and queue-delay percentiles of a run (sim)
// and the Retry-After spread of a policy swept by ratelab tune.
package histogram

import (
	"math"
	"math/bits"
	"time"
)

// Histogram counts durations, in whole microseconds, in log-linear buckets: exact
// below 128 µs, then 64 buckets per power of two, so a quantile is within 1/128
// (under 1%) of the true value, in fixed memory however many values are added.
// A negative duration counts as 0. The zero value is empty and ready to use.
type Histogram struct {
	counts [128 + 57*64]int64
	n      int64
}

const subBits = 6 // 64 buckets per power of two

const exact = 2 << subBits // values below this have a bucket each

func bucket(us int64) int {
	if us < exact {
		return int(max(us, 0))
	}
	shift := bits.Len64(uint64(us)) - subBits - 1 // ≥ 1
	top := us >> shift                            // in [64, 128)
	return exact + (shift-1)<<subBits + int(top-exact/2)
}

// mid is the middle of bucket i, in µs.
func mid(i int) int64 {
	if i < exact {
		return int64(i)
	}
	shift := (i-exact)>>subBits + 1
	top := int64((i-exact)%(1<<subBits) + exact/2)
	return top<<shift + (1<<shift)/2
}

// Add counts d.
func (h *Histogram) Add(d time.Duration) {
	h.counts[bucket(int64(d/time.Microsecond))]++
	h.n++
}

// Count is how many durations were added.
func (h *Histogram) Count() int64 { return h.n }

// Quantile is the q-quantile (0 < q <= 1) of the durations added: the middle of
// the bucket holding the ceil(q × n)-th smallest; 0 when nothing was added.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return time.Duration(mid(i)) * time.Microsecond
		}
	}
	return 0
}

// Merge adds every duration counted in o, as if each had been added to h.
func (h *Histogram) Merge(o *Histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
}

// Buckets are the buckets holding a duration, as (bucket, count) pairs in bucket
// order: the histogram in a few numbers, for a file (see FromBuckets).
func (h *Histogram) Buckets() [][2]int64 {
	out := [][2]int64{}
	for i, c := range h.counts {
		if c != 0 {
			out = append(out, [2]int64{int64(i), c})
		}
	}
	return out
}

// FromBuckets is the histogram Buckets described; false when a bucket is out of
// range or a count is not positive.
func FromBuckets(b [][2]int64) (Histogram, bool) {
	var h Histogram
	for _, p := range b {
		if p[0] < 0 || p[0] >= int64(len(h.counts)) || p[1] <= 0 {
			return Histogram{}, false
		}
		h.counts[p[0]] += p[1]
		h.n += p[1]
	}
	return h, true
}
