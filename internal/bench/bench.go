// Package bench is ratelab's live benchmark: real goroutines deciding on a real
// Redis, on the wall clock (the one place besides main that reads it), to answer
// what people ask before they choose how to keep rate-limit state in Redis. Each
// strategy (atomic, multi, watch) decides for one hot key and for a key per goroutine
// at several concurrencies; then 64 goroutines hammer one bucket of burst 10 at
// 10/s for 3 s, where no more than 40 may pass, and the over-grant is counted.
package bench

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"ratelab/algorithms"
	"ratelab/algorithms/redislua"
)

// Options bound the benchmark in time and in count.
type Options struct {
	Strategies  []algorithms.Strategy
	Concurrency []int
	// Duration is how long each throughput cell runs; MaxDecisions stops it
	// earlier once that many decisions are made.
	Duration     time.Duration
	MaxDecisions int64
	// OverGrantFor is how long the over-grant test runs (3 s: at most 40 pass).
	OverGrantFor time.Duration
	// Progress, if set, is told what runs next.
	Progress func(string)
}

// Shapes are the key shapes: every goroutine on one key, or each on its own.
var Shapes = []string{"hot-key", "per-user"}

// Cell is one throughput measurement.
type Cell struct {
	Strategy    string
	Shape       string
	Concurrency int
	Decisions   int64
	Elapsed     time.Duration
	Calls       int64
	Errors      int64
	GaveUp      int64
}

// NsPerDecision is the wall time per decision over all goroutines (the inverse of
// throughput), as go test -bench reports a parallel benchmark.
func (c Cell) NsPerDecision() float64 {
	return float64(c.Elapsed.Nanoseconds()) / float64(max(c.Decisions, 1))
}

// CallsPerDecision is the Redis commands sent per decision.
func (c Cell) CallsPerDecision() float64 { return float64(c.Calls) / float64(max(c.Decisions, 1)) }

// OverGrant is the over-grant test's result for one strategy.
type OverGrant struct {
	Strategy  string
	Allowed   int64
	Most      int64 // burst + rate × T
	Decisions int64
	GaveUp    int64
	Errors    int64
}

// Percent is how far Allowed went past Most, in percent; 0 when it did not.
func (o OverGrant) Percent() float64 {
	return 100 * float64(max(0, o.Allowed-o.Most)) / float64(o.Most)
}

// throughputPolicy is generous, so most decisions write state as accepting ones do.
var throughputPolicy = algorithms.Policy{Limit: 100_000, Period: time.Second}

// overGrantPolicy is burst 10 at 10 per second.
var overGrantPolicy = algorithms.Policy{Limit: 10, Period: time.Second, Burst: 10}

// Run runs every cell and the over-grant test on s; when ctx is done it stops at
// once and returns its cause.
func Run(ctx context.Context, s *redislua.Store, o Options) ([]Cell, []OverGrant, error) {
	say := func(f string, a ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf(f, a...))
		}
	}
	var cells []Cell
	for _, strategy := range o.Strategies {
		for _, shape := range Shapes {
			for _, n := range o.Concurrency {
				say("%s, %s, %d goroutines", strategy, shape, n)
				c, err := throughput(ctx, s, strategy, shape, n, o)
				if err != nil {
					return nil, nil, err
				}
				if ctx.Err() != nil {
					return nil, nil, context.Cause(ctx)
				}
				cells = append(cells, c)
			}
		}
	}
	var over []OverGrant
	for _, strategy := range o.Strategies {
		say("over-grant, %s: 64 goroutines on one key for %s", strategy, o.OverGrantFor)
		g, err := overGrant(ctx, s, strategy, o.OverGrantFor)
		if err != nil {
			return nil, nil, err
		}
		if ctx.Err() != nil {
			return nil, nil, context.Cause(ctx)
		}
		over = append(over, g)
	}
	return cells, over, nil
}

