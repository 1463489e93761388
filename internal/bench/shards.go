package bench

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"ratelab/algorithms"
	"ratelab/algorithms/redislua"
)

// The shard benchmark: one hot global limit on Redis, on one key or split into
// shards (the shard in the key's hash tag), picked at random or by two choices,
// hammered by goroutines on the wall clock. On a Redis Cluster one key is one
// slot on one master; the question is how much shards buy, and how evenly they
// load the masters (each master's script calls, from INFO commandstats, before and
// after each cell). On one server, the same cells are the control.

// ShardOptions bound the shard benchmark.
type ShardOptions struct {
	Shards      []int
	Picks       []algorithms.ShardPick
	Concurrency []int
	// Duration is how long each cell runs; MaxDecisions stops it earlier.
	Duration     time.Duration
	MaxDecisions int64
	// Progress, if set, is told what runs next.
	Progress func(string)
}

// shardPolicy is generous, so nearly every decision allows and writes, as a busy
// global limit's do.
var shardPolicy = algorithms.Policy{Limit: 1_000_000, Period: time.Second, Burst: 100_000}

// ShardCell is one measurement of a sharded hot limit.
type ShardCell struct {
	Shards      int
	Pick        string // "one key" for one shard
	Concurrency int
	Decisions   int64
	Allowed     int64
	Calls       int64
	Errors      int64
	Elapsed     time.Duration
	// Masters is each node's script calls during the cell, by address.
	Masters []MasterLoad
}

// MasterLoad is the script calls one node ran during a cell.
type MasterLoad struct {
	Addr  string
	Calls int64
}

// PerSecond is the decisions per second over all goroutines.
func (c ShardCell) PerSecond() float64 { return float64(c.Decisions) / c.Elapsed.Seconds() }

// CallsPerDecision is the script calls sent per decision.
func (c ShardCell) CallsPerDecision() float64 { return float64(c.Calls) / float64(max(c.Decisions, 1)) }

// Shares are each node's share of the cell's script calls, in Masters' order.
func (c ShardCell) Shares() []float64 {
	var total int64
	for _, m := range c.Masters {
		total += m.Calls
	}
	out := make([]float64, len(c.Masters))
	for i, m := range c.Masters {
		out[i] = float64(m.Calls) / float64(max(total, 1))
	}
	return out
}

// Busiest is the busiest node's share of the script calls (1/masters when even,
// 1 when one node took them all).
func (c ShardCell) Busiest() float64 {
	s := c.Shares()
	if len(s) == 0 {
		return 0
	}
	return slices.Max(s)
}

// RunShards runs every cell: each number of shards, each pick (one key has only
// one), at each concurrency.
func RunShards(ctx context.Context, s *redislua.Store, o ShardOptions) ([]ShardCell, error) {
	var cells []ShardCell
	for _, n := range o.Shards {
		picks := o.Picks
		if n == 1 {
			picks = []algorithms.ShardPick{algorithms.PickRandom}
		}
		for _, pick := range picks {
			for _, g := range o.Concurrency {
				name := pickName(n, pick)
				if o.Progress != nil {
					o.Progress(fmt.Sprintf("%d shards, %s, %d goroutines", n, name, g))
				}
				c, err := shardCell(ctx, s, n, pick, g, o)
				if err != nil {
					return nil, err
				}
				cells = append(cells, c)
			}
		}
	}
	return cells, nil
}

// pickName is how a cell's pick is shown.
func pickName(shards int, pick algorithms.ShardPick) string {
	if shards == 1 {
		return "one key"
	}
	return pick.String()
}

