package deploy

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

// guberDeployment is GLOBAL over n peers with a policy of limit hits per
// duration, syncing every 50 ms (Gubernator's test cluster's GlobalSyncWait),
// and the owner of key "k" and the other peers, in order.
func guberDeployment(t *testing.T, n int, limit int64, duration time.Duration, pre bool) (d *Deployment, owner int, others []int) {
	t.Helper()
	proto := GubernatorGlobal
	if pre {
		proto = GubernatorGlobalPre219
	}
	d = mustNew(t, Config{Protocol: proto, Instances: n, SyncWait: 50 * time.Millisecond, Name: "test",
		New: func() (algorithms.Limiter, error) {
			return algorithms.NewGubernator(algorithms.Policy{Limit: limit, Period: duration}), nil
		}})
	owner = d.proto.(*gubernator).ring.owner("test_k")
	for i := range n {
		if i != owner {
			others = append(others, i)
		}
	}
	return d, owner, others
}

// settled is long enough after a request for its hits to reach the owner and the
// owner's broadcast to reach every peer (two waits, no latency).
const settled = 2*50*time.Millisecond + time.Millisecond

// Gubernator's own functional tests of GLOBAL (functional_test.go at
// v2.13.0), step by step: what each peer answers before and after the syncs.
func TestGubernatorGlobalAsItsFunctionalTests(t *testing.T) {
	t.Run("TestGlobalRateLimits", func(t *testing.T) {
		d, _, p := guberDeployment(t, 6, 5, 3*time.Minute, false)
		run(t, d, []step{
			{0, p[0], "k", 1, true, 4},
			{0, p[0], "k", 2, true, 2},
			{settled, p[1], "k", 0, true, 2},
			{settled, p[2], "k", 0, true, 2},
			{settled, p[3], "k", 2, true, 0},
			{2 * settled, p[4], "k", 1, false, 0},
		})
	})
	t.Run("TestGlobalRateLimitsWithLoadBalancing", func(t *testing.T) {
		d, owner, p := guberDeployment(t, 6, 2, time.Minute, false)
		steps := []step{{0, owner, "k", 1, true, 1}, {0, p[0], "k", 1, true, 1}}
		for i := 2; i < 10; i++ {
			steps = append(steps, step{settled + time.Duration(i)*time.Millisecond, []int{owner, p[0]}[i%2], "k", 1, false, 0})
		}
		run(t, d, steps)
	})
	t.Run("TestGlobalRateLimitsPeerOverLimit", func(t *testing.T) {
		d, _, p := guberDeployment(t, 6, 2, time.Minute, false)
		run(t, d, []step{
			{0, p[0], "k", 1, true, 1},
			{0, p[0], "k", 1, true, 0},
			{settled, p[0], "k", 1, false, 0},
			{2 * settled, p[0], "k", 0, false, 0},
		})
	})
	t.Run("TestGlobalBehavior", func(t *testing.T) {
		for _, k := range []int64{1, 10} {
			d, owner, p := guberDeployment(t, 6, 1000, time.Minute, false)
			for i := range k {
				run(t, d, []step{{0, p[0], "k", 1, true, 999 - i}})
			}
			for _, peer := range append([]int{owner}, p...) {
				run(t, d, []step{{settled, peer, "k", 0, true, 1000 - k}})
			}
			if got := d.Stats().Messages; got != 1+5 { // one send of hits, one broadcast to 5 peers
				t.Errorf("%d hits: %d messages, want 6", k, got)
			}
		}
	})
}

// Before PR #219 a peer answered the owner's broadcast as it was: a Hits = 0
// status of UNDER_LIMIT with Remaining 0 lets every later hit through until
// the owner refuses one itself (mailgun/gubernator#208).
func TestGubernatorPre219AnswersTheBroadcastAsItIs(t *testing.T) {
	d, _, p := guberDeployment(t, 3, 2, time.Minute, true)
	steps := []step{{0, p[0], "k", 1, true, 1}, {0, p[0], "k", 1, true, 0}}
	for i := range 20 {
		steps = append(steps, step{settled + time.Duration(i)*time.Millisecond, p[0], "k", 1, true, 0})
	}
	run(t, d, steps)
	// v2.13.0: the copy is taken from, so the third hit is refused
	d, _, p = guberDeployment(t, 3, 2, time.Minute, false)
	run(t, d, []step{{0, p[0], "k", 1, true, 1}, {0, p[0], "k", 1, true, 0}, {settled, p[0], "k", 1, false, 0}})
}

// The ring is Gubernator's: a key's owner is one member, and adding a member
// moves only the keys it takes.
func TestGubernatorRingMovesOnlyTheNewMembersKeys(t *testing.T) {
	addrs := []string{"127.0.0.1:9990", "127.0.0.1:9991", "127.0.0.1:9992"}
	r3, r4 := newGuberRing(addrs), newGuberRing(append(addrs, "127.0.0.1:9993"))
	moved, seen := 0, map[int]bool{}
	for i := range 2000 {
		k := "n_" + string(rune('a'+i%26)) + time.Duration(i).String()
		a, b := r3.owner(k), r4.owner(k)
		seen[a] = true
		if a != b {
			moved++
			if b != 3 {
				t.Fatalf("key %s moved from %d to %d, not to the new member", k, a, b)
			}
		}
	}
	if len(seen) != 3 || moved < 300 || moved > 700 {
		t.Errorf("owners %v, %d of 2000 keys moved to the fourth member; want all three owning and about a quarter moved", seen, moved)
	}
}
