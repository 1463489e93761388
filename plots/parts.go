package plots

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"ratelab/algorithms"
	"ratelab/internal/format"
	"ratelab/sim"
)

// maxColumns is the most columns a figure of counts draws: samples are joined,
// a whole number of them per column, beyond that.
const maxColumns = 300

// column is a stretch of samples joined: the decisions landed in it.
type column struct {
	end, span        time.Duration
	accepted, denied int64
	ideal            int64 // a deployed lane's ideal's admissions
	members          int   // a deployed lane's membership at the column's end
}

// columnsOf joins samples (each covering step) into at most maxColumns columns of
// a whole number of steps each, starting at zero; a sample belongs to the column
// its end falls in.
func columnsOf(samples []sim.Sample, step, upTo time.Duration) []column {
	if len(samples) == 0 || step <= 0 {
		return nil
	}
	steps := (upTo/step + maxColumns - 1) / maxColumns
	span := max(1, steps) * step
	var out []column
	for _, s := range samples {
		end := (s.At + span - 1) / span * span
		if len(out) == 0 || out[len(out)-1].end != end {
			out = append(out, column{end: end, span: span})
		}
		c := &out[len(out)-1]
		c.accepted += s.Accepted
		c.denied += s.Denied
		c.ideal += s.IdealAccepted
		c.members = s.Members
	}
	return out
}

// rates is each column's accepted decisions per second, as a step line.
func rates(cols []column) plotter.XYs {
	out := make(plotter.XYs, 0, len(cols)+1)
	for j, c := range cols {
		y := float64(c.accepted) / c.span.Seconds()
		if j == 0 {
			out = append(out, plotter.XY{X: seconds(c.end - c.span), Y: y})
		}
		out = append(out, plotter.XY{X: seconds(c.end), Y: y})
	}
	return out
}

// markers is how many markers a line carries: enough to tell the lines apart,
// few enough not to hide them.
const markers = 12

// addSeries draws xys as a line (a step line held over each interval when step),
// with a few markers on it, under name in the legend.
func addSeries(p *plot.Plot, xys plotter.XYs, style draw.LineStyle, glyph draw.GlyphStyle, name string, step bool) error {
	return addSeriesMarked(p, xys, style, glyph, name, step, 0.5)
}

// addLaneSeries draws lane i of n as addSeries does, in the lane's style, its
// markers shifted along the line by a share of their spacing that differs from
// lane to lane: where lanes draw the same line (six lanes all accepting 100),
// each lane's markers still show beside the others'.
func addLaneSeries(p *plot.Plot, xys plotter.XYs, i, n int, name string) error {
	style, glyph := laneStyle(i)
	return addSeriesMarked(p, xys, style, glyph, name, true, float64(i+1)/float64(n+1))
}

// addSeriesMarked is addSeries with the first marker at phase (0 to 1) of the
// spacing between markers.
func addSeriesMarked(p *plot.Plot, xys plotter.XYs, style draw.LineStyle, glyph draw.GlyphStyle, name string, step bool, phase float64) error {
	if len(xys) == 0 {
		return nil
	}
	line, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	line.LineStyle = style
	if step {
		line.StepStyle = plotter.PreStep
	}
	every := max(1, len(xys)/markers)
	var marked plotter.XYs
	for j := int(phase * float64(every)); j < len(xys); j += every {
		marked = append(marked, xys[j])
	}
	dots, err := plotter.NewScatter(marked)
	if err != nil {
		return err
	}
	dots.GlyphStyle = glyph
	p.Add(line, dots)
	p.Legend.Add(name, line, dots)
	return nil
}

// addHorizontal draws a horizontal line at y from `from` to `to`.
func addHorizontal(p *plot.Plot, style draw.LineStyle, y float64, from, to time.Duration, name string) error {
	line, err := plotter.NewLine(plotter.XYs{{X: seconds(from), Y: y}, {X: seconds(to), Y: y}})
	if err != nil {
		return err
	}
	line.LineStyle = style
	p.Add(line)
	p.Legend.Add(name, line)
	return nil
}

// boundaries lists the times in [from, to] where lane l's windows turn over for
// the watched key: multiples of the period (offset for the key with random
// starts), for the algorithms that count in windows (fixed window, sliding
// counter); none for the others. As the UI's time axis (ui/timeview.go).
func boundaries(d *Data, l Lane, from, to time.Duration) []time.Duration {
	if !l.Info.GridWindows() {
		return nil
	}
	k := d.Config.Keys[d.Config.WatchKey]
	period := l.Config.TierPolicy(d.Config, k.Tier).Period
	if period <= 0 {
		return nil
	}
	var offset time.Duration
	if l.Config.Options.RandomStart {
		offset = time.Duration(algorithms.WindowOffset(k.Name, period)) * algorithms.Resolution
	}
	var out []time.Duration
	for b := (from-offset)/period*period + offset; b <= to; b += period {
		if b > from {
			out = append(out, b)
		}
	}
	return out
}

// addBoundaries marks lane l's window boundaries in [from, to] as vertical lines
// across the plot's y range (set it first), unless there are more than most,
// which would hide the data; the legend says the period.
func addBoundaries(p *plot.Plot, d *Data, l Lane, from, to time.Duration, most int) error {
	marks := boundaries(d, l, from, to)
	if len(marks) == 0 || len(marks) > most {
		return nil
	}
	var first *plotter.Line
	for _, b := range marks {
		line, err := plotter.NewLine(plotter.XYs{{X: seconds(b), Y: p.Y.Min}, {X: seconds(b), Y: p.Y.Max}})
		if err != nil {
			return err
		}
		line.LineStyle = boundaryStyle
		p.Add(line)
		if first == nil {
			first = line
		}
	}
	k := d.Config.Keys[d.Config.WatchKey]
	period := l.Config.TierPolicy(d.Config, k.Tier).Period
	p.Legend.Add(fmt.Sprintf("%s window boundary (every %s)", l.Config.Name, format.Duration(period)), first)
	return nil
}

// headroom sets the y axis from 0 to above top, leaving room at the top for a
// legend of entries lines, so that it does not hide the data.
func headroom(p *plot.Plot, top float64, entries int) {
	p.Y.Min = 0
	p.Y.Max = max(1, top) / max(0.3, 0.95-0.05*float64(entries))
}

// msTicks labels a time axis in seconds by milliseconds, for a stretch too short
// for the default labels to tell apart.
type msTicks struct{}

func (msTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(min*1000, max*1000) {
		t.Value /= 1000
		out = append(out, t)
	}
	return out
}

// countTicks labels an axis of counts or rates: 4 to 10 labelled ticks at a round
// step (1, 2 or 5 times a power of ten), written without needless decimals.
type countTicks struct{}

func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	if hi <= lo {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', -1, 64)}}
	}
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/4)))
	for _, m := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(m*step) <= 10 {
			step *= m
			break
		}
	}
	decimals := max(0, int(-math.Floor(math.Log10(step))))
	var out []plot.Tick
	for k := math.Ceil(lo / step); k*step <= hi; k++ {
		out = append(out, plot.Tick{Value: k * step, Label: strconv.FormatFloat(k*step, 'f', decimals, 64)})
	}
	return out
}
