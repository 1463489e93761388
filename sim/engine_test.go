package sim

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unsafe"

	"ratelab/algorithms"
)

// newConfig is a minimal configuration: one tier, one node, the given lanes and
// clients, clients' keys named after them.
func newConfig(p algorithms.Policy, duration time.Duration, lanes []LaneConfig, clients ...Client) *Config {
	cfg := &Config{Name: "test", Duration: duration, Tick: 10 * time.Millisecond, Seed: 1,
		Tiers: []Tier{{Name: "default", Policy: p.WithDefaults()}}, Nodes: []Node{{Name: "app"}}, Lanes: lanes}
	for _, c := range clients {
		if c.Stop == 0 {
			c.Stop = duration
		}
		if c.Deliveries == 0 {
			c.Deliveries = 1
		}
		if c.Retry.MaxAttempts == 0 {
			c.Retry.MaxAttempts = 1
		}
		if c.Cost.Fixed == 0 && c.Cost.Dist == CostFixed {
			c.Cost.Fixed = 1
		}
		if len(c.Keys) == 0 {
			cfg.Keys = append(cfg.Keys, Key{Name: c.Name})
			c.Keys = []int{len(cfg.Keys) - 1}
		}
		cfg.Clients = append(cfg.Clients, c)
	}
	return cfg
}

func lane(name, algorithm string) LaneConfig {
	return LaneConfig{Name: name, Algorithm: algorithm, Backend: "memory", WatchRetries: 20,
		Options: algorithms.Options{MonotonicTimestamp: true}}
}

// runToEnd runs cfg and returns its metrics, its request CSV and its series CSV.
func runToEnd(t *testing.T, cfg *Config) ([]Metrics, string, string) {
	t.Helper()
	r, err := NewRun(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var rows bytes.Buffer
	w, err := NewRequestWriter(&rows, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.OnRows(w.Write)
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var series bytes.Buffer
	if err := WriteSeries(&series, r); err != nil {
		t.Fatal(err)
	}
	return r.Metrics(), rows.String(), series.String()
}

func TestEventsRunInTimeThenScheduleOrder(t *testing.T) {
	var h eventHeap
	for i, at := range []time.Duration{5, 1, 5, 3, 1, 5} {
		h.push(event{at: at, seq: uint64(i), ref: int32(i)})
	}
	var got []int32
	for len(h) > 0 {
		got = append(got, h.pop().ref)
	}
	want := []int32{1, 4, 3, 0, 2, 5}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events popped in order %v, want %v (time, then scheduling order)", got, want)
		}
	}
}

func TestNodeClock(t *testing.T) {
	for _, tc := range []struct {
		node Node
		at   time.Duration
		want time.Duration
	}{
		{Node{Offset: -300 * time.Millisecond}, 0, -300 * time.Millisecond},
		{Node{Offset: 250 * time.Millisecond, DriftPPM: 2000}, 10 * time.Second, 10*time.Second + 250*time.Millisecond + 20*time.Millisecond},
		{Node{DriftPPM: -0.5}, time.Second, time.Second - time.Microsecond}, // −0.5 µs rounds down
		{Node{Offset: -1500 * time.Nanosecond}, 0, -2 * time.Microsecond},
	} {
		if got := tc.node.Clock(tc.at); got != tc.want {
			t.Errorf("%+v.Clock(%v) = %v, want %v", tc.node, tc.at, got, tc.want)
		}
	}
}

// drain collects every arrival of a client's generator.
func drain(t *testing.T, c Client, seed uint64) []arrival {
	t.Helper()
	if c.Stop == 0 {
		c.Stop = 10 * time.Second
	}
	c.Keys = []int{0}
	gen, err := newArrivals(&c, newStream(seed, streamTraffic, 0))
	if err != nil {
		t.Fatal(err)
	}
	var out []arrival
	for a, ok := gen.next(); ok; a, ok = gen.next() {
		out = append(out, a)
	}
	return out
}

