package tune

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"ratelab/internal/format"
	"ratelab/internal/printable"

	"github.com/guptarohit/asciigraph"
)

// Report is a sweep's outcome: the trace, its keys classed over every period
// swept, the results (every period's grid in order, then the layered pairs), the
// goal, and the recommendation (Best, -1 when nothing meets the goal) with why.
type Report struct {
	Trace   *Trace
	Classes Classes
	Results []Result
	Goal    Goal
	Best    int
	Why     string
	// Grids are the grids swept, per period (nil when unknown): a
	// recommendation on an edge of its grid says so.
	Grids []Grid
	// Tightest is, for the safety net, the tightest policy that refuses
	// nobody, of which Best adds headroom (-1 otherwise).
	Tightest int
	// BackTest is the recommendation fitted on the log but its last part and
	// scored on that part; nil when not run (see Options.Holdout), and then
	// NoBackTest says why when the log was long enough for one.
	BackTest   *BackTest
	NoBackTest string

	answer *Answer // worked out once (Answer)
}

// NewReport classifies the trace's keys over the periods of the results and
// picks the recommendation.
func NewReport(t *Trace, results []Result, g Goal) (*Report, error) {
	var ps []Policy
	for _, r := range results {
		ps = append(ps, r.Policy)
		if r.Layered() {
			ps = append(ps, r.Long)
		}
	}
	c, err := t.Classify(periodsOf(ps))
	if err != nil {
		return nil, err
	}
	return newReport(t, c, results, g, nil), nil
}

func newReport(t *Trace, c Classes, results []Result, g Goal, grids []Grid) *Report {
	best, why := Recommend(results, g, t.Span)
	r := &Report{Trace: t, Classes: c, Results: results, Goal: g, Best: best, Why: why, Grids: grids, Tightest: -1}
	if best >= 0 && !g.bound() && g.Name != GoalAbuse {
		r.addHeadroom(t.maxCost)
	}
	return r
}

// addHeadroom makes the recommendation the safety net: the tightest policy
// that refuses nobody (Tightest, kept) with its limit and burst times the
// goal's headroom, up to what exact arithmetic holds. It refuses nobody
// either — a limiter of the same algorithm with more room refuses no request
// its tighter self accepted, and that one accepted them all —, so its result
// is the tightest one's with the new limits; the net is added to Results.
func (r *Report) addHeadroom(maxCost int64) {
	tight := r.Results[r.Best]
	h := r.Goal.headroom()
	scale := func(p Policy) Policy {
		if p.Limit == 0 {
			return p
		}
		most := mostExact(p.Period, maxCost)
		p.Limit = min(most, int64(math.Ceil(float64(p.Limit)*h)))
		p.Burst = min(most, int64(math.Ceil(float64(p.Burst)*h)))
		if !hasBurst(p.Algorithm) {
			p.Burst = p.Limit
		}
		return p
	}
	net := tight
	net.Policy, net.Long = scale(tight.Policy), scale(tight.Long)
	if net.Limits == tight.Limits {
		return
	}
	r.Tightest = r.Best
	r.Results = append(r.Results, net)
	r.Best = len(r.Results) - 1
	r.Why = fmt.Sprintf("%s is %s× the tightest policy that refuses no request of any client in the log (%s): room for the clients seen to grow, and still a limit a runaway client meets.",
		net.Limits, strconv.FormatFloat(h, 'f', -1, 64), tight.Limits)
}

