package plots

import (
	"fmt"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"ratelab/algorithms"
	"ratelab/deploy"
	"ratelab/internal/format"
)

// Figure is one chart of a run, ready to render as SVG or PNG.
type Figure struct {
	// Name is the file name without its extension: "comparison-zoom",
	// "lane1-fixed-window-level".
	Name string
	// Title is what the figure shows, in a sentence (the report's heading).
	Title string
	// Lane is the lane it is about, -1 for the comparison.
	Lane int

	plot *plot.Plot
	// above, when not nil, is a panel drawn above plot, aboveHeight high, on
	// the same time axis (the comparison's no-limit lane, on a scale of its own).
	above       *plot.Plot
	aboveHeight vg.Length
}

// Size is a figure's size: 8 × 4.5 inches, 768 × 432 pixels as PNG; a figure
// with a panel above is taller by that panel (Figure.Size).
var (
	Width  = 8 * vg.Inch
	Height = 4.5 * vg.Inch
)

// Size is the figure's width and height.
func (f Figure) Size() (w, h vg.Length) { return Width, Height + f.aboveHeight }

// Figures are d's charts, comparison first, then lane by lane, and notes on what
// is not drawn and why (the no-limit lane has no level).
func Figures(d *Data) ([]Figure, []string, error) {
	var figs []Figure
	var notes []string
	add := func(f Figure, err error) error {
		if err == nil {
			figs = append(figs, f)
		}
		return err
	}
	if d.Zoom != nil {
		if err := add(zoomFigure(d)); err != nil {
			return nil, nil, err
		}
	}
	if err := add(comparisonFigure(d)); err != nil {
		return nil, nil, err
	}
	if deployed := slices.ContainsFunc(d.Lanes, func(l Lane) bool { return l.Config.Deployed() }); deployed {
		lines, err := deploy.Sweep()
		if err == nil {
			err = add(sweepFigure(lines))
		}
		if err != nil {
			return nil, nil, err
		}
	}
	for i, l := range d.Lanes {
		base := fmt.Sprintf("lane%d-%s", i+1, slug(l.Config.Name))
		if l.HasLevel() {
			if err := add(levelFigure(d, i, base, 0, d.UpTo, false)); err != nil {
				return nil, nil, err
			}
			if z := d.Zoom; z != nil && z.Lane == i {
				// the ticks around the peak, where High and Low show what the
				// whole run's figure is too coarse to
				mid := (z.From + z.To) / 2 / d.Config.Tick * d.Config.Tick
				from, to := max(0, mid-10*l.Step), min(d.UpTo, mid+10*l.Step)
				if err := add(levelFigure(d, i, base, from, to, true)); err != nil {
					return nil, nil, err
				}
			}
		} else {
			notes = append(notes, fmt.Sprintf("lane %q has no level: it limits nothing and holds no state; its load is in %s-decisions", l.Config.Name, base))
		}
		if err := add(decisionsFigure(d, i, base)); err != nil {
			return nil, nil, err
		}
		if l.Config.Deployed() {
			if err := add(deploymentFigure(d, i, base)); err != nil {
				return nil, nil, err
			}
		}
		if d.Config.Backend != nil {
			if err := add(backendFigure(d, i, base)); err != nil {
				return nil, nil, err
			}
		}
	}
	return figs, notes, nil
}

// newPlot is a plot with the title, the scenario and seed under it, and the axes'
// labels.
func newPlot(d *Data, title, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s\nscenario %s, seed %d, %s of virtual time", title, d.Config.Name, d.Config.Seed, format.Duration(d.UpTo))
	p.X.Label.Text = "virtual time (s)"
	p.Y.Label.Text = yLabel
	p.Legend.Top = true
	p.Legend.Left = true
	p.Y.Tick.Marker = countTicks{}
	p.Add(plotter.NewGrid())
	return p
}

func seconds(t time.Duration) float64 { return t.Seconds() }

