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
