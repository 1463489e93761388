package deploy

import (
	"testing"
	"time"
)

// One table per server, the rates added: with no latency the members admit
// exactly the policy (10 of 30 requests round robin over three, each table
// counting its own and reading the others' at once); with pushes 5 ms long
// and a request every millisecond, a member reads the others' counts up to
// 5 ms late, so it admits at most the requests of that span beyond the
// policy, where a shared table whose pushes overwrite loses whole counts.
func TestHAProxyPeersSumAddsTheTables(t *testing.T) {
	admitted := func(proto Protocol, latency time.Duration) int {
		d := mustNew(t, Config{Protocol: proto, Instances: 3, Latency: latency, New: haproxyAt(10)})
		n := 0
		for i := range 30 {
			if got, _ := d.Decide(i%3, "k", time.Duration(i)*time.Millisecond, 1); got.Allowed {
				n++
			}
		}
		return n
	}
	if n := admitted(HAProxyPeersSum, 0); n != 10 {
		t.Errorf("summed tables, no latency: %d admitted, want 10", n)
	}
	sum, shared := admitted(HAProxyPeersSum, 5*time.Millisecond), admitted(HAProxyPeers, 5*time.Millisecond)
	if sum < 10 || sum > 10+5 || shared <= sum {
		t.Errorf("links of 5 ms: summed tables admitted %d (want 10 to 15), a shared table %d (want more)", sum, shared)
	}
	t.Logf("links of 5 ms, a request a ms: summed %d, shared %d", sum, shared)
}
