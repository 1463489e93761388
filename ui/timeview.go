package ui

import (
	"sort"
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

// A graph shows a stretch of virtual time split into columns of equal span. Column
// boundaries sit at whole multiples of the span from the run's start, so a column
// never changes once drawn, and only whole columns are shown. By default the
// stretch slides with the clock (the last quarter of the run, at least 10 s, or
// the whole run when it is 10 s or less), and covers the run so far until the
// clock has gone that far (its columns narrower); once the clock passes the lesson's
// event (sim.Config.GraphFrom), it covers from there to now; in whole-run view
// it covers everything from the start to now.

// timeView is the stretch a graph shows: n columns of span, from from.
type timeView struct {
	from, span time.Duration
	n          int
}

// to is the view's end.
func (v timeView) to() time.Duration { return v.from + time.Duration(v.n)*v.span }

// stretch is how much virtual time a sliding graph shows.
func stretch(cfg *sim.Config) time.Duration {
	if cfg.Duration <= 10*time.Second {
		return cfg.Duration
	}
	return max(10*time.Second, cfg.Duration/4)
}

// viewOf is the view of n columns at virtual time now: the stretch ending at the
// last whole column, or everything since the lesson's event once the clock
// has passed it, or with whole, everything so far. step is the series'
// resolution (the tick, or coarser once a long run's series was merged; see
// sim.Lane.SeriesStep): a column spans a whole number of steps, so no sample
// straddles two columns.
func viewOf(cfg *sim.Config, step, now time.Duration, n int, whole bool) timeView {
	n = max(n, 1)
	// before the clock has covered the stretch, what there is so far, in
	// columns that fit it: a long run's first seconds are not one column
	covered := min(stretch(cfg), max(now, step))
	switch {
	case whole:
		covered = max(now, step)
	case cfg.GraphFrom != nil && now > *cfg.GraphFrom:
		covered = max(now-*cfg.GraphFrom, step)
	}
	steps := (covered/step + time.Duration(n) - 1) / time.Duration(n)
	span := roundSpan(max(1, steps)*step, step)
	end := now / span * span
	from := max(0, end-time.Duration(n)*span)
	return timeView{from: from, span: span, n: int(min(time.Duration(n), (end-from)/span))}
}

// roundSpan is the shortest span of at least span that is 1, 2 or 5 × 10^k
// microseconds and a whole number of steps, so column edges fall on round times:
// every whole second (a window boundary of a 1 s period sits between two
// columns, never inside one) and the axis labels' round values. When no such
// span is a multiple of step within a factor of ten (a coarsened series' odd
// step), span itself.
func roundSpan(span, step time.Duration) time.Duration {
	for unit := time.Microsecond; unit <= 10*span; unit *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if c := m * unit; c >= span && c%step == 0 {
				return c
			}
		}
	}
	return span
}

// column is one column of a graph: its samples joined.
type column struct {
	end              time.Duration
	level, high, low float64 // the last sample's level; the highest and lowest reached
	accepted, denied int64
	ideal            int64 // a deployed lane's ideal's admissions (Sample.IdealAccepted)
}

// bin joins the samples of series that fall in each of v's columns: a sample
// belongs to the column its end falls in. Columns with no sample are left out.
func bin(series []sim.Sample, v timeView) []column {
	out := make([]column, 0, v.n)
	i := sort.Search(len(series), func(i int) bool { return series[i].At > v.from })
	for j := 0; j < v.n; j++ {
		end := v.from + time.Duration(j+1)*v.span
		c := column{end: end}
		seen := false
		for ; i < len(series) && series[i].At <= end; i++ {
			s := series[i]
			if !seen {
				c.high, c.low, seen = s.High, s.Low, true
			}
			c.level, c.high, c.low = s.Level, max(c.high, s.High), min(c.low, s.Low)
			c.accepted += s.Accepted
			c.denied += s.Denied
			c.ideal += s.IdealAccepted
		}
		if seen {
			out = append(out, c)
		}
	}
	return out
}

// shown is the level a column draws for a lane of this shape: what the column hid
// inside it that matters most — the fullest a window or queue got, the emptiest a
// bucket got.
func shown(c column, shape algorithms.Shape) float64 {
	if shape == algorithms.ShapeBucket {
		return c.low
	}
	return c.high
}

// boundaries lists the times in v where a lane's windows turn over, for the time
// axis: multiples of the period (offset per key with random starts), when the
// period spans at least two columns (denser marks would fill the axis).
func boundaries(cfg *sim.Config, lane sim.LaneConfig, v timeView) []time.Duration {
	info, _ := algorithms.Lookup(lane.Algorithm)
	if !info.GridWindows() {
		return nil
	}
	k := cfg.Keys[cfg.WatchKey]
	period := lane.TierPolicy(cfg, k.Tier).Period
	if period < 2*v.span {
		return nil
	}
	var offset time.Duration
	if lane.Options.RandomStart {
		offset = time.Duration(algorithms.WindowOffset(k.Name, period)) * algorithms.Resolution
	}
	var out []time.Duration
	for b := (v.from-offset)/period*period + offset; b <= v.to(); b += period {
		if b > v.from {
			out = append(out, b)
		}
	}
	return out
}
