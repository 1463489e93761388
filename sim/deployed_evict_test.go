package sim

import (
	"reflect"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/deploy"
)

// A deployment past its budget of states evicts its idle ones, and decides as
// one that keeps them all: 16 local instances over 300 keys, a budget of 500
// states, give the same rows and figures but for the state held, which peaks
// below what keeping every key holds.
func TestDeployedLaneEvictsPastItsBudget(t *testing.T) {
	p := algorithms.Policy{Limit: 5, Period: time.Second, Burst: 5}
	run := func(budget int) ([]Metrics, []Row) {
		saved := deployedKeysKept
		deployedKeysKept = budget
		defer func() { deployedKeysKept = saved }()
		l := lane("local", algorithms.TokenBucketName)
		l.Instances, l.Deploy = 16, DeployConfig{On: true, Sync: deploy.Local}
		cfg := newConfig(p, 20*time.Second, []LaneConfig{l})
		keys := make([]int, 300)
		for i := range keys {
			cfg.Keys = append(cfg.Keys, Key{Name: "user-" + time.Duration(i).String()})
			keys[i] = i
		}
		cfg.Clients = []Client{{Name: "users", Pattern: Poisson{Rate: 600}, Keys: keys, Stop: cfg.Duration, Deliveries: 1,
			Cost: Cost{Fixed: 1}, Retry: Retry{MaxAttempts: 1}}}
		return runRows(t, cfg)
	}
	kept, keptRows := run(1 << 30)
	evicted, evictedRows := run(500)
	if !reflect.DeepEqual(keptRows, evictedRows) {
		t.Fatalf("eviction changed the rows (%d, %d)", len(keptRows), len(evictedRows))
	}
	k, e := kept[0], evicted[0]
	if k.PeakKeys <= 1000 || e.PeakKeys >= k.PeakKeys {
		t.Fatalf("peak keys %d evicted, %d kept; want the kept past 1,000 (twice the budget) and the evicted below", e.PeakKeys, k.PeakKeys)
	}
	k.PeakKeys, k.PeakStateBytes, e.PeakKeys, e.PeakStateBytes = 0, 0, 0, 0
	if !reflect.DeepEqual(k, e) {
		t.Errorf("eviction changed the figures:\nkept    %+v\nevicted %+v", k, e)
	}
}
