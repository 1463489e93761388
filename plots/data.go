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
// each lane's series and metrics, taken once it has run (see From).
type Data struct {
	Config *sim.Config
	UpTo   time.Duration
	Lanes  []Lane
	// Zoom, when not nil, holds the decisions around the busiest moment (see
	// ZoomOn and Zoom.Rows).
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

// From takes the figures' data from r as it stands (the run so far). The samples
// are copied: r may go on.
func From(r *sim.Run) *Data {
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
	return d
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

// ZoomOn picks the zoom of d: nil when no limiting lane went over its limit in a
// burst. Fill it
// with Rows, from a replay of the run up to Zoom.To.
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

// Rows counts decisions into the zoom's bins; it is a row sink (sim.Run.OnRows)
// for a replay of the same run. Rows outside the zoom are ignored.
func (z *Zoom) Rows(rows []sim.Row) error {
	for _, r := range rows {
		if r.At < z.From || r.At >= z.To || r.Lane >= len(z.Accepted) {
			continue
		}
		i := int((r.At - z.From) / z.Bin)
		if r.Allowed {
			z.Accepted[r.Lane][i]++
		} else {
			z.Denied[r.Lane][i]++
		}
	}
	return nil
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