// hammer runs n goroutines deciding until the deadline or max decisions, each for
// key(i), and returns the decisions made, those allowed, and the time taken. The
// goroutines stop at once when ctx is done.
func hammer(ctx context.Context, l *redislua.Live, n int, d time.Duration, most int64, key func(int) string) (decisions, allowed int64, elapsed time.Duration) {
	var made, passed atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := key(i)
			for {
				now := time.Since(start)
				if now >= d || made.Load() >= most || ctx.Err() != nil {
					return
				}
				ok, _ := l.Allow(ctx, k, now)
				made.Add(1)
				if ok {
					passed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return made.Load(), passed.Load(), time.Since(start)
}

func throughput(ctx context.Context, s *redislua.Store, strategy algorithms.Strategy, shape string, n int, o Options) (Cell, error) {
	l, err := redislua.NewLive(s, fmt.Sprintf("bench-%s-%s-%d", strategy, shape, n), strategy, throughputPolicy)
	if err != nil {
		return Cell{}, err
	}
	key := func(int) string { return "hot" }
	if shape == "per-user" {
		key = func(i int) string { return "user-" + strconv.Itoa(i) }
	}
	decisions, _, elapsed := hammer(ctx, l, n, o.Duration, o.MaxDecisions, key)
	return Cell{Strategy: strategy.String(), Shape: shape, Concurrency: n, Decisions: decisions, Elapsed: elapsed,
		Calls: l.Calls(), Errors: l.Errors(), GaveUp: l.GaveUp()}, nil
}

func overGrant(ctx context.Context, s *redislua.Store, strategy algorithms.Strategy, d time.Duration) (OverGrant, error) {
	l, err := redislua.NewLive(s, "overgrant-"+strategy.String(), strategy, overGrantPolicy)
	if err != nil {
		return OverGrant{}, err
	}
	decisions, allowed, _ := hammer(ctx, l, 64, d, 1<<62, func(int) string { return "one-key" })
	most := overGrantPolicy.Burst + overGrantPolicy.Limit*int64(d/overGrantPolicy.Period)
	return OverGrant{Strategy: strategy.String(), Allowed: allowed, Most: most, Decisions: decisions, GaveUp: l.GaveUp(), Errors: l.Errors()}, nil
}

// WriteTable prints both results as tables.
func WriteTable(w io.Writer, cells []Cell, over []OverGrant, overFor time.Duration) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tkeys\tgoroutines\tdecisions\tns/decision\tdecisions/s\tcalls/decision\terrors\tgave up\t")
	for _, c := range cells {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.0f\t%.0f\t%.2f\t%d\t%d\t\n", c.Strategy, c.Shape, c.Concurrency, c.Decisions,
			c.NsPerDecision(), float64(c.Decisions)/c.Elapsed.Seconds(), c.CallsPerDecision(), c.Errors, c.GaveUp)
	}
	tw.Flush()
	if len(over) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nover-grant: burst %d at %d/s, 64 goroutines on one key for %s; at most %d may pass\n",
		overGrantPolicy.Burst, overGrantPolicy.Limit, overFor, over[0].Most)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tdecisions\tallowed\tover-grant\tretries exhausted\terrors\t")
	for _, o := range over {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f%%\t%d\t%d\t\n", o.Strategy, o.Decisions, o.Allowed, o.Percent(), o.GaveUp, o.Errors)
	}
	return tw.Flush()
}

// CSVColumns is the bench CSV's header: a row per cell, then a row per strategy
// of the over-grant test (test = over-grant, with allowed, most and over-grant).
const CSVColumns = "test,strategy,keys,goroutines,decisions,ns_per_decision,calls_per_decision,errors,gave_up,allowed,most,over_grant_percent"

// WriteCSV writes both results as CSV.
func WriteCSV(w io.Writer, cells []Cell, over []OverGrant) error {
	cw := csv.NewWriter(w)
	cw.Write(strings.Split(CSVColumns, ","))
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	for _, c := range cells {
		cw.Write([]string{"throughput", c.Strategy, c.Shape, strconv.Itoa(c.Concurrency), strconv.FormatInt(c.Decisions, 10),
			f(c.NsPerDecision(), 0), f(c.CallsPerDecision(), 3), strconv.FormatInt(c.Errors, 10), strconv.FormatInt(c.GaveUp, 10), "", "", ""})
	}
	for _, o := range over {
		cw.Write([]string{"over-grant", o.Strategy, "hot-key", "64", strconv.FormatInt(o.Decisions, 10), "", "",
			strconv.FormatInt(o.Errors, 10), strconv.FormatInt(o.GaveUp, 10), strconv.FormatInt(o.Allowed, 10), strconv.FormatInt(o.Most, 10), f(o.Percent(), 1)})
	}
	cw.Flush()
	return cw.Error()
}
