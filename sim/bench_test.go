package sim_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"syscall"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"ratelab/algorithms"
	"ratelab/present"
	"ratelab/sim"
)

// replayConfig offers `offered` requests at 10,000 a second, Poisson, over `keys`
// keys (uniform), against 10 per second per key (burst 20) for 1,000 keys and 1,000
// per second (burst 2,000) for 10, through all seven lanes: about a quarter are
// denied. Clients do not retry, so decisions = offered × lanes.
func replayConfig(offered, keyCount int) *sim.Config {
	duration := time.Duration(offered/10_000) * time.Second
	var lanes []sim.LaneConfig
	for _, name := range benchLanes() {
		lanes = append(lanes, sim.NewLane(string(name), name))
	}
	limit := int64(10_000 / keyCount)
	cfg := sim.NewConfig(algorithms.Policy{Limit: limit, Period: time.Second, Burst: 2 * limit}, duration, lanes)
	cfg.Tick = 100 * time.Millisecond
	keys := make([]int, keyCount)
	for i := range keys {
		cfg.Keys = append(cfg.Keys, sim.Key{Name: fmt.Sprintf("user-%d", i)})
		keys[i] = i
	}
	cfg.Clients = []sim.Client{{Name: "users", Pattern: sim.Poisson{Rate: 10_000}, Keys: keys, Stop: duration,
		Deliveries: 1, Cost: sim.Cost{Fixed: 1}, Retry: sim.Retry{MaxAttempts: 1}}}
	return cfg
}

// BenchmarkReplay replays 100,000 and 1,000,000 offered requests through every
// lane, over 10 keys and over 1,000, and reports decisions per second, bytes
// allocated per decision, and the peak live heap sampled every virtual second:
// flat as the request count grows, because requests stream through and only
// per-key state and per-tick series are kept. "with-csv" also formats every
// decision as the request CSV (to io.Discard), and runs the same replay without
// it in each iteration (untimed): csv-share is the speed it keeps, with over
// without, per CPU-second. Over 1,000 uniform keys each
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
	var cpu, plainCPU time.Duration // the replay's CPU time; with the CSV, the same replay's without it
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var plain int64
		if withCSV { // the peer: the same replay without the CSV, untimed, stepped and sampled alike
			b.StopTimer()
			var unused uint64
			cpu0 := cpuTime()
			plain = replayStepped(b, replayConfig(offered, keyCount), false, false, &unused)
			plainCPU += cpuTime() - cpu0
			b.StartTimer()
		}
		cpu0 := cpuTime()
		n := replayStepped(b, replayConfig(offered, keyCount), withCSV, true, &peakHeap)
		cpu += cpuTime() - cpu0
		if withCSV && n != plain {
			b.Fatalf("%d decisions with the CSV, %d without: the share compares unlike runs", n, plain)
		}
		decisions += n
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(decisions)/b.Elapsed().Seconds(), "decisions/s")
	// per second of the process's CPU time, which a busy shared machine does not
	// blur as it does wall time (the memory sampling between steps included)
	b.ReportMetric(float64(decisions)/cpu.Seconds(), "decisions/cpu-s")
	if withCSV {
		// the CSV's cost as the share of the plain replay's speed it keeps,
		// both measured in this run: decisions per CPU-second with the CSV over
		// those without
		b.ReportMetric(plainCPU.Seconds()/cpu.Seconds(), "csv-share")
	} else {
		b.ReportMetric(float64(ms.TotalAlloc-allocated)/float64(decisions), "B/decision")
	}
	b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(decisions)/float64(b.N), "decisions/op")
	// the peer, in the same run: x/time/rate's AllowN over 10,000 keys, the
	// timer stopped (Elapsed is the replays' alone)
	perDecision := float64(cpu.Nanoseconds()) / float64(decisions)
	wall := b.Elapsed()
	b.StopTimer()
	peer := allowNPeer()
	b.ReportMetric(peer, "allown-ns")
	b.ReportMetric(perDecision/peer, "x-allown")
	// the same over wall time (the timer's: without the heap sampling, which
	// the CPU time holds): with GOMAXPROCS above 1 the lanes run on several
	// cores at once, so this is below x-allown; with -cpu 1 about equal.
	// decisions/s is this figure's speed
	b.ReportMetric(float64(wall.Nanoseconds())/float64(decisions)/peer, "x-allown-wall")
}

