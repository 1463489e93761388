package sim

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/deploy"
)

// The consistent-hashing ring sends one key to one instance, and a fourth
// member takes only keys: none moves between the three that stay.
func TestHashRingMovesOnlyTheNewMembersKeys(t *testing.T) {
	r3, r4 := newRing(3), newRing(4)
	moved, seen := 0, map[int]bool{}
	for i := range 3000 {
		key := "user-" + time.Duration(i).String()
		a, b := r3.pick(key), r4.pick(key)
		seen[a] = true
		if r3.pick(key) != a {
			t.Fatalf("key %s: two picks, two instances", key)
		}
		if a != b {
			moved++
			if b != 3 {
				t.Fatalf("key %s moved from %d to %d, not to the new member", key, a, b)
			}
		}
	}
	if len(seen) != 3 || moved < 450 || moved > 1050 {
		t.Errorf("owners %v, %d of 3000 keys moved to the fourth member; want all three used and about a quarter moved", seen, moved)
	}
}

// A deployed lane scales at its change: a local deployment of a burst of 1 per
// instance accepts one request per member of each burst sent to every member
// in turn; sticky keeps one client on one instance (one accepted of each
// burst) until its instance is removed.
func TestDeployedLaneScales(t *testing.T) {
	p := algorithms.Policy{Limit: 1, Period: time.Hour, Burst: 1}
	rr, sticky := lane("rr", algorithms.TokenBucketName), lane("sticky", algorithms.TokenBucketName)
	for _, l := range []*LaneConfig{&rr, &sticky} {
		l.Instances, l.Deploy = 2, DeployConfig{On: true, Sync: deploy.Local, Most: 4}
	}
	sticky.Balance = BalanceSticky
	cfg := newConfig(p, 3*time.Second, []LaneConfig{rr, sticky}, Client{Name: "c", Pattern: Bursts{[]Burst{{At: 0, Count: 8}, {At: 2 * time.Second, Count: 8}}}})
	cfg.Inputs = []Input{{At: time.Second, Kind: InputScale, Lane: 0, Instances: 4}, {At: time.Second, Kind: InputScale, Lane: 1, Instances: 4}}
	ms, _ := runRows(t, cfg)
	// round robin: 2 at first (one a member), then the two new members' 2
	if ms[0].Accepted != 4 || ms[0].Instances != 4 {
		t.Errorf("round robin: accepted %d on %d instances, want 4 on 4", ms[0].Accepted, ms[0].Instances)
	}
	// sticky: the client's instance, then nothing: it stays there
	if ms[1].Accepted != 1 {
		t.Errorf("sticky: accepted %d, want 1", ms[1].Accepted)
	}
	// the ideal (one bucket of 1) admits one: the round robin lane 3 beyond it
	if ms[0].OvershootUnits != 3 || ms[0].IdealAccepted != 1 || ms[1].OvershootUnits != 0 {
		t.Errorf("overshoot %d (ideal %d), sticky %d; want 3 (1), 0", ms[0].OvershootUnits, ms[0].IdealAccepted, ms[1].OvershootUnits)
	}
}

// A store outage takes away a deployment's store (central), not the memory of
// instances that keep their own (local): the local lane decides on, the
// central one leaves every decision of the outage to on_error.
func TestOutagesTakeOnlyAStore(t *testing.T) {
	p := algorithms.Policy{Limit: 100, Period: time.Second, Burst: 100}
	local, central := lane("local", algorithms.TokenBucketName), lane("central", algorithms.TokenBucketName)
	local.Instances, local.Deploy = 2, DeployConfig{On: true, Sync: deploy.Local, Most: 2}
	central.Instances, central.Deploy = 2, DeployConfig{On: true, Sync: deploy.Central, Most: 2}
	cfg := newConfig(p, 2*time.Second, []LaneConfig{local, central}, Client{Name: "c", Pattern: Bursts{[]Burst{{At: 1500 * time.Millisecond, Count: 10}}}})
	cfg.Inputs = []Input{{At: time.Second, Kind: InputStore, Store: StoreDown}}
	ms, _ := runRows(t, cfg)
	if ms[0].StoreErrors != 0 || ms[0].Accepted != 10 {
		t.Errorf("local: %d store errors, %d accepted; want 0 and 10", ms[0].StoreErrors, ms[0].Accepted)
	}
	if ms[1].StoreErrors != 10 || ms[1].Accepted != 0 {
		t.Errorf("central: %d store errors, %d accepted; want 10 (on_error closed) and 0", ms[1].StoreErrors, ms[1].Accepted)
	}
}

// A deployed lane's samples carry what its ideal admitted (summing to the
// metric) and its membership at each tick's end; the last tick's admissions
// per instance are one number a member.
func TestDeployedSamplesCarryTheIdealAndTheMembership(t *testing.T) {
	p := algorithms.Policy{Limit: 10, Period: time.Second, Burst: 10}
	l := lane("local", algorithms.TokenBucketName)
	l.Instances, l.Deploy = 2, DeployConfig{On: true, Sync: deploy.Local, Most: 5}
	cfg := newConfig(p, 4*time.Second, []LaneConfig{l, lane("plain", algorithms.TokenBucketName)}, Client{Name: "c", Pattern: Poisson{Rate: 50}})
	cfg.Inputs = []Input{{At: 2 * time.Second, Kind: InputScale, Lane: 0, Instances: 5}}
	r, err := NewRun(cfg, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	var ideal int64
	for _, s := range r.Lanes[0].Series() {
		ideal += s.IdealAccepted
		if want := map[bool]int{true: 2, false: 5}[s.At <= 2*time.Second]; s.Members != want {
			t.Fatalf("the sample ending %s has %d members, want %d", s.At, s.Members, want)
		}
	}
	if m := r.Metrics()[0]; ideal != m.IdealAccepted || ideal == 0 {
		t.Errorf("the samples' ideal admissions sum to %d, the metric is %d", ideal, m.IdealAccepted)
	}
	if got := r.Lanes[0].LastTickByInstance(); len(got) != 5 {
		t.Errorf("the last tick's admissions by instance: %v, want 5 numbers", got)
	}
	for _, s := range r.Lanes[1].Series() {
		if s.IdealAccepted != 0 || s.Members != 0 {
			t.Fatalf("a plain lane's sample carries a deployment's figures: %+v", s)
		}
	}
	if r.Lanes[1].LastTickByInstance() != nil {
		t.Error("a plain lane has admissions by instance")
	}
}

// A weighted deployment sends each instance its share of the attempts:
// weights 1 and 3, a quarter and three quarters.
func TestWeightedDeploymentFollowsItsWeights(t *testing.T) {
	p := algorithms.Policy{Limit: 1000, Period: time.Second, Burst: 1000}
	l := lane("weighted", algorithms.TokenBucketName)
	l.Instances, l.Balance, l.Weights, l.Deploy = 2, BalanceWeighted, []int{1, 3}, DeployConfig{On: true, Sync: deploy.Local, Most: 2}
	cfg := newConfig(p, 10*time.Second, []LaneConfig{l}, Client{Name: "c", Pattern: Poisson{Rate: 400}})
	_, rows := runRows(t, cfg)
	var on [2]int
	for _, r := range rows {
		on[r.Shard]++
	}
	if share := float64(on[1]) / float64(len(rows)); share < 0.72 || share > 0.78 {
		t.Errorf("instance 1 got %d of %d attempts (%.3f), want about three quarters", on[1], len(rows), share)
	}
}
