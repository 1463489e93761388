package plots

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"ratelab/deploy"
	"ratelab/internal/format"
)

// membershipHeight is the height of a deployment figure's membership panel.
const membershipHeight = 1.3 * vg.Inch

// deploymentFigure is deployed lane i's admissions a second against its
// ideal's (one limiter of the policy, synchronised at once, fed the same
// requests), with its membership in a panel above on the same time axis when
// it changes: where the lane's line runs over the ideal's is its overshoot.
func deploymentFigure(d *Data, i int, base string) (Figure, error) {
	l := d.Lanes[i]
	cols := columnsOf(l.Samples, l.Step, d.UpTo)
	title := fmt.Sprintf("%s: admitted a second against one ideal limiter, %s", l.Config.Name, l.Config.Deploy.Sync)
	p := newPlot(d, title, "admitted per second")
	p.Title.Text = fmt.Sprintf("%s: admitted a second, and what one ideal limiter admits of the same requests", l.Config.Name)
	ideal := make(plotter.XYs, 0, len(cols)+1)
	members := make(plotter.XYs, 0, len(cols)+1)
	top, most, least := 0.0, 0, math.MaxInt
	for j, c := range cols {
		y := float64(c.ideal) / c.span.Seconds()
		if j == 0 {
			ideal = append(ideal, plotter.XY{X: seconds(c.end - c.span), Y: y})
			members = append(members, plotter.XY{X: seconds(c.end - c.span), Y: float64(c.members)})
		}
		ideal = append(ideal, plotter.XY{X: seconds(c.end), Y: y})
		members = append(members, plotter.XY{X: seconds(c.end), Y: float64(c.members)})
		top = max(top, y, float64(c.accepted)/c.span.Seconds())
		most, least = max(most, c.members), min(least, c.members)
	}
	headroom(p, top, 2)
	p.X.Min, p.X.Max = 0, seconds(d.UpTo)
	style, glyph := laneStyle(i)
	if err := addSeries(p, rates(cols), style, glyph, fmt.Sprintf("%s (%d× %s over %s)", l.Config.Name, l.Config.Instances, l.Config.Deploy.Sync, format.Duration(l.Config.Deploy.Latency)), true); err != nil {
		return Figure{}, err
	}
	idealStyle, idealGlyph := laneStyle(0)
	idealStyle.Color, idealGlyph.Color = markColor, markColor
	idealStyle.Dashes = capacityStyle.Dashes
	if err := addSeries(p, ideal, idealStyle, idealGlyph, "the ideal: one limiter, synchronised at once", true); err != nil {
		return Figure{}, err
	}
	if most == least { // a membership that never changed: said in the legend, no panel
		return Figure{Name: base + "-vs-ideal", Title: title, Lane: i, plot: p}, nil
	}
	above := newPlot(d, fmt.Sprintf("%s: its instances", l.Config.Name), "instances")
	above.Title.Text = ""
	above.X.Label.Text = ""
	above.Y.Min, above.Y.Max = 0, float64(most)+1
	above.X.Min, above.X.Max = 0, seconds(d.UpTo)
	if err := addSeries(above, members, style, glyph, "instances", true); err != nil {
		return Figure{}, err
	}
	return Figure{Name: base + "-vs-ideal", Title: title, Lane: i, plot: p, above: above, aboveHeight: membershipHeight}, nil
}

// sweepFigure draws the overshoot sweep (deploy.Sweep): for each protocol and
// sync interval, the most admitted beyond one ideal limiter in a second,
// against the instances, on one seeded traffic.
func sweepFigure(lines []deploy.SweepLine) (Figure, error) {
	title := "Overshoot against instances and sync interval, per protocol"
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s\none key at %d a second (Poisson, seed 1) for 60 s, round robin, a limit of %d a second", title, 3*deploy.SweepPolicy.Limit, deploy.SweepPolicy.Limit)
	p.X.Label.Text = "instances"
	p.Y.Label.Text = "most admitted beyond the ideal in a second"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = instanceTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	top := 0.0
	for i, l := range lines {
		xys := make(plotter.XYs, len(l.Overshoot))
		for j, o := range l.Overshoot {
			xys[j] = plotter.XY{X: float64(deploy.SweepInstances[j]), Y: float64(o)}
			top = max(top, float64(o))
		}
		style, glyph := laneStyle(i)
		if err := addSeriesMarked(p, xys, style, glyph, l.Label(), false, 0); err != nil {
			return Figure{}, err
		}
	}
	headroom(p, top, len(lines))
	first, last := deploy.SweepInstances[0], deploy.SweepInstances[len(deploy.SweepInstances)-1]
	p.X.Min, p.X.Max = float64(first)/math.Sqrt2, float64(last)*math.Sqrt2
	return Figure{Name: "deployments-sweep", Title: title, Lane: -1, plot: p}, nil
}

// instanceTicks marks the sweep's instance counts.
type instanceTicks struct{}

func (instanceTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, n := range deploy.SweepInstances {
		if x := float64(n); x >= lo && x <= hi {
			out = append(out, plot.Tick{Value: x, Label: strconv.Itoa(n)})
		}
	}
	return out
}
