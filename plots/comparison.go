package plots

import (
	"fmt"
	"time"

	"ratelab/present/format"

	"gonum.org/v1/plot/plotter"
)

// comparisonFigure is every lane's accepted decisions per second on one axis, and
// the backend's capacity when there is one.
func comparisonFigure(d *Data) (Figure, error) {
	title := "Accepted per second, every lane"
	p := newPlot(d, title, "accepted decisions per second")
	top := 0.0
	var lines []plotter.XYs
	for _, l := range d.Lanes {
		xys := rates(columnsOf(l.Samples, l.Step, d.UpTo))
		for _, pt := range xys {
			top = max(top, pt.Y)
		}
		lines = append(lines, xys)
	}
	if b := d.Config.Backend; b != nil {
		top = max(top, b.Capacity())
	}
	headroom(p, top, len(d.Lanes)+1)
	p.X.Min, p.X.Max = 0, seconds(d.UpTo)
	if b := d.Config.Backend; b != nil {
		if err := addHorizontal(p, capacityStyle, b.Capacity(), 0, d.UpTo, fmt.Sprintf("backend capacity (%g/s)", b.Capacity())); err != nil {
			return Figure{}, err
		}
	}
	for i, xys := range lines {
		style, glyph := laneStyle(i)
		if err := addSeries(p, xys, style, glyph, d.Lanes[i].Config.Name, true); err != nil {
			return Figure{}, err
		}
	}
	return Figure{Name: "comparison-accepted", Title: title, Lane: -1, plot: p}, nil
}

// zoomFigure is the decisions every lane accepted from the zoom's start, counted
// as they landed (in bins of Zoom.Bin), around the busiest moment: the limit of
// the lane whose peak it is, and that lane's window boundaries. The fixed
// window's boundary burst is its line climbing to twice the limit across the
// boundary mark while the others stop at the limit.
func zoomFigure(d *Data) (Figure, error) {
	z := d.Zoom
	peak := d.Lanes[z.Lane]
	key := d.Config.Keys[d.Config.WatchKey]
	policy := peak.Config.TierPolicy(d.Config, key.Tier)
	title := fmt.Sprintf("Accepted since %s, around the busiest moment (%s's peak)", fmtSeconds(z.From), peak.Config.Name)
	p := newPlot(d, title, fmt.Sprintf("decisions accepted since %s (counted every %s)", fmtSeconds(z.From), format.Duration(z.Bin)))
	p.X.Label.Text = "virtual time (ms)"
	var lines []plotter.XYs
	top := float64(policy.Limit)
	for i := range d.Lanes {
		xys := plotter.XYs{{X: seconds(z.From), Y: 0}}
		var sum int64
		for j, n := range z.Accepted[i] {
			sum += n
			end := z.From + time.Duration(j+1)*z.Bin
			xys = append(xys, plotter.XY{X: seconds(end), Y: float64(sum)})
		}
		top = max(top, float64(sum))
		lines = append(lines, xys)
	}
	headroom(p, top, len(d.Lanes)+2)
	p.X.Min, p.X.Max = seconds(z.From), seconds(z.To)
	p.X.Tick.Marker = msTicks{}
	if err := addBoundaries(p, d, peak, z.From, z.To, 20); err != nil {
		return Figure{}, err
	}
	if err := addHorizontal(p, capacityStyle, float64(policy.Limit), z.From, z.To, fmt.Sprintf("limit (%d per %s)", policy.Limit, format.Duration(policy.Period))); err != nil {
		return Figure{}, err
	}
	for i, xys := range lines {
		style, glyph := laneStyle(i)
		if err := addSeries(p, xys, style, glyph, d.Lanes[i].Config.Name, true); err != nil {
			return Figure{}, err
		}
	}
	return Figure{Name: "comparison-zoom", Title: title, Lane: -1, plot: p}, nil
}

// fmtSeconds is t in seconds with millisecond digits: "0.990 s".
func fmtSeconds(t time.Duration) string { return fmt.Sprintf("%.3f s", t.Seconds()) }
