package tune

import (
	"fmt"
	"slices"
	"time"
)

// A key's peak over a period is the most requests it sent in one window of that
// period, the windows laid end to end from the epoch (a dated log's clock
// seconds, minutes, hours and UTC days; an undated log's start): a scraper
// peaks over seconds, a crawler or a feed reader over hours. Load measures every
// key over the standard periods (a second, a minute, an hour, a day) as it reads;
// another period is measured by one more pass over the requests.

// peakCounter measures every key's peak over one period, requests fed in time
// order.
type peakCounter struct {
	period int64   // µs
	window []int64 // per key: the window of its current count
	count  []int64 // per key: its requests in that window
	peak   []int64 // per key: the most in any window so far
}

func newPeakCounter(period time.Duration, keys int) *peakCounter {
	pc := &peakCounter{period: int64(period / time.Microsecond)}
	for range keys {
		pc.grow()
	}
	return pc
}

// grow adds a key.
func (pc *peakCounter) grow() {
	pc.window, pc.count, pc.peak = append(pc.window, -1), append(pc.count, 0), append(pc.peak, 0)
}

// add counts a request of key k at µs at.
func (pc *peakCounter) add(k uint32, at int64) {
	if w := at / pc.period; w != pc.window[k] {
		pc.window[k], pc.count[k] = w, 0
	}
	pc.count[k]++
	pc.peak[k] = max(pc.peak[k], pc.count[k])
}

// periodPeaks are every key's peak over one period.
type periodPeaks struct {
	period time.Duration
	peak   []int64
}

// peakCounters measure the standard periods, and any other given.
type peakCounters []*peakCounter

func newPeakCounters(keys int, more ...time.Duration) peakCounters {
	var pcs peakCounters
	for _, p := range StandardPeriods {
		pcs = append(pcs, newPeakCounter(p, keys))
	}
	for _, p := range more {
		if !slices.Contains(StandardPeriods, p) {
			pcs = append(pcs, newPeakCounter(p, keys))
		}
	}
	return pcs
}

func (pcs peakCounters) grow() {
	for _, pc := range pcs {
		pc.grow()
	}
}

func (pcs peakCounters) add(k uint32, at int64) {
	for _, pc := range pcs {
		pc.add(k, at)
	}
}

// done keeps the peaks, dropping the counters' other state.
func (pcs peakCounters) done() []periodPeaks {
	var out []periodPeaks
	for _, pc := range pcs {
		out = append(out, periodPeaks{time.Duration(pc.period) * time.Microsecond, pc.peak})
	}
	return out
}

// PeakOver is every key's peak over period p (indexed like Keys): the most
// requests it sent in one window of p. The standard periods were measured on
// loading; another is measured now, by one pass over the requests (reading a
// streamed trace's file again), and kept.
func (t *Trace) PeakOver(p time.Duration) ([]int64, error) {
	t.peaksMu.Lock()
	defer t.peaksMu.Unlock()
	if i := slices.IndexFunc(t.peaks, func(pp periodPeaks) bool { return pp.period == p }); i >= 0 {
		return t.peaks[i].peak, nil
	}
	if !t.Partition.All() {
		return nil, fmt.Errorf("the period %s was not measured while the trace was read, and a partition keeps only its keys' requests; name it when loading (LoadOptions.Periods)", p)
	}
	pc := newPeakCounter(p, len(t.Keys))
	if err := t.each(func(q Request) { pc.add(q.Key, q.At+t.originMicros()) }); err != nil {
		return nil, err
	}
	t.peaks = append(t.peaks, periodPeaks{p, pc.peak})
	return pc.peak, nil
}

// mostOver is the largest peak of any key over p, at least 1.
func (t *Trace) mostOver(p time.Duration) (int64, error) {
	peaks, err := t.PeakOver(p)
	if err != nil {
		return 0, err
	}
	var top int64 = 1
	for _, v := range peaks {
		top = max(top, v)
	}
	return top, nil
}
