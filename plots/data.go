// Package plots draws a run as chart files, SVG and PNG, with gonum.org/v1/plot:
// per lane, the watched key's level over virtual time with the window boundaries
// marked, the decisions of each tick (accepted and denied, stacked), the load on
// the backend against its capacity; for the comparison, every lane's accepted
// load on one axis, and a close-up of the run's busiest moment from the decisions
// themselves, finer than the tick.
//
// Every figure has a title, axis labels with units, a legend, and the scenario and
// seed under the title. Lanes are told apart by line style (dashes) and marker
// shape as well as by colour, and filled areas by lightness, so a figure printed
// in greyscale reads the same.
package plots

import (
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

// Data is what the figures of a run show: its configuration, how far it ran, and
// each lane's series and metrics, taken once it has run (see From). Charts are
// drawn from what a run recorded; they never run a scenario themselves.
type Data struct {
	Config *sim.Config
	UpTo   time.Duration
	Lanes  []Lane
	// Zoom, when not nil, holds the decisions around the busiest moment (see
	// ZoomOn), counted from a Recorder's.
	Zoom *Zoom
}

// Lane is one lane's part of Data.
type Lane struct {
	Config  sim.LaneConfig
	Info    algorithms.Info
	Samples []sim.Sample  // in time order, each covering Step
	Step    time.Duration // the tick, or coarser in a long run (sim.MaxSeriesPoints)
	Metrics sim.Metrics
}

// HasLevel says the lane's level means something: the no-limit lane holds
// nothing, so it has no level figure (its load is in its decisions figure).
func (l Lane) HasLevel() bool { return l.Info.Shape != algorithms.ShapeNone }

// From takes the figures' data from r as it stands (the run so far), with the
// zoom on its busiest moment (ZoomOn) counted from the decisions rec kept of it
// (rec was a row sink of r from its start); with rec nil there is no zoom. The
// samples are copied: r may go on.
func From(r *sim.Run, rec *Recorder) (*Data, error) {
	d := &Data{Config: r.Config, UpTo: r.Now()}
	ms := r.Metrics()
	for i, l := range r.Lanes {
		info, _ := algorithms.Lookup(l.Config.Algorithm)
		d.Lanes = append(d.Lanes, Lane{
			Config:  l.Config,
			Info:    info,
			Samples: append([]sim.Sample(nil), l.Series()...),
			Step:    l.SeriesStep(),
			Metrics: ms[i],
		})
	}
	if rec == nil {
		return d, nil
	}
	if z := ZoomOn(d); z != nil {
		if err := rec.fill(z); err != nil {
			return nil, err
		}
		d.Zoom = z
	}
	return d, nil
}

// Zoom is the decisions of every lane in a short stretch, counted in bins much
// finer than the tick: the peak window of the lane that admitted the most for one
// key in one period (sim.Metrics' PeakFirst to PeakLast), widened on each side by
// five times its span (at least a tick). There is a zoom only when that peak went
// over the limit in a burst: more than the limit within a quarter of the period.
// A boundary burst's 100 + 100 in 2 ms shows here as it happened.
type Zoom struct {
	From, To time.Duration
	Bin      time.Duration
	Lane     int       // the lane whose peak it is
	Accepted [][]int64 // per lane, per bin
	Denied   [][]int64
}

// zoomBins is how many bins a zoom has (fewer when the stretch is shorter than
// that many microseconds).
const zoomBins = 200

// ZoomOn picks the zoom of d, its bins empty: nil when no limiting lane went over
// its limit in a burst.
func ZoomOn(d *Data) *Zoom {
	best := -1
	for i, l := range d.Lanes {
		m := l.Metrics
		period := l.Config.TierPolicy(d.Config, d.Config.Keys[d.Config.WatchKey].Tier).Period
		if l.Info.Shape == algorithms.ShapeNone || m.PeakWindowRatio <= 1 || 4*(m.PeakLast-m.PeakFirst) > period {
			continue
		}
		if best < 0 || m.PeakWindowRatio > d.Lanes[best].Metrics.PeakWindowRatio {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	m := d.Lanes[best].Metrics
	span := m.PeakLast - m.PeakFirst
	pad := max(5*span, d.Config.Tick)
	from := max(0, m.PeakFirst-pad)
	to := min(d.UpTo, m.PeakLast+pad)
	if to <= from {
		return nil
	}
	bin := roundBin((to - from + zoomBins - 1) / zoomBins)
	from = from / bin * bin
	n := int((to - from + bin - 1) / bin)
	z := &Zoom{From: from, To: from + time.Duration(n)*bin, Bin: bin, Lane: best}
	for range d.Lanes {
		z.Accepted = append(z.Accepted, make([]int64, n))
		z.Denied = append(z.Denied, make([]int64, n))
	}
	return z
}

// count counts a decision of lane at `at` into the zoom's bins; one outside the
// zoom is ignored.
func (z *Zoom) count(at time.Duration, lane int, allowed bool) {
	if at < z.From || at >= z.To || lane >= len(z.Accepted) {
		return
	}
	i := int((at - z.From) / z.Bin)
	if allowed {
		z.Accepted[lane][i]++
	} else {
		z.Denied[lane][i]++
	}
}

// roundBin is the smallest of 1, 2 or 5 times a power of ten microseconds that is
// at least d: a bin a reader takes in at a glance.
func roundBin(d time.Duration) time.Duration {
	for b := algorithms.Resolution; ; b *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if m*b >= d {
				return m * b
			}
		}
	}
}
