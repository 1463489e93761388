package sim_test

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/present"
	"ratelab/sim"
)

// runToEnd runs cfg and returns its metrics, its request CSV and its series CSV.
// runWithRows starts a run of cfg whose request rows go, as CSV, to the buffer
// (flush the writer to see them); it is closed when the test ends.
func runWithRows(t *testing.T, cfg *sim.Config) (*sim.Run, *present.RequestWriter, *bytes.Buffer) {
	t.Helper()
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	var rows bytes.Buffer
	w, err := present.NewRequestWriter(&rows, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.OnRows(w.Write)
	return r, w, &rows
}

func runToEnd(t *testing.T, cfg *sim.Config) ([]sim.Metrics, string, string) {
	t.Helper()
	r, w, rows := runWithRows(t, cfg)
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var series bytes.Buffer
	if err := present.WriteSeries(&series, r); err != nil {
		t.Fatal(err)
	}
	return r.Metrics(), rows.String(), series.String()
}

func TestNodeClock(t *testing.T) {
	for _, tc := range []struct {
		node sim.Node
		at   time.Duration
		want time.Duration
	}{
		{sim.Node{Offset: -300 * time.Millisecond}, 0, -300 * time.Millisecond},
		{sim.Node{Offset: 250 * time.Millisecond, DriftPPM: 2000}, 10 * time.Second, 10*time.Second + 250*time.Millisecond + 20*time.Millisecond},
		{sim.Node{DriftPPM: -0.5}, time.Second, time.Second - time.Microsecond}, // −0.5 µs rounds down
		{sim.Node{Offset: -1500 * time.Nanosecond}, 0, -2 * time.Microsecond},
	} {
		if got := tc.node.Clock(tc.at); got != tc.want {
			t.Errorf("%+v.Clock(%v) = %v, want %v", tc.node, tc.at, got, tc.want)
		}
	}
}

// The boundary burst through the whole engine: rows, series and metrics agree.
func TestBoundaryBurstThroughTheEngine(t *testing.T) {
	cfg := sim.NewConfig(algorithms.Policy{Limit: 100, Period: time.Second}, 3*time.Second,
		[]sim.LaneConfig{sim.NewLane("fixed-window", "fixed-window"), sim.NewLane("token-bucket", "token-bucket")},
		sim.Client{Name: "burst", Pattern: sim.Bursts{[]sim.Burst{{At: 999 * time.Millisecond, Count: 140}, {At: 1001 * time.Millisecond, Count: 180}}}})
	ms, rows, series := runToEnd(t, cfg)
	fw, tb := ms[0], ms[1]
	if fw.Accepted != 200 || fw.PeakWindowRatio != 2 || fw.PeakLast-fw.PeakFirst != 2*time.Millisecond || fw.PeakFirst != 999*time.Millisecond {
		t.Errorf("fixed window: accepted %d, peak %.2f× from %v to %v; want 200, 2.00× from 999ms to 1.001s", fw.Accepted, fw.PeakWindowRatio, fw.PeakFirst, fw.PeakLast)
	}
	if tb.Accepted != 100 || tb.PeakWindowRatio != 1 || tb.OverGrant != 0 {
		t.Errorf("token bucket: accepted %d, peak %.2f, over-grant %g; want 100, 1.00, 0", tb.Accepted, tb.PeakWindowRatio, tb.OverGrant)
	}
	if want := "time_ms,lane,algorithm,backend,client,node,key,request_id,attempt,cost,allowed,remaining,retry_after_ms,decided_at_ms,admitted_at_ms,queue_delay_ms,outcome,latency_ms,wasted,rule,also_refusing\n"; !strings.HasPrefix(rows, want) {
		t.Fatalf("request CSV starts %q, want the header %q", rows[:80], want)
	}
	lines := strings.Split(strings.TrimSpace(rows), "\n")
	if len(lines) != 1+2*320 {
		t.Fatalf("request CSV has %d rows, want 640 decisions and a header", len(lines)-1)
	}
	if lines[1] != "999.000,fixed-window,fixed-window,memory,burst,app,burst,burst-1,1,1,true,99,0.000,999.000000,999.000000,0.000000,served,0.000000,false,," {
		t.Errorf("first row = %q", lines[1])
	}
	if want := "999.000,fixed-window,fixed-window,memory,burst,app,burst,burst-101,1,1,false,0,1.000,999.000000,,,gave_up,0.000000,false,fixed-window,0"; lines[101] != want {
		t.Errorf("row 101 = %q, want %q (denied, retry when the window turns at 1.000 s)", lines[101], want)
	}
	// rows are ordered by time, then lane: the fixed window's 140 at 999 ms, the
	// token bucket's 140, then the fixed window's 180 at 1.001 s
	if !strings.HasPrefix(lines[140], "999.000,fixed-window") || !strings.HasPrefix(lines[141], "999.000,token-bucket") || !strings.HasPrefix(lines[281], "1001.000,fixed-window") {
		t.Errorf("rows 140, 141 and 281 are %q, %q and %q", lines[140], lines[141], lines[281])
	}
	// the tick ending 1.000 s holds the 999 ms decisions, and the window has just
	// turned (level 0); the tick ending 1.010 s holds 1.001 s's, 100 in the window
	if !strings.Contains(series, "\n1000.000,fixed-window,0,100,40,140,140,0,0,0\n") || !strings.Contains(series, "\n1010.000,fixed-window,100,100,80,180,180,0,0,0\n") {
		t.Errorf("series lacks the ticks ending 1.000 s (level 0, 100 accepted, 40 denied) and 1.010 s (100, 100, 80)")
	}
}

func TestSameConfigGivesIdenticalOutput(t *testing.T) {
	build := func() *sim.Config {
		cfg := sim.NewConfig(algorithms.Policy{Limit: 20, Period: time.Second}, 5*time.Second,
			[]sim.LaneConfig{sim.NewLane("token-bucket", "token-bucket"), sim.NewLane("sliding-log", "sliding-log")},
			sim.Client{Name: "p", Pattern: sim.Poisson{Rate: 40}, Latency: 5 * time.Millisecond,
				Retry: sim.Retry{Policy: sim.RetryExponential, Delay: 50 * time.Millisecond, Cap: time.Second, Jitter: sim.JitterFull, MaxAttempts: 4, OnDeny: true}})
		cfg.Backend = &sim.Backend{Concurrency: 2, ServiceTime: 40 * time.Millisecond, Queue: 5, Timeout: 100 * time.Millisecond}
		return cfg
	}
	m1, rows1, series1 := runToEnd(t, build())
	m2, rows2, series2 := runToEnd(t, build())
	if rows1 != rows2 || series1 != series2 {
		t.Fatal("two runs of the same configuration wrote different CSV")
	}
	for i := range m1 {
		if !reflect.DeepEqual(m1[i], m2[i]) {
			t.Fatalf("two runs gave different metrics:\n%+v\n%+v", m1[i], m2[i])
		}
	}
	other := build()
	other.Seed = 2
	if _, rows3, _ := runToEnd(t, other); rows3 == rows1 {
		t.Error("a different seed gave the same run")
	}
}

// Advancing in many small steps (the UI's frames) gives the same run as one step.
func TestAdvanceInStepsMatchesOneStep(t *testing.T) {
	cfg := sim.NewConfig(algorithms.Policy{Limit: 10, Period: time.Second}, 2*time.Second,
		[]sim.LaneConfig{sim.NewLane("gcra", "gcra")},
		sim.Client{Name: "p", Pattern: sim.Poisson{Rate: 30}, Retry: sim.Retry{Policy: sim.RetryHonour, MaxAttempts: 3, OnDeny: true}})
	whole, _, series := runToEnd(t, cfg)
	r, _ := sim.NewRun(cfg, sim.Memory)
	for at := time.Duration(0); at <= cfg.Duration; at += 7 * time.Millisecond {
		r.AdvanceTo(at)
	}
	r.AdvanceTo(cfg.Duration)
	var stepped bytes.Buffer
	present.WriteSeries(&stepped, r)
	if !reflect.DeepEqual(r.Metrics()[0], whole[0]) || stepped.String() != series {
		t.Errorf("7 ms steps gave %+v, one step %+v", r.Metrics()[0], whole[0])
	}
}

func TestRetriesAmplifyAttempts(t *testing.T) {
	cfg := sim.NewConfig(algorithms.Policy{Limit: 1, Period: time.Second}, 10*time.Second,
		[]sim.LaneConfig{sim.NewLane("fixed-window", "fixed-window")},
		sim.Client{Name: "c", Pattern: sim.Bursts{[]sim.Burst{{At: 0, Count: 3}}}, Latency: 10 * time.Millisecond,
			Retry: sim.Retry{Policy: sim.RetryFixed, Delay: 90 * time.Millisecond, MaxAttempts: 5, OnDeny: true}})
	m := runToEnd1(t, cfg)
	// request 1 at 0 s; 2 and 3 denied, retried every 100 ms within the window,
	// each giving up after 5 attempts: 1 + 5 + 5 attempts, 1 accepted
	if m.Attempts != 11 || m.Accepted != 1 || m.GaveUp != 2 || m.RetryAmplification != 11.0/3 {
		t.Errorf("attempts %d, accepted %d, gave up %d, amplification %.2f; want 11, 1, 2, 3.67", m.Attempts, m.Accepted, m.GaveUp, m.RetryAmplification)
	}
}

// near says got is within the histogram's precision (1/128) of want.
func near(got, want time.Duration) bool { return math.Abs(float64(got-want)) <= float64(want)/128 }

func runToEnd1(t *testing.T, cfg *sim.Config) sim.Metrics {
	t.Helper()
	ms, _, _ := runToEnd(t, cfg)
	return ms[0]
}

func TestBackendQueueTimeoutAndWastedWork(t *testing.T) {
	unlimited := algorithms.Policy{Limit: 1_000_000, Period: time.Second}
	cfg := sim.NewConfig(unlimited, time.Second, []sim.LaneConfig{sim.NewLane("token-bucket", "token-bucket")},
		sim.Client{Name: "c", Pattern: sim.Bursts{[]sim.Burst{{At: 0, Count: 10}}}})
	cfg.Backend = &sim.Backend{Concurrency: 2, ServiceTime: 100 * time.Millisecond, Queue: 5, Timeout: 250 * time.Millisecond}
	m := runToEnd1(t, cfg)
	// At 0: 2 go into service, 5 queue, 3 are rejected. Pairs finish at 100 ms and
	// 200 ms (4 successes). At 250 ms every client still waiting gives up: the 2
	// in service since 200 ms and the 1 still queued (3 errors). The backend does
	// not know: it finishes the pair at 300 ms and serves the last until 400 ms,
	// all for nobody (3 wasted).
	if m.Succeeded != 4 || m.Errors != 6 || m.Wasted != 3 {
		t.Errorf("succeeded %d, errors %d, wasted %d; want 4, 6 (3 rejected, 3 timed out), 3", m.Succeeded, m.Errors, m.Wasted)
	}
	if v := present.Verdict(cfg, m); !strings.Contains(v, "the backend failed 6 requests (busy 35% of the run, 3 served for clients that had left)") {
		t.Errorf("the verdict does not show the wasted work: %s", v)
	}
	// busy: 2 servers for 300 ms, then 1 for 100 ms, over 1 s of 2 servers
	if want := (2*0.3 + 0.1) / 2; math.Abs(m.BackendUtilization-want) > 1e-9 {
		t.Errorf("utilization %.4f, want %.4f", m.BackendUtilization, want)
	}
	if !near(m.LatencyP50, 100*time.Millisecond) || !near(m.LatencyP99, 200*time.Millisecond) {
		t.Errorf("latency p50 %v, p99 %v; want 100ms and 200ms (to the histogram's 1/128)", m.LatencyP50, m.LatencyP99)
	}
}

// 64 closed-loop workers on one key with a 1 ms round trip: atomic decisions hold
// the bucket's bound, blind write-back over-grants, WATCH holds it with conflicts.
func TestNonAtomicStrategies(t *testing.T) {
	p := algorithms.Policy{Limit: 10, Period: time.Second, Burst: 10}
	lanes := []sim.LaneConfig{sim.NewLane("atomic", "token-bucket"), sim.NewLane("multi", "token-bucket"), sim.NewLane("watch", "token-bucket"), sim.NewLane("gcra-multi", "gcra")}
	lanes[1].Strategy, lanes[2].Strategy, lanes[3].Strategy = algorithms.Multi, algorithms.Watch, algorithms.Multi
	for i := range lanes {
		lanes[i].RoundTrip = time.Millisecond
	}
	cfg := sim.NewConfig(p, 3*time.Second, lanes,
		sim.Client{Name: "w", Pattern: sim.ClosedLoop{Concurrency: 64, Spread: 2 * time.Millisecond}, Latency: time.Millisecond})
	ms, _, _ := runToEnd(t, cfg)
	if ms[0].Accepted > 40 || ms[0].Accepted < 39 || ms[0].OverGrant != 0 {
		t.Errorf("atomic accepted %d (over-grant %.3f); want 39 or 40 and none", ms[0].Accepted, ms[0].OverGrant)
	}
	if ms[1].Accepted < 400 || ms[1].OverGrant < 5 {
		t.Errorf("multi accepted %d (over-grant %.1f×); want hundreds: every worker reading before the last write spends the same token", ms[1].Accepted, ms[1].OverGrant)
	}
	if ms[2].Accepted > 40 || ms[2].Conflicts == 0 || ms[2].StoreCalls <= 2*ms[2].Attempts {
		t.Errorf("watch accepted %d with %d conflicts and %d store calls for %d attempts; want <= 40, conflicts, retried commits", ms[2].Accepted, ms[2].Conflicts, ms[2].StoreCalls, ms[2].Attempts)
	}
	if ms[3].Accepted != ms[1].Accepted {
		t.Errorf("gcra multi accepted %d, token bucket multi %d; the same race should give the same result", ms[3].Accepted, ms[1].Accepted)
	}
}

// contractCells is a request CSV line's first 13 cells, the contract's (no cell
// in these tests holds a comma).
func contractCells(line string) string {
	cells := strings.SplitN(line, ",", 14)
	return strings.Join(cells[:min(13, len(cells))], ",")
}