func shardCell(ctx context.Context, s *redislua.Store, n int, pick algorithms.ShardPick, goroutines int, o ShardOptions) (ShardCell, error) {
	l, err := redislua.NewLiveShards(s, fmt.Sprintf("bench-shards-%d-%s-%d", n, pick, goroutines), n, pick, shardPolicy)
	if err != nil {
		return ShardCell{}, err
	}
	// a warm-up, untimed: connections opened, scripts loaded
	origin := time.Now() // the limiter's clock, one for both runs
	hammerShards(ctx, l, goroutines, origin, min(o.Duration/5, 100*time.Millisecond), o.MaxDecisions, n)
	calls0, allowed0, errors0 := l.Calls(), l.Allowed(), l.Errors()
	before, err := s.ScriptCalls(ctx)
	if err != nil {
		return ShardCell{}, err
	}
	made, elapsed := hammerShards(ctx, l, goroutines, origin, o.Duration, o.MaxDecisions, n)
	after, err := s.ScriptCalls(ctx)
	if err != nil {
		return ShardCell{}, err
	}
	c := ShardCell{Shards: n, Pick: pickName(n, pick), Concurrency: goroutines, Decisions: made, Allowed: l.Allowed() - allowed0,
		Calls: l.Calls() - calls0, Errors: l.Errors() - errors0, Elapsed: elapsed}
	for addr, calls := range after {
		c.Masters = append(c.Masters, MasterLoad{Addr: addr, Calls: calls - before[addr]})
	}
	slices.SortFunc(c.Masters, func(a, b MasterLoad) int { return strings.Compare(a.Addr, b.Addr) })
	return c, nil
}

// hammerShards runs goroutines deciding on l until d has passed or most decisions
// are made, each with its own seeded draws, stamping requests with the time since
// origin, and returns the decisions and the time they took.
func hammerShards(ctx context.Context, l *redislua.LiveShards, goroutines int, origin time.Time, d time.Duration, most int64, seed int) (int64, time.Duration) {
	var made atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < goroutines; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), uint64(seed)))
			for time.Since(start) < d && made.Load() < most && ctx.Err() == nil {
				l.Allow(ctx, time.Since(origin), r.Uint64())
				made.Add(1)
			}
		}()
	}
	wg.Wait()
	return made.Load(), time.Since(start)
}

// WriteShardTable prints the cells as a table, with each master's share of the
// script calls.
func WriteShardTable(w io.Writer, cells []ShardCell) error {
	if len(cells) > 0 {
		var addrs []string
		for _, m := range cells[0].Masters {
			addrs = append(addrs, m.Addr)
		}
		fmt.Fprintf(w, "%d node(s) holding data: %s; load is each one's share of the script calls\n\n", len(addrs), strings.Join(addrs, ", "))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shards\tpick\tgoroutines\tdecisions\tdecisions/s\tcalls/decision\terrors\tbusiest node\tload per node\t")
	for _, c := range cells {
		var shares []string
		for _, s := range c.Shares() {
			shares = append(shares, fmt.Sprintf("%.0f%%", 100*s))
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%.0f\t%.2f\t%d\t%.0f%%\t%s\t\n", c.Shards, c.Pick, c.Concurrency, c.Decisions, c.PerSecond(),
			c.CallsPerDecision(), c.Errors, 100*c.Busiest(), strings.Join(shares, " "))
	}
	return tw.Flush()
}

// ShardCSVColumns is the shard benchmark's CSV header: a row per cell; masters
// lists each node's script calls as addr=calls, separated by spaces.
const ShardCSVColumns = "shards,pick,goroutines,decisions,decisions_per_second,calls_per_decision,errors,busiest_share,masters"

// WriteShardCSV writes the cells as CSV.
func WriteShardCSV(w io.Writer, cells []ShardCell) error {
	cw := csv.NewWriter(w)
	cw.Write(strings.Split(ShardCSVColumns, ","))
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	for _, c := range cells {
		var masters []string
		for _, m := range c.Masters {
			masters = append(masters, m.Addr+"="+strconv.FormatInt(m.Calls, 10))
		}
		cw.Write([]string{strconv.Itoa(c.Shards), c.Pick, strconv.Itoa(c.Concurrency), strconv.FormatInt(c.Decisions, 10),
			f(c.PerSecond(), 0), f(c.CallsPerDecision(), 3), strconv.FormatInt(c.Errors, 10), f(c.Busiest(), 3), strings.Join(masters, " ")})
	}
	cw.Flush()
	return cw.Error()
}
