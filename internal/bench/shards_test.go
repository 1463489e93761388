package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/algorithms/redislua"
	"ratelab/internal/redistest"
)

// BenchmarkShards: a hot global limit on one key, and split into 4 and 16 shards
// picked at random or by two choices, 64 goroutines on the wall clock, on a Redis
// Cluster of three masters and on one server (the control), all in one run. Each
// sub-benchmark reports decisions per second, script calls per decision, and the
// busiest master's share of the script calls (33% is even over three; 100%: one
// master did all the work).
func BenchmarkShards(b *testing.B) {
	cluster := redistest.StartCluster(b)
	server := redistest.Start(b)
	for _, topo := range []struct{ name, url string }{{"cluster", cluster.URL()}, {"one-server", server.URL()}} {
		s, err := redislua.Open(context.Background(), topo.url)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		for _, n := range []int{1, 4, 16} {
			picks := []algorithms.ShardPick{algorithms.PickRandom, algorithms.PickTwoChoices}
			if n == 1 {
				picks = picks[:1]
			}
			for _, pick := range picks {
				b.Run(fmt.Sprintf("%s/shards=%d/%s", topo.name, n, pickName(n, pick)), func(b *testing.B) {
					l, err := redislua.NewLiveShards(s, fmt.Sprintf("b-%d-%s-%d", n, pick, b.N), n, pick, shardPolicy)
					if err != nil {
						b.Fatal(err)
					}
					origin := time.Now()
					// a warm-up, untimed: 64 connections opened (to each master), scripts loaded
					hammerShards(context.Background(), l, 64, origin, 200*time.Millisecond, 1<<62, n)
					before, _ := s.ScriptCalls(context.Background())
					calls0 := l.Calls()
					var seeds atomic.Uint64
					b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0))) // 64 goroutines in all
					b.ResetTimer()
					b.RunParallel(func(pb *testing.PB) {
						r := rand.New(rand.NewPCG(seeds.Add(1), 1))
						for pb.Next() {
							l.Allow(context.Background(), time.Since(origin), r.Uint64())
						}
					})
					b.StopTimer()
					after, _ := s.ScriptCalls(context.Background())
					c := ShardCell{Decisions: int64(b.N), Calls: l.Calls() - calls0, Elapsed: b.Elapsed()}
					for addr, calls := range after {
						c.Masters = append(c.Masters, MasterLoad{Addr: addr, Calls: calls - before[addr]})
					}
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
					b.ReportMetric(c.CallsPerDecision(), "calls/decision")
					b.ReportMetric(100*c.Busiest(), "%-busiest-master")
					if l.Errors() > 0 {
						b.Errorf("%d decisions failed", l.Errors())
					}
				})
			}
		}
	}
}

// LiveShards never lets more through than the whole policy: 64 goroutines on a
// limit of burst 16 at 16/s split into 4 shards, for 1 s, pass at most 16 + 16;
// two choices refuse only when both shards looked at are empty, a random pick
// whenever its shard is; both fill every shard. (A check on the wall clock, not a
// speed target.)
func TestLiveShardsKeepThePolicy(t *testing.T) {
	s := store(t)
	p := algorithms.Policy{Limit: 16, Period: time.Second, Burst: 16}
	for _, pick := range []algorithms.ShardPick{algorithms.PickRandom, algorithms.PickTwoChoices} {
		l, err := redislua.NewLiveShards(s, "keep-"+pick.String(), 4, pick, p)
		if err != nil {
			t.Fatal(err)
		}
		made, _ := hammerShards(context.Background(), l, 64, time.Now(), time.Second, 1<<62, 1)
		if l.Allowed() > 32 || l.Allowed() < 24 || l.Errors() != 0 {
			t.Errorf("%s: %d of %d decisions allowed, %d errors; want 24 to 32 of burst 16 + 16/s × 1s, no errors", pick, l.Allowed(), made, l.Errors())
		}
	}
	if _, err := redislua.NewLiveShards(s, "x", 17, algorithms.PickRandom, p); err == nil {
		t.Error("17 shards of a burst of 16 were accepted")
	}
}

// The shard cells on one server: every call lands on it; the table and the CSV
// carry every cell.
func TestRunShardsOnOneServer(t *testing.T) {
	s := store(t)
	cells, err := RunShards(context.Background(), s, ShardOptions{Shards: []int{1, 4}, Picks: []algorithms.ShardPick{algorithms.PickRandom, algorithms.PickTwoChoices},
		Concurrency: []int{4}, Duration: 100 * time.Millisecond, MaxDecisions: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 3 || cells[0].Pick != "one key" || cells[2].Pick != "two-choices" {
		t.Fatalf("cells: %+v", cells)
	}
	for _, c := range cells {
		if c.Decisions == 0 || c.Errors != 0 || len(c.Masters) != 1 || c.Busiest() != 1 || c.Masters[0].Calls < c.Calls {
			t.Errorf("cell %+v: want decisions, no errors, one node with every call", c)
		}
	}
	if got := cells[2].CallsPerDecision(); got < 2.5 || got > 3 {
		t.Errorf("two choices: %.2f calls per decision, want up to 3 (two checks and a decision)", got)
	}
	if !slices.ContainsFunc(cells, func(c ShardCell) bool { return c.Allowed > 0 }) {
		t.Error("nothing allowed")
	}
}
