package sim

import "time"

// peakWindow follows one key's admissions (accepted requests at the moment they
// go ahead: after any queue delay or reservation) in a sliding window of the key's
// policy period, and remembers the largest total ever held in one window and where.
// Memory is the admissions of one period, which the policy bounds for every lane
// that limits correctly (and shows the over-grant for one that does not).
type peakWindow struct {
	log       []admission
	head      int
	sum       int64
	peak      int64
	peakFirst time.Duration // the first and last admission of the peak window
	peakLast  time.Duration
}

type admission struct {
	at   time.Duration
	cost int64
}

// add records cost admitted at `at`. Admissions come in time order per key; one that
// does not (reserved work overtaken) is placed in order.
func (w *peakWindow) add(at time.Duration, cost int64, period time.Duration) {
	i := len(w.log)
	w.log = append(w.log, admission{at, cost})
	for ; i > w.head && w.log[i-1].at > at; i-- {
		w.log[i], w.log[i-1] = w.log[i-1], w.log[i]
	}
	w.sum += cost
	newest := w.log[len(w.log)-1].at
	for w.log[w.head].at <= newest-period {
		w.sum -= w.log[w.head].cost
		w.head++
	}
	if w.sum > w.peak {
		w.peak, w.peakFirst, w.peakLast = w.sum, w.log[w.head].at, newest
	}
	if w.head > 32 && w.head >= len(w.log)/2 {
		w.log = append(w.log[:0], w.log[w.head:]...)
		w.head = 0
	}
}
