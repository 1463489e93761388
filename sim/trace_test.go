package sim_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

func TestReplayOfATrace(t *testing.T) {
	trows := []sim.TraceRow{{0, "a", 1}, {500 * time.Microsecond, "b", 2}, {time.Second, "a", 1}, {time.Second + 250*time.Microsecond, "a", 3}}
	keys := map[string]int{"a": 0, "b": 1}
	trace := sim.Trace{KeyIndex: keys, Rows: 4, MaxCost: 3, Open: func() (sim.TraceReader, error) { return &sliceTrace{rows: trows}, nil }}
	cfg := sim.NewConfig(algorithms.Policy{Limit: 3, Period: time.Second}, 2*time.Second, []sim.LaneConfig{sim.NewLane("sliding-log", "sliding-log")})
	cfg.Keys = []sim.Key{{Name: "a"}, {Name: "b"}}
	cfg.Clients = []sim.Client{{Name: "log", Pattern: trace, Keys: []int{0, 1}, Stop: 2 * time.Second, Deliveries: 1, Retry: sim.Retry{MaxAttempts: 1}}}
	_, rows, _ := runToEnd(t, cfg)
	want := []string{
		"0.000,sliding-log,sliding-log,memory,log,app,a,log-1,1,1,true,2,0.000,0.000000,0.000000,0.000000,served,0.000000,false,,",
		"0.500,sliding-log,sliding-log,memory,log,app,b,log-2,1,2,true,1,0.000,0.500000,0.500000,0.000000,served,0.000000,false,,",
		"1000.000,sliding-log,sliding-log,memory,log,app,a,log-3,1,1,true,2,0.000,1000.000000,1000.000000,0.000000,served,0.000000,false,,", // a's 0 ms entry has left
		"1000.250,sliding-log,sliding-log,memory,log,app,a,log-4,1,3,false,2,999.750,1000.250000,,,gave_up,0.000000,false,sliding-log,0",    // one attempt only; refused by its one rule
	}
	got := strings.Split(strings.TrimSpace(rows), "\n")[1:]
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("trace replay rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// sliceTrace is a sim.TraceReader over rows in memory.
type sliceTrace struct{ rows []sim.TraceRow }

func (s *sliceTrace) Next() (sim.TraceRow, error) {
	if len(s.rows) == 0 {
		return sim.TraceRow{}, io.EOF
	}
	r := s.rows[0]
	s.rows = s.rows[1:]
	return r, nil
}

func (s *sliceTrace) Close() error { return nil }

// A trace is read whole when the run is made; a replay that then finds fewer
// rows before the client's stop, or more, stops with the file changed, instead of
// ending early (or late) as if it were the file that was read.
func TestATraceThatChangedStopsTheRun(t *testing.T) {
	trows := []sim.TraceRow{{0, "a", 1}, {500 * time.Millisecond, "a", 1}, {time.Second, "a", 1}, {1500 * time.Millisecond, "a", 1}, {2500 * time.Millisecond, "a", 1}}
	for _, tc := range []struct {
		name string
		rows int // as the loader counted them before the stop (2 s)
		want string
	}{
		{"as read", 4, ""},
		{"cut short", 5, "it had 5 requests before the client's stop when it was read, and 4 now; the file changed since"},
		{"grown", 3, "it had 3 requests before the client's stop when it was read, and has more now; the file changed since"},
	} {
		trace := sim.Trace{KeyIndex: map[string]int{"a": 0}, Rows: tc.rows, MaxCost: 1, Open: func() (sim.TraceReader, error) { return &sliceTrace{rows: trows}, nil }}
		cfg := sim.NewConfig(algorithms.Policy{Limit: 3, Period: time.Second}, 2*time.Second, []sim.LaneConfig{sim.NewLane("gcra", "gcra"), sim.NewLane("none", algorithms.UnlimitedName)})
		cfg.Keys = []sim.Key{{Name: "a"}}
		cfg.Clients = []sim.Client{{Name: "log", Pattern: trace, Keys: []int{0}, Stop: 2 * time.Second, Deliveries: 1, Retry: sim.Retry{MaxAttempts: 1}}}
		r, err := sim.NewRun(cfg, sim.Memory)
		if err != nil {
			t.Fatal(err)
		}
		err = r.AdvanceTo(cfg.Duration)
		r.Close()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want no error", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
