package present

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

// A count of one is singular wherever the table, the verdicts and the trace
// notes say how many: "1 request replayed", never "1 requests".
func TestOneIsSingular(t *testing.T) {
	p := algorithms.Policy{Limit: 100, Period: time.Second, Burst: 50}
	cfg := func(algorithm algorithms.Name) *sim.Config {
		return &sim.Config{Tiers: []sim.Tier{{Name: "default", Policy: p}}, Lanes: []sim.LaneConfig{{Name: "L", Algorithm: algorithm}},
			Keys: []sim.Key{{Name: "k"}}, Backend: &sim.Backend{Concurrency: 20, ServiceTime: 50 * time.Millisecond}}
	}
	base := sim.Metrics{Lane: "L", Offered: 10, Attempts: 10, Accepted: 10}
	for _, tc := range []struct {
		name string
		cfg  *sim.Config
		set  func(*sim.Metrics)
		want string
	}{
		{"no limit", cfg("none"), func(m *sim.Metrics) { m.PeakAcceptedPerSecond = 1 }, "up to 1 request let through in one second"},
		{"store errors", cfg("token-bucket"), func(m *sim.Metrics) { m.StoreErrors = 1 }, "1 decision made without Redis (on_error)"},
		{"an outage in memory", cfg("token-bucket"), func(m *sim.Metrics) { m.StoreErrors, m.Backend = 2, "memory" }, "2 decisions made without the store, down (on_error)"},
		{"conflicts", cfg("token-bucket"), func(m *sim.Metrics) { m.Conflicts = 1 }, "1 decision gave up after losing WATCH races"},
		{"backend errors", cfg("token-bucket"), func(m *sim.Metrics) { m.Errors, m.BackendUtilization = 1, 0.5 }, "the backend failed 1 request (busy 50% of the run)"},
		{"starved", limits(cfg("token-bucket"), algorithms.InOrder), func(m *sim.Metrics) { m.GrantedUnits, m.WastedUnits, m.Starved = 10, 1, 1 }, "; 1 request gave up having paid"},
	} {
		m := base
		tc.set(&m)
		if v := Verdict(tc.cfg, m); !strings.Contains(v, tc.want) {
			t.Errorf("%s: %q\n  lacks %q", tc.name, v, tc.want)
		}
	}

	c := &sim.Config{Clients: []sim.Client{{Name: "log", Pattern: sim.Trace{Report: sim.TraceReport{File: "t.log", Format: "clf", Rows: 1, PastEnd: 1, CutoffMS: 1000, Unparsed: 1, Shown: []string{"t.log:2: no time"}}}}}}
	var notes strings.Builder
	WriteTraceNotes(&notes, c)
	if want := "  trace t.log (clf): 1 request replayed; 1 row at or after the end (1s) not replayed; 1 line could not be read and was skipped (--strict makes that an error):\n    t.log:2: no time\n"; notes.String() != want {
		t.Errorf("trace notes:\n%q\nwant\n%q", notes.String(), want)
	}
}
