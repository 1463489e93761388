package sim

import (
	"reflect"
	"testing"
	"time"

	"ratelab/algorithms"
)

// A lane's latest decision, rebuilt from the few words it keeps, is its last row
// as the row sink had it (but for what the lane does not keep: the request's
// client, number, attempt and cost, and its fate) — for a plain lane, a sharded
// one (the deciding shard) and one of several limits (each limit's answer).
func TestLastDecisionIsTheLastRow(t *testing.T) {
	sharded := lane("shards", "token-bucket")
	sharded.Shards, sharded.ShardPick = 4, algorithms.PickTwoChoices
	limits := lane("limits", "token-bucket")
	limits.Combine = algorithms.InOrder
	limits.Limits = []LimitConfig{
		{Name: "rps", Algorithm: "token-bucket", Policy: algorithms.Policy{Limit: 20, Period: time.Second, Burst: 20}},
		{Name: "rpm", Algorithm: "sliding-log", Policy: algorithms.Policy{Limit: 100, Period: time.Minute}},
	}
	cfg := newConfig(algorithms.Policy{Limit: 20, Period: time.Second, Burst: 10}, 3*time.Second,
		[]LaneConfig{lane("plain", "gcra"), sharded, limits}, Client{Name: "p", Pattern: Poisson{Rate: 60}})
	r, err := NewRun(cfg, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.KeepLive()
	lastRow := make([]Row, len(cfg.Lanes))
	r.OnRows(func(rows []Row) error {
		for _, row := range rows {
			lastRow[row.Lane] = row
		}
		return nil
	})
	for _, at := range []time.Duration{0, 700 * time.Millisecond, cfg.Duration} {
		if err := r.AdvanceTo(at); err != nil {
			t.Fatal(err)
		}
		if err := r.FinishRows(); err != nil {
			t.Fatal(err)
		}
		for i, l := range r.Lanes {
			last, ok := l.LastDecision()
			if at == 0 {
				if ok {
					t.Errorf("lane %s has a latest decision before any", l.Config.Name)
				}
				continue
			}
			want := lastRow[i]
			want.Client, want.Request, want.Attempt, want.Cost = 0, 0, 0, 0
			want.DecidedAt, want.AdmittedAt, want.QueueDelay, want.Outcome, want.Latency, want.Wasted = 0, 0, 0, 0, 0, false
			if !ok || !reflect.DeepEqual(last.Row, want) || last.Key != cfg.Keys[want.Key] || last.Decision.Allowed != want.Allowed {
				t.Errorf("at %v, lane %s: latest decision %+v (%v), want the last row %+v", at, l.Config.Name, last, ok, want)
			}
		}
	}
	if last, _ := r.Lanes[1].LastDecision(); last.Row.Shard < 0 {
		t.Errorf("the sharded lane's latest decision names no shard: %+v", last.Row)
	}
	if last, _ := r.Lanes[2].LastDecision(); len(last.Row.Limits) != 2 {
		t.Errorf("the lane of two limits keeps %d limits' answers", len(last.Row.Limits))
	}
}
