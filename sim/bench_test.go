package sim

import (
	"fmt"
	"io"
	"runtime"
	"syscall"
	"testing"
	"time"

	"ratelab/algorithms"
)

// replayConfig offers `offered` requests at 10,000 a second, Poisson, over `keys`
// keys (uniform), against 10 per second per key (burst 20) for 1,000 keys and 1,000
// per second (burst 2,000) for 10, through all seven lanes: about a quarter are
// denied. Clients do not retry, so decisions = offered × lanes.
func replayConfig(offered, keyCount int) *Config {
	duration := time.Duration(offered/10_000) * time.Second
	var lanes []LaneConfig
	for _, name := range algorithms.Names() {
		lanes = append(lanes, lane(name, name))
	}
	limit := int64(10_000 / keyCount)
	cfg := newConfig(algorithms.Policy{Limit: limit, Period: time.Second, Burst: 2 * limit}, duration, lanes)
	cfg.Tick = 100 * time.Millisecond
	keys := make([]int, keyCount)
	for i := range keys {
		cfg.Keys = append(cfg.Keys, Key{Name: fmt.Sprintf("user-%d", i)})
		keys[i] = i
	}
	cfg.Clients = []Client{{Name: "users", Pattern: Poisson{Rate: 10_000}, Keys: keys, Stop: duration,
		Deliveries: 1, Cost: Cost{Fixed: 1}, Retry: Retry{MaxAttempts: 1}}}
	return cfg
}

// BenchmarkReplay replays 100,000 and 1,000,000 offered requests through every
// lane, over 10 keys and over 1,000, and reports decisions per second, bytes
// allocated per decision, and the peak live heap sampled every virtual second:
// flat as the request count grows, because requests stream through and only
// per-key state and per-tick series are kept. "with-csv" also formats every
// decision as the request CSV (to io.Discard). Over 1,000 uniform keys each
// decision misses the cache on its key's state in the limiter and in the metrics,
// which is what separates the two shapes.
func BenchmarkReplay(b *testing.B) {
	for _, keyCount := range []int{10, 1000} {
		for _, offered := range []int{100_000, 1_000_000} {
			for _, withCSV := range []bool{false, true} {
				if withCSV && offered != 1_000_000 {
					continue
				}
				name := fmt.Sprintf("keys=%d/offered=%d", keyCount, offered)
				if withCSV {
					name += "/with-csv"
				}
				b.Run(name, func(b *testing.B) { benchmarkReplay(b, offered, keyCount, withCSV) })
			}
		}
	}
}

func benchmarkReplay(b *testing.B, offered, keyCount int, withCSV bool) {
	var decisions int64
	var peakHeap uint64
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	allocated := ms.TotalAlloc
	cpu0 := cpuTime()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		cfg := replayConfig(offered, keyCount)
		r, err := NewRun(cfg)
		if err != nil {
			b.Fatal(err)
		}
		if withCSV {
			w, _ := NewRequestWriter(io.Discard, cfg)
			r.OnRows(w.Write)
		}
		for t := time.Second; t <= cfg.Duration; t += time.Second {
			if err := r.AdvanceTo(t); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			runtime.ReadMemStats(&ms)
			peakHeap = max(peakHeap, ms.HeapAlloc)
			b.StartTimer()
		}
		for _, m := range r.Metrics() {
			decisions += m.Attempts
		}
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(decisions)/b.Elapsed().Seconds(), "decisions/s")
	// per second of the process's CPU time, which a busy shared machine does not
	// blur as it does wall time (the memory sampling between steps included)
	b.ReportMetric(float64(decisions)/(cpuTime()-cpu0).Seconds(), "decisions/cpu-s")
	b.ReportMetric(float64(ms.TotalAlloc-allocated)/float64(decisions), "B/decision")
	b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(decisions)/float64(b.N), "decisions/op")
}

// cpuTime is the CPU time (user and system) the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
