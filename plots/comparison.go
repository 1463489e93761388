package plots

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"ratelab/internal/format"
)

// comparisonFigure is every lane's accepted decisions per second, and the
// backend's capacity when there is one, on one axis; except that when the
// no-limit lane goes higher than offScale times the limited lanes (and the
// capacity), it gets a panel of its own above theirs, on its own scale, with
// its peak in the legend: on one axis its spike would flatten every limited
// lane into the bottom of the chart, the very lines the figure is for.
func comparisonFigure(d *Data) (Figure, error) {
	title := "Accepted per second, every lane"
	var lines []plotter.XYs
	var limited, baseline []int
	limitedTop, baselineTop := 0.0, 0.0
	for i, l := range d.Lanes {
		xys := rates(columnsOf(l.Samples, l.Step, d.UpTo))
		lines = append(lines, xys)
		top := 0.0
		for _, pt := range xys {
			top = max(top, pt.Y)
		}
		if l.HasLevel() {
			limited = append(limited, i)
			limitedTop = max(limitedTop, top)
		} else {
			baseline = append(baseline, i)
			baselineTop = max(baselineTop, top)
		}
	}
	capacity := 0.0
	if b := d.Config.Backend; b != nil {
		capacity = b.Capacity()
	}
	if len(limited) == 0 || len(baseline) == 0 || baselineTop <= offScale*max(limitedTop, capacity) {
		p := newPlot(d, title, "accepted decisions per second")
		if err := comparisonPanel(p, d, lines, allLanes(d), max(limitedTop, baselineTop)); err != nil {
			return Figure{}, err
		}
		return Figure{Name: "comparison-accepted", Title: title, Lane: -1, plot: p}, nil
	}
	above := newPlot(d, title, "accepted per second")
	above.X.Label.Text = ""
	if err := comparisonPanel(above, d, lines, baseline, baselineTop); err != nil {
		return Figure{}, err
	}
	below := plot.New()
	below.Title.Text = fmt.Sprintf("the limited lanes, on a scale of their own; %s, above, reaches %s/s over %s", laneList(d, baseline), formatRate(baselineTop), format.Duration(d.Lanes[baseline[0]].Step))
	below.X.Label.Text = "virtual time (s)"
	below.Y.Label.Text = "accepted decisions per second"
	below.Legend.Top, below.Legend.Left = true, true
	below.Y.Tick.Marker = countTicks{}
	below.Add(plotter.NewGrid())
	if err := comparisonPanel(below, d, lines, limited, limitedTop); err != nil {
		return Figure{}, err
	}
	return Figure{Name: "comparison-accepted", Title: title, Lane: -1, plot: below, above: above, aboveHeight: baselineHeight}, nil
}

// offScale is how many times the limited lanes' highest rate (or the backend's
// capacity, if higher) the no-limit lane must reach to get a panel of its own.
const offScale = 2

// baselineHeight is the height of the no-limit lane's panel.
var baselineHeight = 2.5 * vg.Inch

// comparisonPanel draws the lanes listed (by index into d.Lanes) on p, each its
// line of rates from lines in its own style, with the backend's capacity, on an
// axis from 0 to above top (and the capacity). A no-limit lane's legend entry
// says its peak, and when.
func comparisonPanel(p *plot.Plot, d *Data, lines []plotter.XYs, lanes []int, top float64) error {
	b := d.Config.Backend
	if b != nil {
		top = max(top, b.Capacity())
	}
	entries := len(lanes)
	if b != nil {
		entries++
	}
	headroom(p, top, entries)
	p.X.Min, p.X.Max = 0, seconds(d.UpTo)
	if b != nil {
		if err := addHorizontal(p, capacityStyle, b.Capacity(), 0, d.UpTo, fmt.Sprintf("backend capacity (%g/s)", b.Capacity())); err != nil {
			return err
		}
	}
	for _, i := range lanes {
		name := d.Lanes[i].Config.Name
		if xys := lines[i]; !d.Lanes[i].HasLevel() && len(xys) > 0 {
			// a step line: point j holds its rate from point j-1's time on
			peak := 0
			for j := range xys {
				if xys[j].Y > xys[peak].Y {
					peak = j
				}
			}
			from := xys[max(0, peak-1)].X
			// a rate over one column (a tick), which is not the busiest
			// second the verdict counts: say over what
			name += fmt.Sprintf(" (peak %s/s over %s, at %s s)", formatRate(xys[peak].Y), format.Duration(d.Lanes[i].Step), strconv.FormatFloat(from, 'f', -1, 64))
		}
		if err := addLaneSeries(p, lines[i], i, len(d.Lanes), name); err != nil {
			return err
		}
	}
	return nil
}

// allLanes is every lane's index.
func allLanes(d *Data) []int {
	out := make([]int, len(d.Lanes))
	for i := range out {
		out[i] = i
	}
	return out
}

// laneList names the lanes listed, quoted: "no limit", or "a" and "b".
func laneList(d *Data, lanes []int) string {
	var names []string
	for _, i := range lanes {
		names = append(names, strconv.Quote(d.Lanes[i].Config.Name))
	}
	if len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return names[0]
}

// formatRate is a rate in whole units with thousands separated: 11,340.
func formatRate(v float64) string {
	s := strconv.FormatFloat(v, 'f', 0, 64)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
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
		if err := addLaneSeries(p, xys, i, len(lines), d.Lanes[i].Config.Name); err != nil {
			return Figure{}, err
		}
	}
	return Figure{Name: "comparison-zoom", Title: title, Lane: -1, plot: p}, nil
}

// fmtSeconds is t in seconds with millisecond digits: "0.990 s".
func fmtSeconds(t time.Duration) string { return fmt.Sprintf("%.3f s", t.Seconds()) }
