package deploy

import (
	"testing"
	"time"
)

// A rolling restart's step replaces an instance with an empty one in its
// slot: a local instance's spent bucket is full again (the others' stay
// spent); a HAProxy peer's table is empty and a push to the one replaced,
// still on its way, finds another there and is dropped; a central store keeps
// every count.
func TestRestartStartsAnInstanceEmpty(t *testing.T) {
	ms := time.Millisecond
	loc := mustNew(t, Config{Protocol: Local, Instances: 2, New: tokenBucket(1, time.Hour, 2)})
	run(t, loc, []step{{0, 0, "k", 2, true, 0}, {0, 1, "k", 2, true, 0}})
	if err := loc.Restart(ms, []int{1}); err != nil {
		t.Fatal(err)
	}
	run(t, loc, []step{{2 * ms, 0, "k", 1, false, -1}, {2 * ms, 1, "k", 2, true, 0}})
	if err := loc.Restart(ms, []int{2}); err == nil {
		t.Error("restarting instance 2 of 2 members was taken")
	}

	peers := mustNew(t, Config{Protocol: HAProxyPeers, Instances: 2, Latency: 10 * ms, New: haproxy100()})
	p := peers.proto.(*haproxyPeers)
	for i := range 4 {
		peers.Decide(0, "k", time.Duration(i)*ms, 1)
	}
	if err := peers.Restart(5*ms, []int{1}); err != nil { // A's pushes reach B from 10 ms: the new B
		t.Fatal(err)
	}
	peers.runTimers(100 * ms)
	if s, ok := p.instances[1].Entry("k", 100*ms); ok {
		t.Errorf("pushes sent to the instance replaced reached the new one: %+v", s)
	}

	central := mustNew(t, Config{Protocol: Central, Instances: 2, New: fixedWindow(2, time.Hour)})
	run(t, central, []step{{0, 0, "k", 1, true, -1}, {0, 1, "k", 1, true, -1}})
	if err := central.Restart(ms, []int{0, 1}); err != nil {
		t.Fatal(err)
	}
	run(t, central, []step{{2 * ms, 0, "k", 1, false, -1}})
}