func TestTrafficPatterns(t *testing.T) {
	constant := drain(t, Client{Pattern: Constant{Rate: 3}, Start: time.Second, Stop: 2 * time.Second}, 1)
	if len(constant) != 3 || constant[0].at != time.Second || constant[1].at != time.Second+333333*time.Microsecond || constant[2].at != time.Second+666666*time.Microsecond {
		t.Errorf("constant 3/s over [1s, 2s) = %v, want 1s, 1.333333s, 1.666666s", constant)
	}

	bursts := drain(t, Client{Pattern: Bursts{[]Burst{{At: 999 * time.Millisecond, Count: 3}, {At: 2 * time.Second, Count: 4, Spread: 100 * time.Millisecond}}}}, 1)
	var at []time.Duration
	for _, a := range bursts {
		at = append(at, a.at)
	}
	wantBursts := []time.Duration{999 * time.Millisecond, 999 * time.Millisecond, 999 * time.Millisecond, 2 * time.Second, 2025 * time.Millisecond, 2050 * time.Millisecond, 2075 * time.Millisecond}
	if len(at) != len(wantBursts) {
		t.Fatalf("bursts = %v, want %v", at, wantBursts)
	}
	for i := range at {
		if at[i] != wantBursts[i] {
			t.Errorf("burst arrival %d at %v, want %v", i, at[i], wantBursts[i])
		}
	}

	// a ramp from 0 to 100/s over [0, 10 s) sends N(10) = (0 + 100) / 2 × 10 = 500
	// but the 500th falls at exactly 10 s, outside the half-open span: 499
	ramp := drain(t, Client{Pattern: Ramp{From: 0, To: 100}}, 1)
	if len(ramp) != 499 {
		t.Errorf("ramp 0→100/s over 10s sent %d, want 499", len(ramp))
	}
	late := 0
	for _, a := range ramp {
		if a.at >= 5*time.Second {
			late++
		}
	}
	if late != 375 { // the 125th (N(5) = 125) at exactly 5 s through the 499th
		t.Errorf("ramp sent %d in its second half, want 375", late)
	}

	poisson := drain(t, Client{Pattern: Poisson{Rate: 1000}}, 7)
	if n := len(poisson); math.Abs(float64(n)-10000) > 400 { // 4 standard deviations
		t.Errorf("poisson 1000/s over 10s sent %d, want 10000 ± 400", n)
	}
	for i := 1; i < len(poisson); i++ {
		if poisson[i].at < poisson[i-1].at || poisson[i].at%time.Microsecond != 0 {
			t.Fatalf("poisson arrival %d at %v after %v: want non-decreasing whole microseconds", i, poisson[i].at, poisson[i-1].at)
		}
	}
	if again := drain(t, Client{Pattern: Poisson{Rate: 1000}}, 7); len(again) != len(poisson) || again[100] != poisson[100] {
		t.Error("the same seed gave different poisson arrivals")
	}
}

func TestZipfKeysFavourTheFirst(t *testing.T) {
	r := newStream(1, streamTraffic, 0)
	picker := newKeyPicker(r, make([]int, 100), 1.2)
	counts := make([]int, 100)
	for i := 0; i < 100000; i++ {
		counts[picker.pick(r)]++
	}
	if counts[0] < 5*counts[10] || counts[10] < counts[90] {
		t.Errorf("zipf counts: first %d, 11th %d, 91st %d; want steeply falling", counts[0], counts[10], counts[90])
	}
}

func TestRetryWait(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	exp := Retry{Policy: RetryExponential, Delay: 100 * time.Millisecond, Cap: time.Second, MaxAttempts: 6, OnDeny: true, OnError: true}
	for attempt, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second} {
		if got, ok := exp.wait(attempt, true, 0, rng); !ok || got != want {
			t.Errorf("exponential wait after attempt %d = %v, %v; want %v", attempt, got, ok, want)
		}
	}
	if _, ok := exp.wait(6, true, 0, rng); ok {
		t.Error("retried after the sixth of 6 attempts")
	}
	full := exp
	full.Jitter = JitterFull
	equal := exp
	equal.Jitter = JitterEqual
	for i := 0; i < 1000; i++ {
		if w, _ := full.wait(3, true, 0, rng); w < 0 || w > 400*time.Millisecond {
			t.Fatalf("full jitter wait %v outside [0, 400ms]", w)
		}
		if w, _ := equal.wait(3, true, 0, rng); w < 200*time.Millisecond || w > 400*time.Millisecond {
			t.Fatalf("equal jitter wait %v outside [200ms, 400ms]", w)
		}
	}
	honour := Retry{Policy: RetryHonour, Delay: time.Second, MaxAttempts: 3, OnDeny: true, OnError: true}
	if w, ok := honour.wait(1, true, 1234*time.Microsecond, rng); !ok || w != 1234*time.Microsecond {
		t.Errorf("honouring Retry-After 1.234ms waited %v, %v", w, ok)
	}
	if w, _ := honour.wait(1, false, 0, rng); w != time.Second {
		t.Errorf("after a backend error (no Retry-After) waited %v, want the delay 1s", w)
	}
	if _, ok := honour.wait(1, true, algorithms.Forever, rng); ok {
		t.Error("retried a request that can never be accepted")
	}
	denyOnly := Retry{Policy: RetryImmediate, MaxAttempts: 3, OnDeny: true}
	if _, ok := denyOnly.wait(1, false, 0, rng); ok {
		t.Error("retried a backend error with on = [\"deny\"]")
	}
}