// levelFigure is lane i's watched key's level: the highest and the lowest it
// reached in each tick (what the UI draws), its capacity, and the window
// boundaries where its windows turn over.
//
// With zoomed, it shows only the ticks from `from` to `to` (a close-up of the busiest
// moment), else the whole run.
func levelFigure(d *Data, i int, base string, from, to time.Duration, zoomed bool) (Figure, error) {
	l := d.Lanes[i]
	key := d.Config.Keys[d.Config.WatchKey]
	title := fmt.Sprintf("%s: %s for key %s", l.Config.Name, l.Info.LevelName(), key.Name)
	name := base + "-level"
	if zoomed {
		title = fmt.Sprintf("%s, %s to %s", title, fmtSeconds(from), fmtSeconds(to))
		name += "-zoom"
	}
	p := newPlot(d, title, l.Info.LevelName()+" (units)")
	highs := make(plotter.XYs, 0, len(l.Samples)+1)
	lows := make(plotter.XYs, 0, len(l.Samples)+1)
	top := 0.0
	first := true
	for _, s := range l.Samples {
		if s.At <= from || s.At-l.Step >= to {
			continue
		}
		if first {
			first = false
			highs = append(highs, plotter.XY{X: seconds(s.At - l.Step), Y: s.High})
			lows = append(lows, plotter.XY{X: seconds(s.At - l.Step), Y: s.Low})
		}
		highs = append(highs, plotter.XY{X: seconds(s.At), Y: s.High})
		lows = append(lows, plotter.XY{X: seconds(s.At), Y: s.Low})
		top = max(top, s.High)
	}
	policy := l.Config.TierPolicy(d.Config, key.Tier)
	capacity := float64(algorithms.Capacity(l.Config.Algorithm, policy, l.Config.Options))
	headroom(p, max(top, capacity), 4)
	p.X.Min, p.X.Max = seconds(from), seconds(to)
	if zoomed {
		p.X.Tick.Marker = msTicks{}
		p.X.Label.Text = "virtual time (ms)"
	}
	if err := addBoundaries(p, d, l, from, to, 60); err != nil {
		return Figure{}, err
	}
	if err := addHorizontal(p, capacityStyle, capacity, from, to, fmt.Sprintf("capacity (%g)", capacity)); err != nil {
		return Figure{}, err
	}
	style, glyph := laneStyle(0)
	if err := addSeries(p, highs, style, glyph, "highest in each tick", true); err != nil {
		return Figure{}, err
	}
	lowStyle, lowGlyph := laneStyle(2)
	if err := addSeries(p, lows, lowStyle, lowGlyph, "lowest in each tick", true); err != nil {
		return Figure{}, err
	}
	return Figure{Name: name, Title: title, Lane: i, plot: p}, nil
}

// decisionsFigure is lane i's decisions per column of time, accepted below and
// denied stacked on top.
func decisionsFigure(d *Data, i int, base string) (Figure, error) {
	l := d.Lanes[i]
	cols := columnsOf(l.Samples, l.Step, d.UpTo)
	title := fmt.Sprintf("%s: decisions, accepted and denied", l.Config.Name)
	span := time.Duration(0)
	if len(cols) > 0 {
		span = cols[0].span
	}
	p := newPlot(d, title, "decisions per "+format.Duration(span))
	accepted := make(plotter.XYs, 0, 2*len(cols)+2)
	stacked := make(plotter.XYs, 0, 2*len(cols)+2)
	top := 0.0
	for _, c := range cols {
		a, all := float64(c.accepted), float64(c.accepted+c.denied)
		accepted = append(accepted, plotter.XY{X: seconds(c.end - c.span), Y: a}, plotter.XY{X: seconds(c.end), Y: a})
		stacked = append(stacked, plotter.XY{X: seconds(c.end - c.span), Y: all}, plotter.XY{X: seconds(c.end), Y: all})
		top = max(top, all)
	}
	headroom(p, top, 2)
	p.X.Min, p.X.Max = 0, seconds(d.UpTo)
	if len(cols) > 0 {
		deniedArea, err := plotter.NewPolygon(band(stacked, accepted))
		if err != nil {
			return Figure{}, err
		}
		deniedArea.Color = deniedFill
		deniedArea.LineStyle.Width = 0
		acceptedArea, err := plotter.NewPolygon(band(accepted, nil))
		if err != nil {
			return Figure{}, err
		}
		acceptedArea.Color = acceptedFill
		acceptedArea.LineStyle.Width = 0
		p.Add(deniedArea, acceptedArea)
		p.Legend.Add("denied", deniedArea)
		p.Legend.Add("accepted", acceptedArea)
	}
	return Figure{Name: base + "-decisions", Title: title, Lane: i, plot: p}, nil
}

// backendFigure is the load lane i sent to the backend (its accepted requests per
// second) against the backend's capacity.
func backendFigure(d *Data, i int, base string) (Figure, error) {
	l := d.Lanes[i]
	b := d.Config.Backend
	title := fmt.Sprintf("%s: load on the backend against its capacity", l.Config.Name)
	p := newPlot(d, title, "requests per second")
	load := rates(columnsOf(l.Samples, l.Step, d.UpTo))
	top := b.Capacity()
	for _, pt := range load {
		top = max(top, pt.Y)
	}
	headroom(p, top, 2)
	p.X.Min, p.X.Max = 0, seconds(d.UpTo)
	if err := addHorizontal(p, capacityStyle, b.Capacity(), 0, d.UpTo, fmt.Sprintf("capacity (%g/s: %d at a time, %s each)", b.Capacity(), b.Concurrency, format.Duration(b.ServiceTime))); err != nil {
		return Figure{}, err
	}
	style, glyph := laneStyle(i)
	if err := addSeries(p, load, style, glyph, "accepted, sent to the backend", true); err != nil {
		return Figure{}, err
	}
	return Figure{Name: base + "-backend", Title: title, Lane: i, plot: p}, nil
}

// band is the closed outline of the area between top and bottom (the x axis when
// bottom is nil), both drawn left to right at the same xs.
func band(top, bottom plotter.XYs) plotter.XYs {
	out := append(plotter.XYs(nil), top...)
	if bottom == nil {
		out = append(out, plotter.XY{X: top[len(top)-1].X, Y: 0}, plotter.XY{X: top[0].X, Y: 0})
		return out
	}
	for j := len(bottom) - 1; j >= 0; j-- {
		out = append(out, bottom[j])
	}
	return out
}
