// Package histogram counts durations in bounded memory and answers quantiles within
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
// (under 1%) of the true value, in bounded memory however many values are added.
// A negative duration counts as 0. The zero value is empty and ready to use.
//
// The buckets are kept a power of two at a time (64 buckets, 512 bytes), each
// made when a value first falls in it: a histogram costs 480 bytes and half a
// KiB per power of two its values span, not the 30 KiB of every bucket (a run
// of 10,000 lanes has 20,000 of them). It holds those by pointer, so a copy
// shares them: a Histogram is not copied once values are added (Merge adds one
// into another).
type Histogram struct {
	octaves [octaves]*[1 << subBits]int64 // bucket i is octaves[i>>subBits][i%64]; nil: all zero
	n       int64
}

const subBits = 6 // 64 buckets per power of two

// buckets is how many buckets there are: 128 exact, then 64 for each power of
// two up to 2⁶³ µs; octaves how many groups of 64 they make.
const (
	buckets = 128 + 57*64
	octaves = buckets >> subBits
)

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
	h.addTo(bucket(int64(d/time.Microsecond)), 1)
}

// addTo adds count to bucket i (0 <= i < buckets).
func (h *Histogram) addTo(i int, count int64) {
	o := h.octaves[i>>subBits]
	if o == nil {
		o = new([1 << subBits]int64)
		h.octaves[i>>subBits] = o
	}
	o[i&(1<<subBits-1)] += count
	h.n += count
}

// each calls f for every bucket holding a duration, in bucket order, until f
// says stop.
func (h *Histogram) each(f func(i int, count int64) (stop bool)) {
	for oi, o := range h.octaves {
		if o == nil {
			continue
		}
		for j, c := range o {
			if c != 0 && f(oi<<subBits+j, c) {
				return
			}
		}
	}
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
	var at time.Duration
	h.each(func(i int, c int64) bool {
		seen += c
		if seen >= rank {
			at = time.Duration(mid(i)) * time.Microsecond
			return true
		}
		return false
	})
	return at
}

// Merge adds every duration counted in o, as if each had been added to h.
func (h *Histogram) Merge(o *Histogram) {
	o.each(func(i int, c int64) bool { h.addTo(i, c); return false })
}

// Buckets are the buckets holding a duration, as (bucket, count) pairs in bucket
// order: the histogram in a few numbers, for a file (see FromBuckets).
func (h *Histogram) Buckets() [][2]int64 {
	out := [][2]int64{}
	h.each(func(i int, c int64) bool { out = append(out, [2]int64{int64(i), c}); return false })
	return out
}

// FromBuckets is the histogram Buckets described; false when a bucket is out of
// range or a count is not positive.
func FromBuckets(b [][2]int64) (Histogram, bool) {
	var h Histogram
	for _, p := range b {
		if p[0] < 0 || p[0] >= buckets || p[1] <= 0 {
			return Histogram{}, false
		}
		h.addTo(int(p[0]), p[1])
	}
	return h, true
}
