package sim

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ratelab/algorithms"
)

// feedConfig has a client of every open-loop pattern, rate inputs of every sort
// (mid-step, two at one instant, a stop and a restart, one for a hand client,
// one that stops a trace) and `lanes` lanes that decide alike (no limit), so every
// lane's rows are the same requests. opens counts the trace's openings.
func feedConfig(lanes int, opens *atomic.Int64) *Config {
	var lcs []LaneConfig
	for i := range lanes {
		lcs = append(lcs, lane(fmt.Sprintf("lane-%d", i), algorithms.UnlimitedName))
	}
	var trows []TraceRow
	for i := range 30_000 {
		trows = append(trows, TraceRow{At: time.Duration(i) * 50 * time.Microsecond, Key: []string{"a", "b"}[i%2], Cost: int64(1 + i%3)})
	}
	trace := Trace{KeyIndex: map[string]int{"a": 0, "b": 1}, Rows: len(trows), MaxCost: 3, Open: func() (TraceReader, error) {
		opens.Add(1)
		return &rowsTrace{rows: trows}, nil
	}}
	cfg := newConfig(algorithms.Policy{Limit: 10, Period: time.Second}, 2*time.Second, lcs,
		Client{Name: "poisson", Pattern: Poisson{Rate: 20_000}, KeyZipf: 1.3, Cost: Cost{Dist: CostUniform, Min: 1, Max: 9}},
		Client{Name: "constant", Pattern: Constant{Rate: 3_000}},
		Client{Name: "ramp", Pattern: Ramp{From: 0, To: 8_000}},
		Client{Name: "bursts", Pattern: Bursts{[]Burst{{At: 100 * time.Millisecond, Count: 40_000}, {At: 1500 * time.Millisecond, Count: 5_000, Spread: time.Millisecond}}}},
		Client{Name: "hand", Pattern: Hand{}},
	)
	cfg.Keys = append(cfg.Keys, Key{Name: "a"}, Key{Name: "b"})
	n := len(cfg.Keys)
	cfg.Clients[0].Keys = []int{0, n - 2, n - 1}
	cfg.Clients = append(cfg.Clients, Client{Name: "log", Pattern: trace, Keys: []int{n - 2, n - 1}, Stop: cfg.Duration, Deliveries: 1, Retry: Retry{MaxAttempts: 1}})
	rate := func(at time.Duration, client int, r float64) Input {
		return Input{At: at, Kind: InputRate, Client: client, Rate: r}
	}
	cfg.Inputs = []Input{
		rate(200*time.Millisecond, 4, 700),
		rate(300*time.Millisecond+17*time.Microsecond, 0, 9_000),
		rate(450*time.Millisecond, 5, 0),
		rate(500*time.Millisecond, 1, 1_000),
		rate(500*time.Millisecond, 1, 4_000),
		rate(700*time.Millisecond, 2, 0),
		rate(900*time.Millisecond, 2, 2_500),
		{At: 950 * time.Millisecond, Kind: InputSend, Client: 4, Count: 3, Cost: 2},
	}
	return cfg
}

// rowsTrace is a TraceReader over rows in memory.
type rowsTrace struct{ rows []TraceRow }

func (s *rowsTrace) Next() (TraceRow, error) {
	if len(s.rows) == 0 {
		return TraceRow{}, io.EOF
	}
	r := s.rows[0]
	s.rows = s.rows[1:]
	return r, nil
}

func (s *rowsTrace) Close() error { return nil }

// step is requestsOf's step, and liveAt, a step's end, when it adds a rate input.
const (
	step   = 37*time.Millisecond + 311*time.Microsecond
	liveAt = 34 * step
)

// requestsOf runs cfg in uneven steps, adding a rate input at the pause at liveAt
// when live, and returns each lane's requests as text (time, client, key, cost,
// request number) and the run.
func requestsOf(t *testing.T, cfg *Config, live bool) ([]string, *Run) {
	t.Helper()
	r, err := NewRun(cfg, Memory)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	out := make([]strings.Builder, len(cfg.Lanes))
	r.OnRows(func(rows []Row) error {
		for _, row := range rows {
			if row.Attempt == 1 {
				fmt.Fprintf(&out[row.Lane], "%d %d %d %d %d\n", row.At, row.Client, row.Key, row.Cost, row.Request)
			}
		}
		return nil
	})
	for at := time.Duration(0); at < cfg.Duration; {
		at += step
		if err := r.AdvanceTo(at); err != nil {
			t.Fatal(err)
		}
		if at == liveAt && live {
			if err := r.AddInput(liveInput); err != nil {
				t.Fatal(err)
			}
		}
	}
	var texts []string
	for i := range out {
		texts = append(texts, out[i].String())
	}
	return texts, r
}

// liveInput is the input requestsOf makes live.
var liveInput = Input{At: liveAt, Kind: InputRate, Client: 0, Rate: 5_000}

