package sim_test

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

// fateCells is a request CSV line's request_id and its fate columns.
func fateCells(line string) string {
	cells := strings.Split(line, ",")
	return cells[7] + "," + strings.Join(cells[13:19], ",")
}

// The backend of TestBackendQueueTimeoutAndWastedWork, seen row by row: 10
// requests at 0 into 2 servers of 100 ms and a queue of 5, clients waiting 250 ms.
func backendBurst(duration time.Duration, retry sim.Retry) *sim.Config {
	unlimited := algorithms.Policy{Limit: 1_000_000, Period: time.Second}
	cfg := sim.NewConfig(unlimited, duration, []sim.LaneConfig{sim.NewLane("token-bucket", "token-bucket")},
		sim.Client{Name: "c", Pattern: sim.Bursts{[]sim.Burst{{At: 0, Count: 10}}}, Retry: retry})
	cfg.Backend = &sim.Backend{Concurrency: 2, ServiceTime: 100 * time.Millisecond, Queue: 5, Timeout: 250 * time.Millisecond}
	return cfg
}

func TestRowsSayEachAttemptsFate(t *testing.T) {
	_, rows, _ := runToEnd(t, backendBurst(time.Second, sim.Retry{MaxAttempts: 1}))
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(rows), "\n")[1:] {
		got = append(got, fateCells(line))
	}
	want := []string{
		// served at once, done at 100 ms
		"c-1,0.000000,0.000000,0.000000,served,100.000000,false",
		"c-2,0.000000,0.000000,0.000000,served,100.000000,false",
		// queued, served from 100 ms to 200 ms
		"c-3,0.000000,0.000000,0.000000,served,200.000000,false",
		"c-4,0.000000,0.000000,0.000000,served,200.000000,false",
		// in service at 200 ms or still queued when their clients leave at
		// 250 ms (and give up: one attempt), served anyway by 300 and 400 ms
		"c-5,0.000000,0.000000,0.000000,gave_up,250.000000,true",
		"c-6,0.000000,0.000000,0.000000,gave_up,250.000000,true",
		"c-7,0.000000,0.000000,0.000000,gave_up,250.000000,true",
		// the queue was full: refused by the backend at once
		"c-8,0.000000,0.000000,0.000000,gave_up,0.000000,false",
		"c-9,0.000000,0.000000,0.000000,gave_up,0.000000,false",
		"c-10,0.000000,0.000000,0.000000,gave_up,0.000000,false",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("fates:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// retried, the same failures are failed and timed_out
	_, rows, _ = runToEnd(t, backendBurst(time.Second, sim.Retry{Policy: sim.RetryImmediate, MaxAttempts: 2, OnError: true}))
	outcomes := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(rows), "\n")[1:] {
		if cells := strings.Split(line, ","); cells[8] == "1" {
			outcomes[cells[7]] = cells[16] + " wasted=" + cells[18]
		}
	}
	for id, want := range map[string]string{"c-1": "served wasted=false", "c-5": "timed_out wasted=true", "c-7": "timed_out wasted=true", "c-8": "failed wasted=false"} {
		if outcomes[id] != want {
			t.Errorf("%s's first attempt: %s, want %s", id, outcomes[id], want)
		}
	}
}

// A run that ends with requests in the backend writes their rows as in_flight;
// FinishRows does the same for a run written only so far, and rows are never
// written twice.
func TestRowsInFlightAtTheEnd(t *testing.T) {
	_, rows, _ := runToEnd(t, backendBurst(150*time.Millisecond, sim.Retry{MaxAttempts: 1}))
	lines := strings.Split(strings.TrimSpace(rows), "\n")[1:]
	if len(lines) != 10 {
		t.Fatalf("%d rows, want the 10 decisions", len(lines))
	}
	if got := fateCells(lines[2]); got != "c-3,0.000000,0.000000,0.000000,in_flight,,false" {
		t.Errorf("a request in service at the end: %s", got)
	}

	cfg := backendBurst(time.Second, sim.Retry{MaxAttempts: 1})
	r, w, b := runWithRows(t, cfg)
	if err := r.AdvanceTo(150 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := r.FinishRows(); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if got := strings.Count(b.String(), ",in_flight,"); got != 5 {
		t.Errorf("FinishRows at 150 ms wrote %d rows in flight, want 5 (c-3 to c-7):\n%s", got, b.String())
	}
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if n := strings.Count(b.String(), "\n"); n != 1+10 {
		t.Errorf("%d rows after the end, want each of the 10 decisions once:\n%s", n-1, b.String())
	}
}
