package sim

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

// Eight requests at once against a burst of 1: one shared limit accepts 1; four
// instances of the whole policy, in turn, one each (4); four of a share each
// (the policy of 4 divided), one each too.
func TestInstancesHoldTheWholePolicyOrAShare(t *testing.T) {
	for _, tc := range []struct {
		name      string
		limit     int64
		instances int
		per       PerInstance
		want      int64
	}{
		{"one shared", 1, 1, InstanceWhole, 1},
		{"4 of the whole", 1, 4, InstanceWhole, 4},
		{"4 of a share", 4, 4, InstanceShare, 4},
		{"one shared of 4", 4, 1, InstanceWhole, 4},
	} {
		p := algorithms.Policy{Limit: tc.limit, Period: time.Hour, Burst: tc.limit}
		l := lane(tc.name, algorithms.TokenBucketName)
		l.Instances, l.PerInstance = tc.instances, tc.per
		cfg := newConfig(p, time.Second, []LaneConfig{l}, Client{Name: "c", Pattern: Bursts{[]Burst{{At: 0, Count: 8}}}})
		ms, _ := runRows(t, cfg)
		if ms[0].Accepted != tc.want {
			t.Errorf("%s: accepted %d of 8, want %d", tc.name, ms[0].Accepted, tc.want)
		}
	}
}

// Round robin gives each instance its turn; a weighted balancer draws in the
// weights' shares: 3 to 1, so the busier of two instances admits about 1.5
// times the mean.
func TestBalancers(t *testing.T) {
	p := algorithms.Policy{Limit: 4000, Period: time.Hour, Burst: 4000} // room for all, on each instance
	rr, weighted, random := lane("rr", algorithms.TokenBucketName), lane("weighted", algorithms.TokenBucketName), lane("random", algorithms.TokenBucketName)
	rr.Instances, weighted.Instances, random.Instances = 2, 2, 2
	weighted.Balance, weighted.Weights = BalanceWeighted, []int{3, 1}
	random.Balance = BalanceRandom
	cfg := newConfig(p, time.Second, []LaneConfig{rr, weighted, random}, Client{Name: "c", Pattern: Bursts{[]Burst{{At: 0, Count: 4000}}}})
	ms, rows := runRows(t, cfg)
	if got := ms[0].ShardImbalance; got != 1 {
		t.Errorf("round robin: the busiest instance admitted %g× the mean, want 1 (2000 each)", got)
	}
	if got := ms[1].ShardImbalance; got < 1.45 || got > 1.55 {
		t.Errorf("weighted 3:1: the busiest instance admitted %g× the mean, want about 1.5", got)
	}
	if got := ms[2].ShardImbalance; got < 1 || got > 1.05 {
		t.Errorf("random: the busiest instance admitted %g× the mean, want about 1", got)
	}
	turns := []int32{}
	for _, r := range rows {
		if r.Lane == 0 && len(turns) < 4 {
			turns = append(turns, r.Shard)
		}
	}
	if want := []int32{0, 1, 0, 1}; len(turns) != 4 || turns[0] != want[0] || turns[1] != want[1] || turns[2] != want[2] || turns[3] != want[3] {
		t.Errorf("round robin sent the first four to instances %v, want %v", turns, want)
	}
}
