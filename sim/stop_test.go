package sim

import (
	"context"
	"errors"
	"math"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"ratelab/algorithms"
)

// burstConfig is count requests at 1 s against 100/s through the given lanes.
func burstConfig(count int, lanes ...algorithms.Name) *Config {
	var ls []LaneConfig
	for _, name := range lanes {
		ls = append(ls, lane(string(name), name))
	}
	return newConfig(algorithms.Policy{Limit: 100, Period: time.Second}, 2*time.Second, ls,
		Client{Name: "burst", Pattern: Bursts{[]Burst{{At: time.Second, Count: count}}}})
}

// retryStormConfig is 10,000 requests a second, each retried at once up to 1,000
// times, against 10/s: a storm of immediate retries.
func retryStormConfig(lanes ...algorithms.Name) *Config {
	var ls []LaneConfig
	for _, name := range lanes {
		ls = append(ls, lane(string(name), name))
	}
	return newConfig(algorithms.Policy{Limit: 10, Period: time.Second}, 60*time.Second, ls,
		Client{Name: "storm", Pattern: Constant{Rate: 10_000}, Retry: Retry{Policy: RetryImmediate, MaxAttempts: 1000, OnDeny: true}})
}

// stopAfter cancels a run's context after d, and says when it did.
func stopAfter(d time.Duration) (context.Context, func() time.Time) {
	ctx, cancel := context.WithCancel(context.Background())
	var at atomic.Pointer[time.Time]
	timer := time.AfterFunc(d, func() {
		now := time.Now()
		at.Store(&now)
		cancel()
	})
	return ctx, func() time.Time {
		timer.Stop()
		if t := at.Load(); t != nil {
			return *t
		}
		return time.Time{}
	}
}

// A run told to stop in the middle of one instant's burst, or of a retry storm,
// stops there, says where, and does not run on to the end. The old engine looked
// only between the caller's steps (a virtual second), so a burst of millions at one
// instant ran to its end first. How fast it stops is measured by BenchmarkStop;
// the bound here is only far below what running on would take.
func TestARunStopsWhenItsContextIsDone(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  *Config
		rows bool
	}{
		{"burst", burstConfig(3_000_000, "token-bucket", "fixed-window"), false},
		{"burst with rows", burstConfig(3_000_000, "token-bucket", "fixed-window"), true},
		{"one lane", burstConfig(3_000_000, "gcra"), false},
		{"retry storm", retryStormConfig("token-bucket", "sliding-log"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewRun(tc.cfg, Memory)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if tc.rows {
				r.OnRows(func([]Row) error { return nil })
			}
			ctx, cancelled := stopAfter(50 * time.Millisecond)
			r.Bound(ctx, 0)
			err = r.AdvanceTo(tc.cfg.Duration)
			returned := time.Now()
			var s *Stopped
			if !errors.As(err, &s) || !errors.Is(err, context.Canceled) {
				t.Fatalf("AdvanceTo = %v, want a *Stopped caused by context.Canceled", err)
			}
			if took := returned.Sub(cancelled()); took > 2*time.Second {
				t.Errorf("the run stopped %v after it was told to", took)
			}
			if s.At >= tc.cfg.Duration || r.Done() {
				t.Errorf("stopped at %v of %v, done %v: want a stop before the end", s.At, tc.cfg.Duration, r.Done())
			}
			for _, l := range r.Lanes {
				// a tick the lane did not finish has no sample
				if l.now < s.At || len(l.Series()) != int(l.now/tc.cfg.Tick) {
					t.Errorf("lane %s stopped at %v (the run at %v) with %d samples of %v", l.Config.Name, l.now, s.At, len(l.Series()), tc.cfg.Tick)
				}
			}
			if err := r.AdvanceTo(tc.cfg.Duration); !errors.As(err, &s) {
				t.Errorf("advancing a stopped run again = %v, want *Stopped", err)
			}
		})
	}
}

// A budget of events bounds the work of any run: over it, the run reports it.
func TestABudgetBoundsTheWork(t *testing.T) {
	cfg := retryStormConfig("token-bucket", "gcra")
	r, _ := NewRun(cfg, Memory)
	defer r.Close()
	r.Bound(context.Background(), 50_000)
	err := r.AdvanceTo(cfg.Duration)
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("AdvanceTo = %v, want ErrBudget", err)
	}
	for _, l := range r.Lanes {
		if work := l.handled + l.rec.m.Attempts; work > 50_000+2*checkEvery {
			t.Errorf("lane %s did %d work over a budget of 50000", l.Config.Name, work)
		}
	}
	// a budget the run fits in changes nothing
	small := burstConfig(300, "token-bucket")
	whole, rows := runRows(t, small)
	r, _ = NewRun(small, Memory)
	r.Bound(context.Background(), 1_000_000)
	var got []Row
	r.OnRows(func(rs []Row) error { got = append(got, rs...); return nil })
	if err := r.AdvanceTo(small.Duration); err != nil || !reflect.DeepEqual(r.Metrics()[0], whole[0]) || len(got) != 300 || len(rows) != 300 {
		t.Errorf("with a budget it fits: %v, %d rows, metrics %+v, want %+v", err, len(got), r.Metrics()[0], whole[0])
	}
}

