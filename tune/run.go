package tune

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/format"
)

// A run sweeps every period asked for (by default a second, a minute and an
// hour, and a day for a trace of more than three days): a grid of algorithm ×
// rate × burst per period, its rates and bursts from what the keys sent over
// that period. Then it layers the best few policies of a shorter period with the
// best few of a longer one, as gateways layer limits (5/s burst 20 with 300/h),
// because heavy keys are heavy over different timescales: a scraper over
// seconds, a crawler or a feed reader over hours, and no one period holds both
// without refusing ordinary users.

// Options say what a run sweeps.
type Options struct {
	// Periods are the periods swept, shortest first; empty is
	// DefaultPeriods(trace span).
	Periods    []time.Duration
	Algorithms []algorithms.Name // empty: DefaultAlgorithms
	// Rate and Burst, when not nil, replace every period's default ranges (see
	// DefaultRanges); rates are per each period.
	Rate, Burst *Range
	Points      int // rates and bursts per period, log-spaced; 0 is 8
	Goal        Goal
	// Single leaves out the layered pairs.
	Single bool
	// Variants are the knobs every policy is swept with (see Grid.Variants).
	Variants []Variant
	// Workers is how many policies are replayed at once; 0 is GOMAXPROCS.
	Workers int
	// Holdout is the last part of the log the recommendation is back-tested
	// on (see BackTest): 0 is the last fifth of a log of MinBackTestSpan or
	// more, else none; below 0 none.
	Holdout time.Duration
	// Progress, when not nil, is called after each policy; total grows once,
	// when the pairs are known.
	Progress func(done, total int)
}

// layerCandidates is how many of each period's best policies are layered with
// the best of every longer period.
const layerCandidates = 3

// pairMargin is how much less of the heavy hitters' traffic a layered pair must
// admit than the best single policy to be recommended instead: a tenth less.
// Below that one limit is as good and simpler to run.
const pairMargin = 0.9

// Grids are the grids a run swept, one per period, shortest first.
func (o Options) Grids(t *Trace) ([]Grid, error) {
	periods := o.Periods
	if len(periods) == 0 {
		periods, _ = DefaultPeriods(t.Span)
	}
	algs := o.Algorithms
	if len(algs) == 0 {
		algs = DefaultAlgorithms
	}
	points := o.Points
	if points <= 0 {
		points = 8
	}
	var grids []Grid
	for _, p := range periods {
		rate, burst, err := t.DefaultRanges(p)
		if err != nil {
			return nil, err
		}
		if !o.Goal.bound() {
			// the peaks are over windows laid end to end, and a window that
			// slides can hold up to twice as much: up to twice the most, so
			// that the grid holds a limit of every algorithm that refuses
			// nobody
			rate.Max *= 2
		}
		if o.Rate != nil {
			rate = *o.Rate
		}
		if o.Burst != nil {
			burst = *o.Burst
		}
		grids = append(grids, Grid{Algorithms: algs, Rates: rate.Steps(points), Bursts: burst.Steps(points), Period: p, RateRange: rate, BurstRange: burst, Span: t.Span, Variants: o.Variants})
	}
	return grids, nil
}

// Run sweeps the trace as o says and returns the report: every period's grid,
// then the layered pairs, the keys classed over every period, the
// recommendation and why. A trace loaded for one partition of its keys is swept
// without pairs: which pairs are worth replaying depends on every key's results
// (see Partial).
func Run(ctx context.Context, t *Trace, o Options) (*Report, error) {
	p, err := RunPartial(ctx, t, o)
	if err != nil {
		return nil, err
	}
	results := finalize(p.Tallies, p.Limits, p.Totals)
	rep := newReport(t, p.classes, results, p.goal, p.grids)
	if h := holdoutFor(o, t.Span); h > 0 {
		if t.Spilled() || !t.Partition.All() {
			rep.NoBackTest = "the log did not fit --memory, and a back-test sweeps its first part in memory; give more --memory."
			if !t.Partition.All() {
				rep.NoBackTest = "a partition's sweep is not back-tested."
			}
			return rep, nil
		}
		if rep.BackTest, err = backTest(ctx, t, o, h); err != nil {
			return nil, err
		}
		if rep.BackTest == nil {
			rep.NoBackTest = fmt.Sprintf("a sweep of all but the log's last %s met no limit of the goal: nothing to score.", format.Period(h))
		}
	}
	return rep, nil
}

// RunPartial sweeps the trace as Run does and returns the counts before the
// report: for a partition of the keys, what ratelab tune merge adds up.
func RunPartial(ctx context.Context, t *Trace, o Options) (*Partial, error) {
	grids, singles, periods, c, err := prepare(t, o)
	if err != nil {
		return nil, err
	}
	total := len(singles)
	progress := func(offset, count int) func(done, _ int) {
		return func(done, n int) {
			if o.Progress != nil {
				// a spilled trace counts each policy once per batch
				o.Progress(offset+done*count/max(n, 1), total)
			}
		}
	}
	tallies, err := sweep(ctx, t, c, singles, o.Workers, progress(0, len(singles)))
	if err != nil {
		return nil, err
	}
	limits := singles
	tot := newTotals(t, c)
	if !o.Single && len(periods) > 1 && t.Partition.All() {
		pairs := layeredPairs(finalize(tallies, singles, tot), c, o.Goal, periods, t.Span)
		total += len(pairs)
		more, err := sweep(ctx, t, c, pairs, o.Workers, progress(len(singles), len(pairs)))
		if err != nil {
			return nil, err
		}
		tallies, limits = append(tallies, more...), append(slices.Clone(singles), pairs...)
	}
	return newPartial(t, c, grids, o.Goal, limits, tallies, tot), nil
}

