package sim

import "time"

// MaxSeriesPoints is the most samples a lane keeps in memory. Up to this many
// ticks the series is kept whole; beyond, neighbours are merged in pairs (and so
// on, as the run grows), so a run of any length holds at most this many points
// per lane and still covers all of it. The series CSV is written a tick at a time
// as the run goes (Run.OnSeries), at full resolution.
const MaxSeriesPoints = 4096

// merge is s followed by next as one sample covering both: the later end,
// level, backend queue and membership, the highest high and the lowest low, the sums of the
// counts.
func (s Sample) merge(next Sample) Sample {
	next.High = max(s.High, next.High)
	next.Low = min(s.Low, next.Low)
	next.Accepted += s.Accepted
	next.Denied += s.Denied
	next.Offered += s.Offered
	next.Attempts += s.Attempts
	next.BackendErrors += s.BackendErrors
	next.StoreErrors += s.StoreErrors
	next.IdealAccepted += s.IdealAccepted
	return next
}

// boundedSeries is a lane's series in at most MaxSeriesPoints samples, each
// spanning `span` ticks (a power of two).
type boundedSeries struct {
	kept    []Sample
	span    int
	partial Sample // the ticks of the point being filled
	filled  int    // how many
}

// add appends one tick's sample.
func (b *boundedSeries) add(s Sample) {
	if b.span == 0 {
		b.span = 1
	}
	if b.filled == 0 {
		b.partial = s
	} else {
		b.partial = b.partial.merge(s)
	}
	b.filled++
	if b.filled < b.span {
		return
	}
	b.kept = append(b.kept, b.partial)
	b.filled = 0
	if len(b.kept) == MaxSeriesPoints {
		// into a new slice: a sample once kept is never written again, so a
		// Snapshot can share the series while the lane goes on
		merged := make([]Sample, len(b.kept)/2, MaxSeriesPoints)
		for i := range merged {
			merged[i] = b.kept[2*i].merge(b.kept[2*i+1])
		}
		b.kept = merged
		b.span *= 2
	}
}

// SeriesStep is the virtual time each of Series' samples covers: the tick, or a
// multiple of it once a long run's series has been coarsened.
func (l *Lane) SeriesStep() time.Duration { return l.cfg.Tick * time.Duration(max(1, l.series.span)) }