// replayStepped replays cfg a virtual second at a time, with the request CSV
// (to io.Discard) when withCSV, and returns its decisions. It samples the heap
// after every step and keeps the most in peakHeap; when timed, with the
// benchmark's timer stopped while it samples. An untimed replay (a peer run
// with the timer stopped) leaves the timer alone: restarting it there would
// count the peer's time as the benchmark's.
func replayStepped(b *testing.B, cfg *sim.Config, withCSV, timed bool, peakHeap *uint64) int64 {
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	if withCSV {
		w, err := present.NewRequestWriter(io.Discard, cfg)
		if err != nil {
			b.Fatal(err)
		}
		r.OnRows(w.Write)
	}
	var ms runtime.MemStats
	for t := time.Second; t <= cfg.Duration; t += time.Second {
		if err := r.AdvanceTo(t); err != nil {
			b.Fatal(err)
		}
		if timed {
			b.StopTimer()
		}
		runtime.ReadMemStats(&ms)
		*peakHeap = max(*peakHeap, ms.HeapAlloc)
		if timed {
			b.StartTimer()
		}
	}
	return r.Decisions()
}

// allowNPeer is the nanoseconds of CPU time one golang.org/x/time/rate AllowN
// takes over 10,000 keys in turn, one rate.Limiter per key in a map
// (BenchmarkDecide's peer), measured now: a replay's CPU time per decision is
// compared with it (x-allown) in the same run, on the same machine.
func allowNPeer() float64 {
	const keys, calls = 10_000, 2_000_000
	names := make([]string, keys)
	limiters := map[string]*rate.Limiter{}
	for i := range names {
		names[i] = fmt.Sprintf("user-%d", i)
	}
	origin := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cpu0 := cpuTime()
	for i := range calls {
		key := names[i%keys]
		lim, ok := limiters[key]
		if !ok {
			lim = rate.NewLimiter(1000, 100)
			limiters[key] = lim
		}
		lim.AllowN(origin.Add(time.Duration(i)*100*time.Microsecond), 1)
	}
	return float64((cpuTime() - cpu0).Nanoseconds()) / calls
}

// benchLanes are the lanes the engine benchmarks run: the seven textbook
// algorithms a scenario runs by default, and no limit. Product lanes added
// later are not in it, so a figure measured today compares with one measured
// before they were (the registry's Names grew from eight to sixteen).
func benchLanes() []algorithms.Name {
	return append(algorithms.DefaultLanes(), algorithms.UnlimitedName)
}

// cpuTime is the CPU time (user and system) the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkBurst replays a burst of 1,000,000 and of 10,000,000 requests at one
// instant through every lane (the seven algorithms and no limit), with and
// without the request CSV (formatted, to io.Discard), and reports the peak heap,
// sampled every millisecond while the run goes. With the CSV the lanes stream
// their rows through bounded batches (see stream.go), so the peak stays within a
// few MiB of the run without it, however many decisions fall in one tick; the
// no-limit lane, which admits the whole burst, keeps its admissions of one
// instant in one entry of the peak window (see peak.go).
func BenchmarkBurst(b *testing.B) {
	for _, count := range []int{1_000_000, 10_000_000} {
		for _, withCSV := range []bool{false, true} {
			name := fmt.Sprintf("requests=%d", count)
			if withCSV {
				name += "/with-csv"
			}
			b.Run(name, func(b *testing.B) {
				var decisions int64
				var peak uint64
				for i := 0; i < b.N; i++ {
					cfg := sim.BurstConfig(count, benchLanes()...)
					runtime.GC()
					stop := samplePeakHeap()
					r, err := sim.NewRun(cfg, sim.Memory)
					if err != nil {
						b.Fatal(err)
					}
					if withCSV {
						w, _ := present.NewRequestWriter(io.Discard, cfg)
						r.OnRows(w.Write)
					}
					if err := r.AdvanceTo(cfg.Duration); err != nil {
						b.Fatal(err)
					}
					peak = max(peak, stop())
					decisions += r.Decisions()
					r.Close()
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
				b.ReportMetric(float64(decisions)/b.Elapsed().Seconds(), "decisions/s")
			})
		}
	}
}

// samplePeakHeap samples the heap (live objects and those not yet swept) every
// millisecond until the returned function is called, which returns the most it
// saw, in bytes.
func samplePeakHeap() func() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	done := make(chan struct{})
	result := make(chan uint64)
	go func() {
		var peak uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				result <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(done); return <-result }
}