// prepare makes what a sweep of t replays: the grids, their policies, the
// periods swept, and the keys classed over them.
func prepare(t *Trace, o Options) (grids []Grid, singles []Limits, periods []time.Duration, c Classes, err error) {
	grids, err = o.Grids(t)
	if err != nil {
		return
	}
	var leftOut []Policy
	for _, g := range grids {
		periods = append(periods, g.Period)
		for _, p := range g.Policies(t.MaxRequestCost()) {
			singles = append(singles, Limits{Policy: p})
		}
		leftOut = append(leftOut, g.LeftOut(t.MaxRequestCost())...)
	}
	if len(singles) == 0 && len(leftOut) > 0 {
		first := leftOut[0]
		if e, ok := first.exact(t.MaxRequestCost(), t.Span).(*inexact); ok && !e.long {
			err = fmt.Errorf("no policy in the grid can be replayed exactly (%v); give a shorter period with --periods, or a lower --rate and --burst", e)
			return
		}
		err = fmt.Errorf("no policy in the grid can be replayed exactly over the trace's %s (%s first: %v); give rates that share more factors with the period (round numbers) with --rate, or a shorter part of the log", t.Span, first, first.policy().CheckHorizon(t.Span))
		return
	}
	if len(singles) == 0 {
		if err = refusal(grids); err != nil {
			err = fmt.Errorf("no policy in the grid is one the product can be configured with (%v); give --periods it takes", err)
			return
		}
		err = fmt.Errorf("no policy in the grid can accept the trace's largest request (cost %d); raise --burst (and --rate for the windows)", t.MaxRequestCost())
		return
	}
	c, err = t.Classify(periods)
	return
}

// layeredPairs are the pairs worth replaying: for every shorter period and every
// longer one, each of the shorter's best policies within the goal with each of
// the longer's. A period's best are those that hold the keys standing out over
// it hardest (the least of their requests admitted), then the loosest for
// ordinary keys.
func layeredPairs(results []Result, c Classes, g Goal, periods []time.Duration, span time.Duration) []Limits {
	best := make([][]Policy, len(periods))
	for i, p := range periods {
		var idx, fit []int
		for j, r := range results {
			if r.Period == p && !r.Layered() && g.Meets(r) {
				idx = append(idx, j)
				if fitsLog(r.Limits, span) {
					fit = append(fit, j)
				}
			}
		}
		if len(fit) > 0 {
			idx = fit // those the log can judge, when there are (see fitsLog)
		}
		sort.SliceStable(idx, func(a, b int) bool {
			ra, rb := results[idx[a]], results[idx[b]]
			if ra.OverAdmitted[i] != rb.OverAdmitted[i] {
				return ra.OverAdmitted[i] < rb.OverAdmitted[i]
			}
			return g.measure(ra) < g.measure(rb)
		})
		for _, j := range idx[:min(len(idx), layerCandidates)] {
			best[i] = append(best[i], results[j].Policy)
		}
	}
	var out []Limits
	for i := range periods {
		for j := i + 1; j < len(periods); j++ {
			for _, short := range best[i] {
				for _, long := range best[j] {
					if !slices.Contains(out, Limits{short, long}) {
						out = append(out, Limits{Policy: short, Long: long})
					}
				}
			}
		}
	}
	return out
}

// Lanes are the limits worth watching side by side, at most most of them: the
// recommendation (or, when nothing meets the goal, the closest), the best policy
// of each period within the goal, then the recommendation's neighbours in the
// grid.
func (r *Report) Lanes(most int) []Limits {
	var out []Limits
	add := func(i int) {
		if i >= 0 && len(out) < most && !slices.Contains(out, r.Results[i].Limits) {
			out = append(out, r.Results[i].Limits)
		}
	}
	best := r.Best
	if best < 0 {
		best = r.Closest()
	}
	add(best)
	for _, i := range r.bestPer() {
		add(i)
	}
	single := best
	if single >= 0 && r.Results[single].Layered() {
		single = slices.IndexFunc(r.Results, func(res Result) bool { return res.Limits == Limits{Policy: r.Results[best].Policy} })
	}
	for _, i := range Neighbours(r.Results, single, most) {
		add(i)
	}
	return out
}

// refusal is why a product refuses its grids' policies (nginx takes a rate per
// second or per minute only): the first algorithm's refusal of a grid's first
// rate at the grid's period, or nil when none refuses.
func refusal(grids []Grid) error {
	for _, g := range grids {
		for _, a := range g.Algorithms {
			info, _ := algorithms.Lookup(a)
			if info.CheckPolicy == nil || len(g.Rates) == 0 {
				continue
			}
			p := Policy{Algorithm: a, Limit: g.Rates[0], Period: g.Period, Burst: max(g.Rates[0], 1)}
			if err := info.CheckPolicy(p.policy(), info.Defaults); err != nil {
				return err
			}
		}
	}
	return nil
}