// The boundary burst through the whole engine: rows, series and metrics agree.
func TestBoundaryBurstThroughTheEngine(t *testing.T) {
	cfg := newConfig(algorithms.Policy{Limit: 100, Period: time.Second}, 3*time.Second,
		[]LaneConfig{lane("fixed-window", "fixed-window"), lane("token-bucket", "token-bucket")},
		Client{Name: "burst", Pattern: Bursts{[]Burst{{At: 999 * time.Millisecond, Count: 140}, {At: 1001 * time.Millisecond, Count: 180}}}})
	ms, rows, series := runToEnd(t, cfg)
	fw, tb := ms[0], ms[1]
	if fw.Accepted != 200 || fw.PeakWindowRatio != 2 || fw.PeakLast-fw.PeakFirst != 2*time.Millisecond || fw.PeakFirst != 999*time.Millisecond {
		t.Errorf("fixed window: accepted %d, peak %.2f× from %v to %v; want 200, 2.00× from 999ms to 1.001s", fw.Accepted, fw.PeakWindowRatio, fw.PeakFirst, fw.PeakLast)
	}
	if tb.Accepted != 100 || tb.PeakWindowRatio != 1 || tb.OverGrant != 0 {
		t.Errorf("token bucket: accepted %d, peak %.2f, over-grant %g; want 100, 1.00, 0", tb.Accepted, tb.PeakWindowRatio, tb.OverGrant)
	}
	if want := "time_ms,lane,algorithm,backend,client,node,key,request_id,attempt,cost,allowed,remaining,retry_after_ms\n"; !strings.HasPrefix(rows, want) {
		t.Fatalf("request CSV starts %q, want the header %q", rows[:80], want)
	}
	lines := strings.Split(strings.TrimSpace(rows), "\n")
	if len(lines) != 1+2*320 {
		t.Fatalf("request CSV has %d rows, want 640 decisions and a header", len(lines)-1)
	}
	if lines[1] != "999.000,fixed-window,fixed-window,memory,burst,app,burst,burst-1,1,1,true,99,0.000" {
		t.Errorf("first row = %q", lines[1])
	}
	if want := "999.000,fixed-window,fixed-window,memory,burst,app,burst,burst-101,1,1,false,0,1.000"; lines[101] != want {
		t.Errorf("row 101 = %q, want %q (denied, retry when the window turns at 1.000 s)", lines[101], want)
	}
	// rows are ordered by time, then lane: the fixed window's 140 at 999 ms, the
	// token bucket's 140, then the fixed window's 180 at 1.001 s
	if !strings.HasPrefix(lines[140], "999.000,fixed-window") || !strings.HasPrefix(lines[141], "999.000,token-bucket") || !strings.HasPrefix(lines[281], "1001.000,fixed-window") {
		t.Errorf("rows 140, 141 and 281 are %q, %q and %q", lines[140], lines[141], lines[281])
	}
	// the tick ending 1.000 s holds the 999 ms decisions, and the window has just
	// turned (level 0); the tick ending 1.010 s holds 1.001 s's, 100 in the window
	if !strings.Contains(series, "\n1000.000,fixed-window,0,100,40\n") || !strings.Contains(series, "\n1010.000,fixed-window,100,100,80\n") {
		t.Errorf("series lacks the ticks ending 1.000 s (level 0, 100 accepted, 40 denied) and 1.010 s (100, 100, 80)")
	}
}