// Every lane reads the same arrivals whether it reads them from the feed, from a
// clone of the stream it made after getting ahead, or alone in a run of one lane;
// the rate inputs switch the stream where each lane applies them, and an input
// made live at a pause where the same input in the configuration does (the feed
// made nothing past the pause that the input should have changed); the trace is
// opened once for all the lanes that share it.
func TestLanesShareTheirArrivals(t *testing.T) {
	var opens atomic.Int64
	alone, _ := requestsOf(t, feedConfig(1, &opens), true)
	known := feedConfig(1, &opens)
	known.Inputs = append(known.Inputs, liveInput)
	if planned, _ := requestsOf(t, known, false); planned[0] != alone[0] {
		t.Errorf("the input made live at %v changed the run otherwise than the same input planned:\n%s", liveAt, firstLineDiff(alone[0], planned[0]))
	}
	if strings.Count(alone[0], "\n") < 50_000 {
		t.Fatalf("the run made only %d requests", strings.Count(alone[0], "\n"))
	}
	for _, window := range []int64{feedWindow, 1, 3} {
		t.Run(fmt.Sprintf("window=%d", window), func(t *testing.T) {
			defer func(w int64) { feedWindow = w }(feedWindow)
			feedWindow = window
			opens.Store(0)
			lanes, r := requestsOf(t, feedConfig(6, &opens), true)
			for i, got := range lanes {
				if got != alone[0] {
					t.Errorf("lane %d's requests differ from the run of one lane's:\n%s", i, firstLineDiff(got, alone[0]))
				}
			}
			own := 0
			for _, l := range r.Lanes {
				for _, c := range l.clients {
					if c.feed != nil && c.feed.own != nil {
						own++
					}
				}
			}
			if window == 1 && own == 0 {
				t.Errorf("with a window of one chunk no lane went on its own")
			}
			if own == 0 && opens.Load() != 1 {
				t.Errorf("the trace was opened %d times for lanes that all shared it, want once", opens.Load())
			}
		})
	}
}

// A trace that fails mid-way stops every lane with the trace's error, whether the
// lane read it from the feed or on its own.
func TestAFailedTraceStopsEveryLane(t *testing.T) {
	for _, window := range []int64{feedWindow, 1} {
		defer func(w int64) { feedWindow = w }(feedWindow)
		feedWindow = window
		rows := []TraceRow{}
		for i := range 5_000 {
			rows = append(rows, TraceRow{At: time.Duration(i) * 100 * time.Microsecond, Key: "a", Cost: 1})
		}
		rows[4_000].Key = "stranger"
		trace := Trace{KeyIndex: map[string]int{"a": 0}, Rows: len(rows), MaxCost: 1, Open: func() (TraceReader, error) { return &rowsTrace{rows: rows}, nil }}
		cfg := newConfig(algorithms.Policy{Limit: 10, Period: time.Second}, time.Second,
			[]LaneConfig{lane("one", algorithms.UnlimitedName), lane("two", algorithms.UnlimitedName), lane("three", "token-bucket")})
		cfg.Keys = []Key{{Name: "a"}}
		cfg.Clients = []Client{{Name: "log", Pattern: trace, Keys: []int{0}, Stop: time.Second, Deliveries: 1, Retry: Retry{MaxAttempts: 1}}}
		r, err := NewRun(cfg, Memory)
		if err != nil {
			t.Fatal(err)
		}
		err = r.AdvanceTo(time.Second)
		if err == nil || !strings.Contains(err.Error(), `key "stranger" was not in the trace`) {
			t.Errorf("window %d: the run ended with %v, want the trace's error", window, err)
		}
		for _, l := range r.Lanes {
			if l.err == nil {
				t.Errorf("window %d: lane %q went on past the failed trace", window, l.Config.Name)
			}
		}
		r.Close()
	}
}

// firstLineDiff shows where two texts of lines first differ.
func firstLineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d: %q, want %q", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(la), len(lb))
}

// A rate input at T drops the arrival the client had at or after T (the input
// comes first at its instant) and sends at the new rate from T; one for a client
// whose arrivals had ended starts it again; a rate of 0 stops it.
func TestRateInputsSwitchWhereTheLaneIs(t *testing.T) {
	cfg := newConfig(algorithms.Policy{Limit: 10, Period: time.Second}, 2*time.Second, []LaneConfig{lane("none", algorithms.UnlimitedName)},
		Client{Name: "constant", Pattern: Constant{Rate: 10}},
		Client{Name: "burst", Pattern: Bursts{[]Burst{{At: 100 * time.Millisecond, Count: 2}}}},
	)
	ms := time.Millisecond
	cfg.Inputs = []Input{
		{At: 500 * ms, Kind: InputRate, Client: 0, Rate: 4},
		{At: 600 * ms, Kind: InputRate, Client: 1, Rate: 2},
		{At: 1200 * ms, Kind: InputRate, Client: 0, Rate: 0},
		{At: 1300 * ms, Kind: InputRate, Client: 0, Rate: 5},
	}
	stepped, _ := requestsOf(t, cfg, false)
	_, rows := runRows(t, cfg) // in one step: the stream makes ahead what it can
	var whole strings.Builder
	for _, row := range rows {
		if row.Attempt == 1 {
			fmt.Fprintf(&whole, "%d %d\n", row.At, row.Client)
		}
	}
	for _, run := range []struct{ name, text string }{{"in steps", stepped[0]}, {"in one step", whole.String()}} {
		var times [2][]int64
		for _, line := range strings.Split(strings.TrimSpace(run.text), "\n") {
			var at int64
			var client int
			fmt.Sscan(line, &at, &client)
			at /= int64(ms)
			times[client] = append(times[client], at)
		}
		want := [2]string{"[0 100 200 300 400 750 1000 1500 1700 1900]", "[100 100 1100 1600]"}
		for c := range times {
			if got := fmt.Sprint(times[c]); got != want[c] {
				t.Errorf("%s: client %d sent at %s ms, want %s", run.name, c, got, want[c])
			}
		}
	}
}
