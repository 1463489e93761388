package traces

import (
	"container/heap"
	"slices"
)

// bucketBits sets the width of the reorder window's buckets: 2^20 µs, about a
// second.
const bucketBits = 20

// window holds the rows read but not yet handed out, in buckets of about a second
// of their time: a row goes into its bucket (appended, in line order), and a
// bucket is sorted by time and handed out whole once every time it can hold is
// before the reader's limit (the latest time read less the reorder window), or at
// the end of the file. Lines of a log are nearly in order, so rows mostly land
// in the bucket of the row before, and sorting a bucket is a check that it
// already is: far cheaper than a heap operation per row, and the same order (by
// time, then line).
type window struct {
	buckets map[int64][]record
	order   bucketHeap // the buckets' numbers, earliest first
	last    int64      // the bucket of the last row pushed
	lastS   []record   // and its rows, not yet stored back in buckets
	hasLast bool

	out  []record // the bucket being handed out
	next int
	free [][]record
}

// push adds a row.
func (w *window) push(rec record) {
	b := rec.at >> bucketBits
	if w.hasLast && b == w.last {
		w.lastS = append(w.lastS, rec)
		return
	}
	w.stash()
	if w.buckets == nil {
		w.buckets = map[int64][]record{}
	}
	s, ok := w.buckets[b]
	if !ok {
		if n := len(w.free); n > 0 {
			s, w.free = w.free[n-1][:0], w.free[:n-1]
		}
		heap.Push(&w.order, b)
	}
	w.last, w.lastS, w.hasLast = b, append(s, rec), true
}

// stash stores the last bucket's rows back in the map.
func (w *window) stash() {
	if w.hasLast {
		w.buckets[w.last] = w.lastS
		w.hasLast = false
	}
}

// ready says a row can be handed out: every row of the earliest bucket is before
// limit, or the file has ended (all).
func (w *window) ready(limit int64, all bool) bool {
	if w.next < len(w.out) {
		return true
	}
	if len(w.order) == 0 {
		return false
	}
	b := w.order[0]
	if !all && (b+1)<<bucketBits > limit {
		return false
	}
	w.stash()
	heap.Pop(&w.order)
	if w.out != nil {
		w.free = append(w.free, w.out)
	}
	w.out, w.next = w.buckets[b], 0
	delete(w.buckets, b)
	less := func(x, y record) int {
		if x.at != y.at {
			return int(min(max(x.at-y.at, -1), 1))
		}
		return x.line - y.line
	}
	if !slices.IsSortedFunc(w.out, less) {
		slices.SortFunc(w.out, less)
	}
	return true
}

// pop hands out the next row; ready must have said there is one.
func (w *window) pop() record {
	rec := w.out[w.next]
	w.out[w.next].key = ""
	w.next++
	return rec
}

// bucketHeap is a container/heap of bucket numbers; there is one push per bucket
// (about a second of the trace), not per row.
type bucketHeap []int64

func (h bucketHeap) Len() int           { return len(h) }
func (h bucketHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h bucketHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *bucketHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *bucketHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