func TestSameConfigGivesIdenticalOutput(t *testing.T) {
	build := func() *Config {
		cfg := newConfig(algorithms.Policy{Limit: 20, Period: time.Second}, 5*time.Second,
			[]LaneConfig{lane("token-bucket", "token-bucket"), lane("sliding-log", "sliding-log")},
			Client{Name: "p", Pattern: Poisson{Rate: 40}, Latency: 5 * time.Millisecond,
				Retry: Retry{Policy: RetryExponential, Delay: 50 * time.Millisecond, Cap: time.Second, Jitter: JitterFull, MaxAttempts: 4, OnDeny: true}})
		cfg.Backend = &Backend{Concurrency: 2, ServiceTime: 40 * time.Millisecond, Queue: 5, Timeout: 100 * time.Millisecond}
		return cfg
	}
	m1, rows1, series1 := runToEnd(t, build())
	m2, rows2, series2 := runToEnd(t, build())
	if rows1 != rows2 || series1 != series2 {
		t.Fatal("two runs of the same configuration wrote different CSV")
	}
	for i := range m1 {
		if m1[i] != m2[i] {
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
	cfg := newConfig(algorithms.Policy{Limit: 10, Period: time.Second}, 2*time.Second,
		[]LaneConfig{lane("gcra", "gcra")},
		Client{Name: "p", Pattern: Poisson{Rate: 30}, Retry: Retry{Policy: RetryHonour, MaxAttempts: 3, OnDeny: true}})
	whole, _, series := runToEnd(t, cfg)
	r, _ := NewRun(cfg)
	for at := time.Duration(0); at <= cfg.Duration; at += 7 * time.Millisecond {
		r.AdvanceTo(at)
	}
	r.AdvanceTo(cfg.Duration)
	var stepped bytes.Buffer
	WriteSeries(&stepped, r)
	if r.Metrics()[0] != whole[0] || stepped.String() != series {
		t.Errorf("7 ms steps gave %+v, one step %+v", r.Metrics()[0], whole[0])
	}
}

func TestRetriesAmplifyAttempts(t *testing.T) {
	cfg := newConfig(algorithms.Policy{Limit: 1, Period: time.Second}, 10*time.Second,
		[]LaneConfig{lane("fixed-window", "fixed-window")},
		Client{Name: "c", Pattern: Bursts{[]Burst{{At: 0, Count: 3}}}, Latency: 10 * time.Millisecond,
			Retry: Retry{Policy: RetryFixed, Delay: 90 * time.Millisecond, MaxAttempts: 5, OnDeny: true}})
	m := runToEnd1(t, cfg)
	// request 1 at 0 s; 2 and 3 denied, retried every 100 ms within the window,
	// each giving up after 5 attempts: 1 + 5 + 5 attempts, 1 accepted
	if m.Attempts != 11 || m.Accepted != 1 || m.GaveUp != 2 || m.RetryAmplification != 11.0/3 {
		t.Errorf("attempts %d, accepted %d, gave up %d, amplification %.2f; want 11, 1, 2, 3.67", m.Attempts, m.Accepted, m.GaveUp, m.RetryAmplification)
	}
}

// near says got is within the histogram's precision (1/128) of want.
func near(got, want time.Duration) bool { return math.Abs(float64(got-want)) <= float64(want)/128 }

func runToEnd1(t *testing.T, cfg *Config) Metrics {
	t.Helper()
	ms, _, _ := runToEnd(t, cfg)
	return ms[0]
}

func TestBackendQueueTimeoutAndWastedWork(t *testing.T) {
	unlimited := algorithms.Policy{Limit: 1_000_000, Period: time.Second}
	cfg := newConfig(unlimited, time.Second, []LaneConfig{lane("token-bucket", "token-bucket")},
		Client{Name: "c", Pattern: Bursts{[]Burst{{At: 0, Count: 10}}}})
	cfg.Backend = &Backend{Concurrency: 2, ServiceTime: 100 * time.Millisecond, Queue: 5, Timeout: 250 * time.Millisecond}
	m := runToEnd1(t, cfg)
	// At 0: 2 go into service, 5 queue, 3 are rejected. Pairs finish at 100 ms and
	// 200 ms (4 successes). At 250 ms every client still waiting gives up: the 2
	// in service since 200 ms and the 1 still queued (3 errors). The backend does
	// not know: it finishes the pair at 300 ms and serves the last until 400 ms,
	// all for nobody (3 wasted).
	if m.Succeeded != 4 || m.Errors != 6 || m.Wasted != 3 {
		t.Errorf("succeeded %d, errors %d, wasted %d; want 4, 6 (3 rejected, 3 timed out), 3", m.Succeeded, m.Errors, m.Wasted)
	}
	if v := Verdict(cfg, m); !strings.Contains(v, "the backend failed 6 requests (35% busy, 3 served for clients that had left)") {
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
	lanes := []LaneConfig{lane("atomic", "token-bucket"), lane("multi", "token-bucket"), lane("watch", "token-bucket"), lane("gcra-multi", "gcra")}
	lanes[1].Strategy, lanes[2].Strategy, lanes[3].Strategy = Multi, Watch, Multi
	for i := range lanes {
		lanes[i].RoundTrip = time.Millisecond
	}
	cfg := newConfig(p, 3*time.Second, lanes,
		Client{Name: "w", Pattern: ClosedLoop{Concurrency: 64, Spread: 2 * time.Millisecond}, Latency: time.Millisecond})
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

func TestReplayOfATrace(t *testing.T) {
	csv := "time_ms,key,cost\n0,a,1\n0.5,b,2\n1000,a,1\n1000.25,a,3\n"
	keys := map[string]int{"a": 0, "b": 1}
	trace := Trace{KeyIndex: keys, Rows: 4, MaxCost: 3, Open: func() (TraceReader, error) {
		return NewTraceReader("t.csv", nopCloser{strings.NewReader(csv)})
	}}
	cfg := newConfig(algorithms.Policy{Limit: 3, Period: time.Second}, 2*time.Second, []LaneConfig{lane("sliding-log", "sliding-log")})
	cfg.Keys = []Key{{Name: "a"}, {Name: "b"}}
	cfg.Clients = []Client{{Name: "log", Pattern: trace, Keys: []int{0, 1}, Stop: 2 * time.Second, Deliveries: 1, Retry: Retry{MaxAttempts: 1}}}
	_, rows, _ := runToEnd(t, cfg)
	want := []string{
		"0.000,sliding-log,sliding-log,memory,log,app,a,log-1,1,1,true,2,0.000",
		"0.500,sliding-log,sliding-log,memory,log,app,b,log-2,1,2,true,1,0.000",
		"1000.000,sliding-log,sliding-log,memory,log,app,a,log-3,1,1,true,2,0.000", // a's 0 ms entry has left
		"1000.250,sliding-log,sliding-log,memory,log,app,a,log-4,1,3,false,2,999.750",
	}
	got := strings.Split(strings.TrimSpace(rows), "\n")[1:]
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("trace replay rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }

func TestTraceReaderErrors(t *testing.T) {
	for _, tc := range []struct{ csv, want string }{
		{"", "t.csv: the file is empty; want a header row time_ms,key[,cost]"},
		{"when,who\n", `t.csv:1: header is "when,who"; want time_ms,key or time_ms,key,cost`},
		{"time_ms,key\n1,a\nx,b\n", `t.csv:3: time_ms "x" is not a number of milliseconds`},
		{"time_ms,key\n5,a\n4,b\n", "t.csv:3: time_ms 4 is before the previous row's 5.000; sort the file by time"},
		{"time_ms,key,cost\n1,a,0\n", `t.csv:2: cost "0" must be a whole number from 1 to 1073741824`},
		{"time_ms,key\n1,\n", "t.csv:2: key is empty"},
		{"time_ms,key\n1,a,3\n", "t.csv:2: 3 fields; want 2 (time_ms,key)"},
		{"time_ms,key\n-1,a\n", "t.csv:2: time_ms -1 is out of range"},
		{"time_ms,key\n1,\"a\n", "t.csv:2: extraneous or missing \" in quoted-field"},
	} {
		r, err := NewTraceReader("t.csv", nopCloser{strings.NewReader(tc.csv)})
		for err == nil {
			_, err = r.Next()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.csv, err, tc.want)
		}
	}
}

func TestHistogramQuantiles(t *testing.T) {
	var h histogram
	if h.quantile(0.99) != 0 {
		t.Error("an empty histogram has a non-zero p99")
	}
	for i := 1; i <= 1000; i++ {
		h.add(time.Duration(i) * time.Millisecond)
	}
	for q, want := range map[float64]time.Duration{0.5: 500 * time.Millisecond, 0.99: 990 * time.Millisecond, 1: time.Second} {
		got := h.quantile(q)
		if math.Abs(float64(got-want)) > float64(want)/128 {
			t.Errorf("p%g = %v, want %v within 1/128", q*100, got, want)
		}
	}
	var exact histogram
	for _, us := range []int64{0, 7, 7, 100} {
		exact.add(time.Duration(us) * time.Microsecond)
	}
	if exact.quantile(0.5) != 7*time.Microsecond || exact.quantile(1) != 100*time.Microsecond {
		t.Errorf("small values are not exact: p50 %v, p100 %v", exact.quantile(0.5), exact.quantile(1))
	}
}

func TestFairness(t *testing.T) {
	var r recorder
	cfg := newConfig(algorithms.Policy{Limit: 1, Period: time.Second}, time.Second, []LaneConfig{lane("l", "gcra")})
	cfg.Keys = []Key{{Name: "a"}, {Name: "b"}}
	r.keys = []keyStats{{offered: 10, succeeded: 10}, {offered: 0}}
	r.peaks = make([]peakSpan, 2)
	r.extra = []pairStats{{offered: 10, succeeded: 0}}
	if f := r.finish(cfg, cfg.Lanes[0]).Fairness; f != 0.5 {
		t.Errorf("one identity served fully and one not at all: fairness %g, want 0.5", f)
	}
	r.keys = []keyStats{{offered: 4, succeeded: 2}, {}}
	r.extra = []pairStats{{offered: 8, succeeded: 4}}
	if f := r.finish(cfg, cfg.Lanes[0]).Fairness; f != 1 {
		t.Errorf("equal success ratios: fairness %g, want 1", f)
	}
}

func TestCSVFields(t *testing.T) {
	for in, want := range map[string]string{"plain": "plain", "a,b": `"a,b"`, `say "hi"`: `"say ""hi"""`, " pad": `" pad"`, "": ""} {
		if got := csvField(in); got != want {
			t.Errorf("csvField(%q) = %s, want %s", in, got, want)
		}
	}
	for d, want := range map[time.Duration]string{0: "0.000", 1500 * time.Microsecond: "1.500", 12345678 * time.Microsecond: "12345.678", -time.Millisecond: "-1.000"} {
		if got := string(appendMillis(nil, d)); got != want {
			t.Errorf("appendMillis(%v) = %s, want %s", d, got, want)
		}
	}
	for v, want := range map[float64]string{0: "0", 0.5: "0.5", 2.0 / 3: "0.666667", -1e-9: "0", 99: "99"} {
		if got := string(appendDecimal(nil, v)); got != want {
			t.Errorf("appendDecimal(%g) = %s, want %s", v, got, want)
		}
	}
}

func TestKeyStatsFitOneCacheLine(t *testing.T) {
	if size := unsafe.Sizeof(keyStats{}); size != 64 {
		t.Errorf("keyStats is %d bytes; keep it to one 64-byte cache line (see peak.go)", size)
	}
}

// The peak window is exact: out-of-order admissions are placed in order, costs
// larger than an entry holds are split, and the ring grows without losing any.
func TestPeakWindow(t *testing.T) {
	r := recorder{keys: make([]keyStats, 1), peaks: make([]peakSpan, 1)}
	for i, a := range []struct {
		at   time.Duration
		cost int64
	}{{0, 1}, {100 * time.Millisecond, 2}, {50 * time.Millisecond, 3}, {900 * time.Millisecond, 1}, {1050 * time.Millisecond, 5 << 22}} {
		r.addToWindow(0, a.at, a.cost, time.Second)
		_ = i
	}
	// the window ending 1.05 s holds 0.1 s (2), 0.9 s (1) and 1.05 s (5 × 2^22)
	if ks := r.keys[0]; ks.peak != 3+5<<22 || r.peaks[0] != (peakSpan{100 * time.Millisecond, 1050 * time.Millisecond}) {
		t.Errorf("peak %d over %v; want %d from 100ms to 1.05s", ks.peak, r.peaks[0], 3+5<<22)
	}
	for at := time.Duration(0); at < 100*time.Millisecond; at += time.Millisecond {
		r.addToWindow(0, 2*time.Second+at, 1, time.Second)
	}
	if ks := r.keys[0]; ks.sum != 100 || ks.n != 100 {
		t.Errorf("after 100 admissions in 100 ms: %d units in %d entries; want 100 in 100", ks.sum, ks.n)
	}
}