// BenchmarkStop measures how long a run takes to stop once its context is done,
// 100 ms into a burst of 10,000,000 requests at one instant through every lane
// (with the CSV), and into a retry storm (10,000 requests a second retried
// at once, up to 1,000 times): the time from the cancel to AdvanceTo's return,
// the mean and the most over the runs. The goal is well under 200 ms.
func BenchmarkStop(b *testing.B) {
	for _, tc := range []struct {
		name string
		cfg  func() *sim.Config
	}{
		{"burst-10M", func() *sim.Config { return sim.BurstConfig(10_000_000, benchLanes()...) }},
		{"retry-storm", func() *sim.Config { return sim.RetryStormConfig(benchLanes()...) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var total, most time.Duration
			for i := 0; i < b.N; i++ {
				cfg := tc.cfg()
				r, err := sim.NewRun(cfg, sim.Memory)
				if err != nil {
					b.Fatal(err)
				}
				w, _ := present.NewRequestWriter(io.Discard, cfg)
				r.OnRows(w.Write)
				ctx, cancelled := sim.StopAfter(100 * time.Millisecond)
				r.Bound(ctx, 0)
				if err := r.AdvanceTo(cfg.Duration); !errors.Is(err, context.Canceled) {
					b.Fatalf("AdvanceTo = %v, want it stopped", err)
				}
				took := time.Since(cancelled())
				total += took
				most = max(most, took)
				r.Close()
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-stop")
			b.ReportMetric(float64(most.Microseconds())/1000, "max-ms-to-stop")
		})
	}
}

// BenchmarkLaneMemory runs 10,000 token-bucket lanes on one key, 1,000
// requests each (10 s at 100 a second, tick 100 ms), and reports the heap the
// run holds once it is done, per lane: what a lane costs beyond its key's state
// (its clients, series, metrics, histograms, event queue, buffers). The goal is
// under 50 KB a lane.
func BenchmarkLaneMemory(b *testing.B) {
	const lanes = 10_000
	for i := 0; i < b.N; i++ {
		var cfgLanes []sim.LaneConfig
		for l := range lanes {
			cfgLanes = append(cfgLanes, sim.NewLane(fmt.Sprintf("tb-%d", l), algorithms.TokenBucketName))
		}
		cfg := sim.NewConfig(algorithms.Policy{Limit: 100, Period: time.Second, Burst: 100}, 10*time.Second, cfgLanes,
			sim.Client{Name: "c", Pattern: sim.Constant{Rate: 100}})
		cfg.Tick = 100 * time.Millisecond
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		r, err := sim.NewRun(cfg, sim.Memory)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.AdvanceTo(cfg.Duration); err != nil {
			b.Fatal(err)
		}
		if d := r.Decisions(); d != lanes*1000 {
			b.Fatalf("%d decisions, want %d", d, lanes*1000)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/lanes/1024, "KiB/lane")
		b.ReportMetric(float64(after.Sys)/(1<<20), "sys-MiB")
		runtime.KeepAlive(r)
		r.Close()
	}
}
