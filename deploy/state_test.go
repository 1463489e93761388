package deploy

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/algorithms"
)

// A deployment's state is every holder's, summed: N local instances asked
// about the same keys hold N copies; one central store holds one; HAProxy's
// peers, once they have pushed, hold every instance's entries in each; with
// one table per server (peers-sum) each member also holds a copy of every
// other's. Each copy costs what one limiter asked about the keys holds.
func TestStateSumsEveryHolder(t *testing.T) {
	keys := []string{"a", "bb", "ccc"}
	// what one limiter of each kind holds for the keys
	lone := func(t *testing.T, fresh func() (algorithms.Limiter, error)) State {
		lim, _ := fresh()
		for _, k := range keys {
			lim.Allow(k, 0, 1)
		}
		if lim.Keys() != len(keys) || lim.StateBytes() <= 0 {
			t.Fatalf("one limiter asked about %d keys holds %d keys, %d bytes", len(keys), lim.Keys(), lim.StateBytes())
		}
		return State{lim.Keys(), lim.StateBytes()}
	}
	times := func(s State, n int) State { return State{s.Keys * n, s.Bytes * int64(n)} }
	bucket, table := tokenBucket(10, time.Second, 10), haproxyAt(10)
	for _, tc := range []struct {
		name  string
		cfg   Config
		holds func(one State) State // given one limiter's state
	}{
		{"local", Config{Protocol: Local, Instances: 3, New: bucket}, func(one State) State { return times(one, 3) }},
		{"share", Config{Protocol: Share, Instances: 3, New: bucket}, func(one State) State { return times(one, 3) }},
		{"central", Config{Protocol: Central, Instances: 3, Latency: time.Millisecond, New: bucket}, func(one State) State { return one }},
		{"central, a replica", Config{Protocol: Central, Instances: 3, Latency: time.Millisecond, Replicated: true, ReplicaLag: time.Millisecond, New: bucket},
			func(one State) State { return times(one, 2) }},
		{"haproxy-peers", Config{Protocol: HAProxyPeers, Instances: 3, Latency: time.Millisecond, New: table}, func(one State) State { return times(one, 3) }},
		{"haproxy-peers-sum", Config{Protocol: HAProxyPeersSum, Instances: 3, Latency: time.Millisecond, New: table}, func(one State) State { return times(one, 3*3) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustNew(t, tc.cfg)
			if s := d.State(); s != (State{}) {
				t.Fatalf("a deployment asked nothing holds %+v", s)
			}
			for inst := range tc.cfg.Instances {
				for _, k := range keys {
					d.Decide(inst, k, 0, 1)
				}
			}
			d.Decide(0, "a", time.Second, 1) // every push and write made by now has landed
			if got, want := d.State(), tc.holds(lone(t, tc.cfg.New)); got != want {
				t.Errorf("%d instances asked about %d keys hold %+v, want %+v", tc.cfg.Instances, len(keys), got, want)
			}
		})
	}
}

// Kong's counters: one per key and window, in Redis and in each node's
// shared dictionary; a flush of Redis takes its own away, not the nodes'.
func TestStateCountsKongsCounters(t *testing.T) {
	d := kongDeployment(t, 2, 60, time.Second, false)
	d.Decide(0, "user", 0, 1)
	d.Decide(1, "user", 0, 1)
	d.Decide(0, "user", 2*time.Second, 1) // both nodes have pushed
	p := d.proto.(*kongSync)
	counters := len(p.redis.m)
	for _, a := range p.agents {
		counters += len(a.cached.m) + len(a.delta.m)
	}
	if len(p.redis.m) != 1 || counters < 3 {
		t.Fatalf("one key, one window, two nodes that pushed: %d counters in Redis, %d in all; the test assumes 1 and at least 3", len(p.redis.m), counters)
	}
	want := State{counters, int64(counters) * (int64(len("user")) + algorithms.KongCounterBytes)}
	if got := d.State(); got != want {
		t.Errorf("%d counters of key %q: state %+v, want %+v", counters, "user", got, want)
	}
	d.Forget()
	if got := d.State(); got.Keys != counters-1 {
		t.Errorf("a flush of Redis left %d counters, want %d (the nodes' own)", got.Keys, counters-1)
	}
}

// Gubernator: each peer's cache; a key asked at every peer is in every cache
// once the owner has broadcast it.
func TestStateCountsGubernatorsCaches(t *testing.T) {
	d, owner, others := guberDeployment(t, 3, 10, time.Second, false)
	d.Decide(owner, "k", 0, 1)
	for _, o := range others {
		d.Decide(o, "k", 0, 1)
	}
	d.Decide(owner, "k", time.Second, 1)
	var want State
	for _, peer := range d.proto.(*gubernator).peers {
		want.Keys += peer.cache.Keys()
		want.Bytes += peer.cache.StateBytes()
	}
	if want.Keys < 2 {
		t.Fatalf("after a broadcast only %d caches hold the key; the test assumes at least 2", want.Keys)
	}
	if got := d.State(); got != want {
		t.Errorf("state %+v, want the caches' %+v", got, want)
	}
}

// The bytes Kong's counters and Gubernator's kept statuses count as they come
// and go are those of the names they hold: after random requests over many
// keys (Redis's old windows pruned), flushes, restarts and membership changes,
// State is what a count over the maps gives.
func TestStateKeptAsCountersComeAndGo(t *testing.T) {
	recount := func(d *Deployment) State {
		var s State
		switch p := d.proto.(type) {
		case *kongSync:
			count := func(m map[kongCounter]int64) {
				for c := range m {
					s.Keys++
					s.Bytes += int64(len(c.key)) + algorithms.KongCounterBytes
				}
			}
			count(p.redis.m)
			for _, a := range p.agents {
				if a != nil {
					count(a.cached.m)
					count(a.delta.m)
				}
			}
		case *gubernator:
			for _, peer := range p.peers {
				if peer != nil {
					s.Keys += peer.cache.Keys() + len(peer.statuses)
					s.Bytes += peer.cache.StateBytes()
					for key := range peer.statuses {
						s.Bytes += int64(len(key)) + guberStatusBytes
					}
				}
			}
		}
		return s
	}
	kong := kongDeployment(t, 4, 50, 500*time.Millisecond, false)
	guber, _, _ := guberDeployment(t, 4, 50, time.Second, true)
	for _, d := range []*Deployment{kong, guber} {
		r := rand.New(rand.NewPCG(11, 12))
		now := time.Duration(0)
		for i := range 30_000 {
			now += time.Duration(r.IntN(4)) * time.Millisecond
			switch r.IntN(3000) {
			case 0:
				d.Forget()
			case 1:
				d.Restart(now, []int{r.IntN(d.Members())})
			case 2:
				d.Scale(now, 2+r.IntN(3))
			}
			d.Decide(r.IntN(d.Members()), fmt.Sprintf("key-%d", r.IntN(3000)), now, 1)
			if i%1000 == 999 {
				if got, want := d.State(), recount(d); got != want {
					t.Fatalf("%s, request %d: state %+v, counted over the maps %+v", d.cfg.Protocol, i, got, want)
				}
			}
		}
		if d.State().Keys == 0 {
			t.Errorf("%s: nothing held at the end; the check compared nothing", d.cfg.Protocol)
		}
	}
}
