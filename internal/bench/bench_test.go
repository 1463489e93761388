package bench

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/algorithms/redislua"
	"ratelab/internal/redistest"
)

func store(t testing.TB) *redislua.Store {
	t.Helper()
	s, err := redislua.Open(context.Background(), redistest.Start(t).URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkLiveStrategies: the three strategies side by side, 64 goroutines on one
// hot key (and a key each), on the wall clock: ns per decision and Redis calls per
// decision. The strategies are each other's peers.
func BenchmarkLiveStrategies(b *testing.B) {
	s := store(b)
	for _, shape := range Shapes {
		for _, strategy := range []algorithms.Strategy{algorithms.Atomic, algorithms.Multi, algorithms.Watch} {
			b.Run(shape+"/"+strategy.String(), func(b *testing.B) {
				l, err := redislua.NewLive(s, fmt.Sprintf("b-%s-%s-%d", shape, strategy, b.N), strategy, throughputPolicy)
				if err != nil {
					b.Fatal(err)
				}
				var next atomic.Int64
				start := time.Now()
				b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0))) // 64 goroutines in all
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					key := "hot"
					if shape == "per-user" {
						key = "user-" + strconv.FormatInt(next.Add(1), 10)
					}
					for pb.Next() {
						l.Allow(context.Background(), key, time.Since(start))
					}
				})
				b.ReportMetric(float64(l.Calls())/float64(b.N), "calls/decision")
				b.ReportMetric(float64(l.GaveUp())/float64(b.N), "gave-up/decision")
			})
		}
	}
}

// TestOverGrant: 64 goroutines on one bucket of burst 10 at 10/s for 1 s may pass 20
// at most. The Lua script never lets more through; read-compute-write does; WATCH
// holds, giving up instead. (A correctness check on the wall clock, not a speed
// target.)
func TestOverGrant(t *testing.T) {
	s := store(t)
	results := map[string]OverGrant{}
	for _, strategy := range []algorithms.Strategy{algorithms.Atomic, algorithms.Multi, algorithms.Watch} {
		g, err := overGrant(context.Background(), s, strategy, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		results[strategy.String()] = g
	}
	lua, multi, watch := results["atomic"], results["multi"], results["watch"]
	if lua.Most != 20 || lua.Allowed > 20 || lua.Allowed < 18 || lua.Percent() != 0 {
		t.Errorf("atomic (Lua) allowed %d of at most %d (over-grant %.1f%%); want at most 20 and no over-grant", lua.Allowed, lua.Most, lua.Percent())
	}
	if multi.Allowed <= 20 {
		t.Errorf("read-compute-write allowed %d of at most 20; 64 racing goroutines should over-grant", multi.Allowed)
	}
	if watch.Allowed > 20 || watch.Errors != 0 {
		t.Errorf("WATCH allowed %d (at most 20), %d errors", watch.Allowed, watch.Errors)
	}
	for _, g := range results {
		if g.Errors != 0 {
			t.Errorf("%s: %d errors", g.Strategy, g.Errors)
		}
	}
}