// Advice is the recommendation and everything said about it: why, why this
// period or pair, the grid's edges, the timestamps' resolution; one paragraph.
func (r *Report) Advice() string {
	parts := []string{r.Why}
	if s := r.Reason(); s != "" {
		parts = append(parts, s)
	}
	parts = append(parts, r.Edges()...)
	if s := r.ShortLog(); s != "" {
		parts = append(parts, s)
	}
	if s := r.LeftOut(); s != "" {
		parts = append(parts, s)
	}
	if s := r.Resolution(); s != "" {
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// ShortLog warns when the recommended limit's period (a layered pair's
// longer one) is longer than the log: the sweep could only measure it as a
// budget for the whole log, and a real period of it holds more traffic than
// the log does, which the limit would refuse. It warns too when the period
// fits but the burst takes longer than the log to refill (burst ÷ rate): the
// burst was then a budget for the whole log as well, and a client that keeps
// sending past it is held to the rate, which the log could not show. ""
// otherwise.
func (r *Report) ShortLog() string {
	if r.Best < 0 {
		return ""
	}
	res := r.Results[r.Best]
	p := res.Policy.Period
	if res.Layered() {
		p = max(p, res.Long.Period)
	}
	span := r.Trace.Span
	if p > span {
		more := "more than this log holds"
		if span > 0 {
			more = fmt.Sprintf("about %s× what this log holds", strconv.FormatFloat(math.Round(float64(p)/float64(span)*10)/10, 'f', -1, 64))
		}
		return fmt.Sprintf("Careful: the log covers %s, less than one period of %s, so that limit was measured as a budget for the whole log; over a real %s the same clients send %s, and the limit would refuse them. Sweep a log at least %s long, or give --periods no longer than %s.",
			format.Period(span), format.Period(p), format.Period(p), more, format.Period(p), format.Period(span))
	}
	for _, q := range []Policy{res.Policy, res.Long} {
		refill := refillTime(q)
		if q.Limit <= 0 || !hasBurst(q.Algorithm) || refill <= span {
			continue
		}
		rate := format.LimitRate(q.Limit, q.Period)
		fits := "" // the largest burst that refills within the log
		if most := int64(float64(q.Limit) * span.Seconds() / q.Period.Seconds()); most >= 1 {
			fits = fmt.Sprintf(", or give --burst no more than %d", most)
		}
		refill = refill.Round(time.Second)
		return fmt.Sprintf("Careful: its burst of %d takes %s to refill at %s, longer than the %s log, which saw it as a budget for the whole log (a longer sender is held to %s); sweep a log at least %s long%s.",
			q.Burst, format.Period(refill), rate, format.Period(span), rate, format.Period(refill), fits)
	}
	return ""
}

// refillTime is how long q's burst takes to refill from empty at q's rate:
// burst × period ÷ limit (the period when the burst is no more than the limit,
// as a window's is). Past what a Duration holds it is the longest one.
func refillTime(q Policy) time.Duration {
	if q.Limit <= 0 || q.Burst <= q.Limit {
		return q.Period
	}
	seconds := q.Period.Seconds() * float64(q.Burst) / float64(q.Limit)
	if seconds >= math.MaxInt64/1e9 {
		return math.MaxInt64
	}
	return time.Duration(seconds * 1e9)
}

// heavyHitters names the heavy hitters: how many of n keys, and how chosen.
func heavyHitters(c Classes, n int) string {
	keys := "keys"
	if c.HeavyCount == 1 {
		keys = "key"
	}
	if c.ByVolume {
		return fmt.Sprintf("the %d heaviest %s of %d (the top 1%%, at least one key, as none stands out over a period)", c.HeavyCount, keys, n)
	}
	return fmt.Sprintf("%d %s of %d", c.HeavyCount, keys, n)
}

// Summary is a paragraph on the trace: its size, span, keys, format, the key
// classes, which keys stand out over which period, and what was skipped in
// reading it.
func (r *Report) Summary() string {
	t, c := r.Trace, r.Classes
	var b strings.Builder
	// the name, the layout and the lines' problems are printed as a terminal
	// cannot act on them (a partial sweep merged is anyone's file)
	name := printable.String(t.Name)
	fmt.Fprintf(&b, "%s: %s from %s over %s", name, plural(t.Count, "request", "requests"), plural(int64(t.KeyCount), "key", "keys"), t.Span)
	if t.Format.Layout != "" {
		fmt.Fprintf(&b, ", read as %s", printable.String(t.Format.String()))
	}
	if n := t.Stats.Unparsed; n == 1 {
		fmt.Fprintf(&b, "; 1 line could not be read and was skipped (%s: %s)", printable.String(t.Stats.Shown[0].Where(t.Name)), printable.String(t.Stats.Shown[0].Why))
	} else if n > 1 {
		fmt.Fprintf(&b, "; %d lines could not be read and were skipped (first: %s: %s)", n, printable.String(t.Stats.Shown[0].Where(t.Name)), printable.String(t.Stats.Shown[0].Why))
	}
	if t.KeyCount > 0 {
		span := max(t.Span, time.Second).Seconds()
		rate := func(k int) string { return format.Rate(float64(t.Volume[k]) / span) }
		fmt.Fprintf(&b, ".\nMedian key: %s (%s, peak %d in a second); 99th-percentile key: %d (%s, peak %d); heavy hitters: %s; the heaviest key %s sent %d (%s, peak %d).\n%s",
			plural(t.Volume[c.Median], "request", "requests"), rate(c.Median), t.Peak[c.Median], t.Volume[c.P99], rate(c.P99), t.Peak[c.P99], heavyHitters(c, t.KeyCount),
			printable.String(t.Keys[c.Heaviest]), t.Volume[c.Heaviest], rate(c.Heaviest), t.Peak[c.Heaviest], r.Timescales())
	}
	return b.String()
}

// columns of the table and the CSV, in order
var tableHeader = []string{"", "algorithm", "rate", "burst", "denied", "median key", "p99 key", "ordinary", "heavy admitted", "heaviest admitted", "state", "retry p50", "retry p99"}

// WriteTable prints the summary, one row per policy (* marks the
// recommendation) and per layered pair, the frontier per period and the chart,
// and the recommendation with its reasons.
func (r *Report) WriteTable(w io.Writer, chartWidth int) error {
	fmt.Fprintln(w, r.Summary())
	fmt.Fprintln(w)
	pairs := false
	for _, layered := range []bool{false, true} {
		var rows []int
		for i, res := range r.Results {
			if res.Layered() == layered {
				rows = append(rows, i)
			}
		}
		if len(rows) == 0 {
			continue
		}
		if layered {
			pairs = true
			fmt.Fprintln(w)
			fmt.Fprintln(w, "Layered pairs: a request is accepted only when both limits would accept it, and then counts against both.")
		}
		delays := slices.ContainsFunc(r.Results, func(res Result) bool { return res.Delayed > 0 })
		header := tableHeader
		if delays {
			header = append(slices.Clone(header), "delayed", "delay p50", "delay p99")
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
		for _, i := range rows {
			res := r.Results[i]
			mark := ""
			if i == r.Best {
				mark = "*"
			}
			alg, rate, burst := string(res.Algorithm), format.LimitRate(res.Limit, res.Period), burstOf(res.Policy)
			if k := res.Knobs.String(); k != "" {
				alg += " " + k
			}
			if layered {
				alg += " + " + string(res.Long.Algorithm)
				rate += " + " + format.LimitRate(res.Long.Limit, res.Long.Period)
				burst += " + " + burstOf(res.Long)
			}
			row := []string{mark, alg, rate, burst, percent(res.DeniedShare),
				percent(res.MedianKeyDenied), percent(res.P99KeyDenied), percent(res.OrdinaryDenied), percent(res.HeavyAdmitted),
				heaviest(res), format.Bytes(res.PeakStateBytes),
				format.Duration(res.RetryAfterP50), format.Duration(res.RetryAfterP99)}
			if delays {
				row = append(row, percent(res.DelayedShare), format.Duration(res.DelayP50), format.Duration(res.DelayP99))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	if len(r.Classes.Over) > 1 || pairs {
		if err := r.writeFrontiers(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, r.Frontier(chartWidth))
	fmt.Fprintln(w)
	_, err := fmt.Fprintln(w, r.Advice())
	return err
}

// burstOf is the burst column: "-" for the windows, which have none.
func burstOf(p Policy) string {
	if !hasBurst(p.Algorithm) {
		return "-"
	}
	return strconv.FormatInt(p.Burst, 10)
}

// frontierAt are the shares of ordinary keys' requests denied at which the
// frontier table reads each period's trade-off.
var frontierAt = []float64{0.0001, 0.001, 0.01, 0.1}

// writeFrontiers prints the frontier of each period's grid, and of the layered
// pairs: the least of the heavy hitters' requests any of its policies admits
// while denying ordinary keys at most each share.
func (r *Report) writeFrontiers(w io.Writer) error {
	fmt.Fprintln(w, "The frontier per period: the least of the heavy hitters' requests any policy admits, denying ordinary keys' requests at most")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"period"}
	for _, x := range frontierAt {
		head = append(head, percent(x))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, f := range r.frontiers() {
		cells := []string{f.Period}
		for _, h := range f.HeavyAdmitted {
			cells = append(cells, percent(h))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	return tw.Flush()
}

// heaviest is the heaviest key's rate admitted of its rate offered, over the
// trace's span, both in the unit that makes the offered rate readable: "0.3 of
// 5.8/h".
func heaviest(r Result) string {
	u := format.RateUnit(r.HeaviestOffered)
	return format.Count(r.HeaviestAdmitted, u) + " of " + format.RateIn(r.HeaviestOffered, u)
}

// Frontier draws the trade-off the grid offers: for each share of ordinary keys'
// requests denied (x, on a log scale from 0.01% to the most any policy denied
// them), the smallest share of the heavy hitters' requests any policy admitted at
// that cost or less (y): the lower the line, the harder abusers are held for the
// same collateral. Policies that deny ordinary keys nothing count everywhere.
func (r *Report) Frontier(width int) string {
	width = max(20, width)
	if len(r.Results) == 0 {
		return ""
	}
	var xmax float64
	for _, res := range r.Results {
		xmax = max(xmax, res.OrdinaryDenied)
	}
	if xmax <= 0.0001 {
		return fmt.Sprintf("(no policy in the grid denied ordinary keys more than 0.01%%; the heavy hitters' admitted share goes down to %s)", percent(minHeavy(r.Results, xmax)))
	}
	lo, hi := math.Log10(0.01), math.Log10(100*xmax) // in percent
	ys := make([]float64, width)
	for i := range ys {
		x := math.Pow(10, lo+(hi-lo)*float64(i)/float64(width-1))
		ys[i] = 100 * minHeavy(r.Results, x/100)
	}
	return asciigraph.Plot(ys, asciigraph.Height(10), asciigraph.Width(width), asciigraph.LowerBound(0), asciigraph.UpperBound(100),
		asciigraph.XAxisRange(lo, hi), asciigraph.XAxisTickCount(5),
		asciigraph.XAxisValueFormatter(func(v float64) string { return percent(math.Pow(10, v) / 100) }),
		asciigraph.YAxisValueFormatter(func(v float64) string { return fmt.Sprintf("%3.0f%%", v) }),
		asciigraph.Caption(fmt.Sprintf("heavy hitters' requests admitted by the best policy (y) against ordinary keys' requests denied (x, log scale); goal %s", r.Goal)))
}

// minHeavy is the smallest HeavyAdmitted among the results denying ordinary keys
// at most x.
func minHeavy(results []Result, x float64) float64 {
	m := 1.0
	for _, res := range results {
		if res.OrdinaryDenied <= x {
			m = min(m, res.HeavyAdmitted)
		}
	}
	return m
}

// plural is format.Plural.
func plural(n int64, one, many string) string { return format.Plural(n, one, many) }
