package tune

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"ratelab/internal/tracegen"
	"ratelab/traces"
)

// BenchmarkTunePartitions measures what sweeping a log in parts costs and
// gains on this machine, through the partitioned sweep's contract — each
// worker reading its own file, summaries, the plan and partials written and read
// back as the stages write them — against one run over the same parts in the
// same benchmark:
//
//   - single-1-worker-s and single-s: one run over every part (the files merged
//     in time order), on one worker and on every core;
//   - for N of 2, 4 and 8 parts, N workers at once (one policy at a time each):
//     parts-N-s, the whole pipeline (scan, plan, sweep, merge, the pairs' round);
//     speedup-N, single-1-worker-s over parts-N-s; and efficiency-N, the
//     speed-up over min(N, GOMAXPROCS), the cores the workers can use. With two
//     cores, more parts than cores only shows the stages' overhead.
//
// The log (tracegen.Large, Zipf keys) is RATELAB_BENCH_LINES lines (default
// 100,000) over RATELAB_BENCH_KEYS keys (10,000), split once per N by Split,
// outside the timing; RATELAB_BENCH_POINTS rates and bursts per period (2).
func BenchmarkTunePartitions(b *testing.B) {
	lines, keys := envInt(b, "RATELAB_BENCH_LINES", 100_000), envInt(b, "RATELAB_BENCH_KEYS", 10_000)
	points := envInt(b, "RATELAB_BENCH_POINTS", 2)
	dir := b.TempDir()
	var log bytes.Buffer
	if _, err := tracegen.WriteLarge(&log, tracegen.Large{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Lines: lines, Keys: uint64(keys), Rate: 1000, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	counts := []int{2, 4, 8}
	srcs := map[int]Source{}
	for _, n := range counts {
		out := filepath.Join(dir, fmt.Sprint(n))
		if err := os.Mkdir(out, 0o755); err != nil {
			b.Fatal(err)
		}
		if _, err := Split("large.log", func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(log.Bytes())), nil }, traces.Options{}, n,
			func(name string) (io.WriteCloser, error) { return os.Create(filepath.Join(out, name)) }); err != nil {
			b.Fatal(err)
		}
		src, err := PartsOf(out)
		if err != nil {
			b.Fatal(err)
		}
		srcs[n] = src
	}
	log.Reset()
	o := Options{Goal: TradeOffGoal, Points: int(points), Holdout: -1}
	single := func(workers int) {
		t, err := LoadSource(srcs[counts[0]], traces.Options{}, LoadOptions{Budget: 1 << 30, Profiles: true})
		if err != nil {
			b.Fatal(err)
		}
		o := o
		o.Workers = workers
		if _, err := Run(context.Background(), t, o); err != nil {
			b.Fatal(err)
		}
	}
	var one, all time.Duration
	took := map[int]time.Duration{}
	for b.Loop() {
		start := time.Now()
		single(1)
		one += time.Since(start)
		start = time.Now()
		single(0)
		all += time.Since(start)
		for _, n := range counts {
			start := time.Now()
			partitioned(b, srcs[n], n, o)
			took[n] += time.Since(start)
		}
	}
	runs := float64(b.N)
	b.ReportMetric(one.Seconds()/runs, "single-1-worker-s")
	b.ReportMetric(all.Seconds()/runs, "single-s")
	cores := runtime.GOMAXPROCS(0)
	for _, n := range counts {
		speedup := one.Seconds() / took[n].Seconds()
		b.ReportMetric(took[n].Seconds()/runs, fmt.Sprintf("parts-%d-s", n))
		b.ReportMetric(speedup, fmt.Sprintf("speedup-%d", n))
		b.ReportMetric(speedup/float64(min(n, cores)), fmt.Sprintf("efficiency-%d", n))
	}
}

// partitioned sweeps src's n parts as the stages do, n workers at once.
func partitioned(b *testing.B, src Source, n int, o Options) *Report {
	each := func(work func(k int) []byte) [][]byte {
		out := make([][]byte, n)
		var wg sync.WaitGroup
		for k := range n {
			wg.Go(func() { out[k] = work(k) })
		}
		wg.Wait()
		return out
	}
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	written := func(write func(io.Writer) error) []byte {
		var buf bytes.Buffer
		must(write(&buf))
		return buf.Bytes()
	}
	var sums []*Summary
	var names []string
	for k, file := range each(func(k int) []byte {
		s, err := Scan(src.Share(Partition{K: k, N: n}), traces.Options{}, Partition{K: k, N: n}, nil)
		must(err)
		return written(s.Write)
	}) {
		s, err := ReadSummary("scan", bytes.NewReader(file))
		must(err)
		sums, names = append(sums, s), append(names, fmt.Sprint(k))
	}
	plan, err := NewPlan(sums, names, o)
	must(err)
	for {
		planFile := written(plan.Write)
		var parts []*Partial
		for _, file := range each(func(k int) []byte {
			p, err := ReadPlan("plan", bytes.NewReader(planFile))
			must(err)
			t, err := LoadSource(src.Share(Partition{K: k, N: n}), traces.Options{}, p.PartLoad(1<<30, ""))
			must(err)
			part, err := SweepPart(context.Background(), t, p, Partition{K: k, N: n}, 1, nil)
			must(err)
			return written(part.Write)
		}) {
			p, err := ReadPartial("partial", bytes.NewReader(file))
			must(err)
			parts = append(parts, p)
		}
		if !NeedsPairs(parts) {
			rep, err := Merge(parts, names)
			must(err)
			return rep
		}
		plan, err = NextRound(parts, names)
		must(err)
	}
}
