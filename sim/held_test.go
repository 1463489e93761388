package sim

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"ratelab/algorithms"
)

// One lane holds its rows for the backend while another's leave at once: the
// rows are still ordered by (time, lane), and the same however the run is
// advanced, with the rows carried between advances in memory or spooled to disk.
func TestHeldRowsKeepTheOrder(t *testing.T) {
	defer func(m int) { spoolMemory = m }(spoolMemory)
	build := func() *Config {
		cfg := newConfig(algorithms.Policy{Limit: 5, Period: time.Second}, 3*time.Second,
			[]LaneConfig{lane("no limit", "none"), lane("fixed-window", "fixed-window"), lane("token-bucket", "token-bucket")},
			Client{Name: "p", Pattern: Poisson{Rate: 400}, Retry: Retry{Policy: RetryImmediate, MaxAttempts: 3, OnError: true, OnDeny: true}})
		cfg.Backend = &Backend{Concurrency: 4, ServiceTime: 20 * time.Millisecond, Queue: 50, Timeout: 120 * time.Millisecond}
		return cfg
	}
	_, whole := runRows(t, build())
	for _, memory := range []int{1 << 14, 3} {
		spoolMemory = memory
		testHeldRowsKeepTheOrder(t, build, whole)
	}
}

func testHeldRowsKeepTheOrder(t *testing.T, build func() *Config, whole []Row) {
	if _, once := runRows(t, build()); !reflect.DeepEqual(once, whole) {
		t.Errorf("advanced at once with %d rows in memory, the rows differ", spoolMemory)
	}
	cfg := build()
	r, err := NewRun(cfg, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var stepped []Row
	r.OnRows(func(rs []Row) error { stepped = append(stepped, rs...); return nil })
	for at := time.Duration(0); at < cfg.Duration; {
		at += 7 * time.Millisecond
		if err := r.AdvanceTo(at); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(stepped, whole) {
		t.Errorf("advanced 7 ms at a time (spooling past %d rows), the rows differ from the run advanced at once", spoolMemory)
	}
	carried, held := false, false
	for i := range r.carry {
		carried = carried || r.carry[i].file != nil
		held = held || r.Lanes[i].held.older.file != nil
	}
	if carried != (spoolMemory < 10) || held != (spoolMemory < 10) {
		t.Errorf("with %d rows in memory, rows carried went to disk: %v, rows held: %v", spoolMemory, carried, held)
	}
	lastAt, lastLane, outcomes := time.Duration(0), -1, map[Outcome]int{}
	for i, row := range whole {
		if row.At < lastAt || row.At == lastAt && row.Lane < lastLane {
			t.Fatalf("row %d (%+v) comes after one at %v in lane %d", i+1, row, lastAt, lastLane)
		}
		lastAt, lastLane = row.At, row.Lane
		outcomes[row.Outcome]++
	}
	for _, o := range []Outcome{OutcomeServed, OutcomeTimedOut, OutcomeFailed, OutcomeDenied, OutcomeGaveUp} {
		if outcomes[o] == 0 {
			t.Errorf("no row %s: the test does not exercise what it should (%v)", o, outcomes)
		}
	}
}

// With many lanes each lane's batches are small (laneBatch) and the merge
// takes the lanes' next rows from a heap: the rows still come ordered by
// (time, lane), none lost, each lane's in its own order — the same rows as
// another lane of the same configuration makes, but for the lane's number.
func TestManyLanesMergeInOrder(t *testing.T) {
	kinds := []LaneConfig{lane("no limit", "none"), lane("fixed-window", "fixed-window"), lane("token-bucket", "token-bucket")}
	var lanes []LaneConfig
	for i := range 600 {
		l := kinds[i%3]
		l.Name = fmt.Sprintf("%s %d", l.Name, i)
		lanes = append(lanes, l)
	}
	cfg := newConfig(algorithms.Policy{Limit: 5, Period: time.Second}, 2*time.Second, lanes,
		Client{Name: "p", Pattern: Poisson{Rate: 300}, Retry: Retry{Policy: RetryImmediate, MaxAttempts: 3, OnError: true, OnDeny: true}})
	cfg.Backend = &Backend{Concurrency: 4, ServiceTime: 20 * time.Millisecond, Queue: 50, Timeout: 120 * time.Millisecond}
	if b := laneBatch(len(lanes)); b >= rowBatch {
		t.Fatalf("laneBatch(%d) = %d: the test wants small batches", len(lanes), b)
	}
	metrics, rows := runRows(t, cfg)
	var decisions int64
	for _, m := range metrics {
		decisions += m.Attempts
	}
	if int64(len(rows)) != decisions {
		t.Fatalf("%d rows for %d decisions", len(rows), decisions)
	}
	perLane := make([][]Row, len(lanes))
	for i, row := range rows {
		if i > 0 && (row.At < rows[i-1].At || row.At == rows[i-1].At && row.Lane < rows[i-1].Lane) {
			t.Fatalf("row %d (%v, lane %d) comes after (%v, lane %d)", i, row.At, row.Lane, rows[i-1].At, rows[i-1].Lane)
		}
		perLane[row.Lane] = append(perLane[row.Lane], row)
	}
	for i := 3; i < len(lanes); i++ {
		same := perLane[i%3]
		if len(perLane[i]) != len(same) {
			t.Fatalf("lane %d has %d rows, lane %d of the same configuration %d", i, len(perLane[i]), i%3, len(same))
		}
		for j, row := range perLane[i] {
			row.Lane = same[j].Lane
			if !reflect.DeepEqual(row, same[j]) {
				t.Fatalf("lane %d's row %d is %+v, lane %d's %+v", i, j, row, i%3, same[j])
			}
		}
	}
}