// A sink that fails stops the run: AdvanceTo returns its error instead of deciding
// the rest, and no lane is left waiting on its stream.
func TestASinkThatFailsStopsTheRun(t *testing.T) {
	cfg := burstConfig(2_000_000, "token-bucket", "fixed-window", "gcra")
	r, _ := NewRun(cfg, Memory)
	defer r.Close()
	full := errors.New("no space left on device")
	calls := 0
	r.OnRows(func(rows []Row) error {
		calls++
		if calls == 3 {
			return full
		}
		return nil
	})
	if err := r.AdvanceTo(cfg.Duration); !errors.Is(err, full) {
		t.Fatalf("AdvanceTo = %v, want the sink's error", err)
	}
	var decided int64
	for _, m := range r.Metrics() {
		decided += m.Attempts
	}
	if decided >= 3*2_000_000 {
		t.Errorf("the lanes decided all %d requests after the sink failed", decided)
	}
}

// The lanes cannot run ahead of a slow sink by more than their streams hold: a
// burst of a million decisions at one instant is never held in memory at once.
// While the sink is stuck on its first batch, each lane sends at most its
// stream's worth of rows (streamDepth batches waiting, the one the merge holds,
// the one it took before), then waits with one more in hand.
func TestLanesWaitForASlowSink(t *testing.T) {
	cfg := burstConfig(1_000_000, "token-bucket", "sliding-log")
	r, _ := NewRun(cfg, Memory)
	defer r.Close()
	release := make(chan struct{})
	decidedWhileStuck := make(chan int64, 1)
	first := true
	r.OnRows(func(rows []Row) error {
		if len(rows) > rowBatch {
			t.Errorf("the sink got %d rows at once; at most %d", len(rows), rowBatch)
		}
		if first {
			first = false
			<-release
		}
		return nil
	})
	go func() {
		// let the lanes run as far as they can while the sink is stuck: until
		// every lane waits on its full stream (or, a broken stream that never
		// fills, a minute: -1)
		for start := time.Now(); ; {
			if time.Since(start) > time.Minute {
				decidedWhileStuck <- -1
				close(release)
				return
			}
			time.Sleep(time.Millisecond)
			full := true
			for _, s := range r.streams {
				full = full && s.waiting.Load()
			}
			if full {
				var n int64
				for _, s := range r.streams {
					n += s.sent.Load()
				}
				decidedWhileStuck <- n
				close(release)
				return
			}
		}
	}()
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	stuck := <-decidedWhileStuck
	most := int64(len(cfg.Lanes) * (streamDepth + 3) * rowBatch)
	if stuck < 0 {
		t.Errorf("the lanes never waited on a full stream while the sink was stuck")
	} else if stuck > most {
		t.Errorf("while the sink was stuck the lanes sent %d rows; their streams hold at most %d", stuck, most)
	}
	if got := r.Metrics()[0].Attempts; got != 1_000_000 {
		t.Errorf("after the sink went on, %d decisions; want all 1000000", got)
	}
}

// Any finite positive rate ends, and no generator makes a time before its start:
// a rate so small that the second request would come 1e300 s later, a denormal
// rate, a ramp to not-a-number. The old generators converted such times to
// time.Duration, which overflowed into the past, and looped for ever.
func TestTinyRatesEnd(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pattern Pattern
		most    int
	}{
		{"constant 1e-300/s", Constant{Rate: 1e-300}, 1},
		{"constant denormal", Constant{Rate: 5e-324}, 1},
		{"constant 1e-10/s", Constant{Rate: 1e-10}, 1},
		{"poisson 1e-300/s", Poisson{Rate: 1e-300}, 0},
		{"poisson denormal", Poisson{Rate: 5e-324}, 0},
		{"ramp to NaN", Ramp{From: 10, To: math.NaN()}, 0},
		{"ramp from NaN", Ramp{From: math.NaN(), To: 10}, 0},
		{"ramp 1e-300 to 0", Ramp{From: 1e-300, To: 0}, 0},
	} {
		done := make(chan []arrival)
		go func() { done <- drain(t, Client{Pattern: tc.pattern, Start: time.Second}, 1) }()
		select {
		case got := <-done:
			if len(got) > tc.most {
				t.Errorf("%s: %d arrivals, want at most %d", tc.name, len(got), tc.most)
			}
			for _, a := range got {
				if a.at < time.Second || a.at >= 10*time.Second {
					t.Errorf("%s: an arrival at %v, outside the client's [1s, 10s)", tc.name, a.at)
				}
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the generator did not end in 10 s", tc.name)
		}
	}
}

// A wait that does not fit a time.Duration after now (a limiter's retry-after
// near Forever) is never: it does not wrap around into the past.
func TestLaterSaturates(t *testing.T) {
	if got := later(time.Hour, algorithms.Forever-time.Second); got != never {
		t.Errorf("later(1h, Forever-1s) = %v, want never", got)
	}
	if got := later(time.Second, time.Second); got != 2*time.Second {
		t.Errorf("later(1s, 1s) = %v", got)
	}
}
