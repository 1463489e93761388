package deploy

import (
	"fmt"
	"time"

	"ratelab/algorithms"
)

// haproxyPeers is HAProxy's peers section over its stick tables, exact to
// haproxy/haproxy at 50872daa (src/peers.c, src/stick_table.c;
// doc/configuration.txt §11.2: "The pushed values overwrite remote ones
// without aggregation"). Each instance counts its own requests in its own
// table (the haproxy lane), and each request that changes an entry
// (stktable_touch_local) pushes the whole entry, absolute, to every other
// member: there is no timer, so it is sent at once and arrives a link's
// latency later (several touches at one instant are one message). The
// receiver overwrites its entry (algorithms.HAProxy.Receive) and does not
// pass it on. Increments made on two instances between pushes are lost: the
// effective limit is the policy's when requests for a key are further apart
// than the latency, and tends to N times it when they crowd.
//
// A partition loses the pushes across it; when it heals, the peer sessions
// reconnect and each side resumes its pushes from the last update the other
// acknowledged (init_connected_peer: last_pushed = update), so each instance
// pushes every entry it touched while apart, as it is then, across the old
// cut.
//
// Not modelled: the scheduler's hops before the applet sends (a push is
// sent at the touch's instant), 200 messages a wakeup, the time a peer takes
// to notice a dead session and to reconnect (heartbeat 3 s, reconnect 5 s:
// the pushes resume when the partition heals), the full resync of a reload,
// shards.
type haproxyPeers struct {
	d         *Deployment
	instances []*algorithms.HAProxy
	pushes    *peerPushes
}

func newHAProxyPeers(d *Deployment) (protocol, error) {
	p := &haproxyPeers{d: d, instances: make([]*algorithms.HAProxy, d.cfg.Most)}
	p.pushes = newPeerPushes(d, func(from int) *algorithms.HAProxy { return p.instances[from] },
		func(to, _ int) *algorithms.HAProxy { return p.instances[to] })
	for i := range d.members {
		if err := p.fresh(i); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *haproxyPeers) fresh(i int) error {
	lim, err := p.d.cfg.New()
	if err != nil {
		return err
	}
	h, ok := lim.(*algorithms.HAProxy)
	if !ok {
		return fmt.Errorf("sync %q is HAProxy's: it needs HAProxy's lane (got %s)", HAProxyPeers, lim.Algorithm())
	}
	p.instances[i] = h
	return nil
}

func (p *haproxyPeers) decide(inst int, key string, now time.Duration, cost int64) (algorithms.Decision, time.Duration) {
	h := p.instances[inst]
	before, _ := h.Entry(key, now)
	d := h.Allow(key, now, cost)
	p.pushes.touched(inst, key, before, now)
	return d, 0
}

// heal pushes what the members touched while apart (peerPushes.heal).
func (p *haproxyPeers) heal(now time.Duration, was []bool) { p.pushes.heal(now, was) }

// restart gives instance i an empty table (its peers' pushes fill it again).
func (p *haproxyPeers) restart(_ time.Duration, i int) { _ = p.fresh(i) }

func (p *haproxyPeers) scale(_ time.Duration, before, n int) {
	for i := n; i < before; i++ {
		p.instances[i] = nil
	}
	for i := before; i < n; i++ {
		_ = p.fresh(i)
	}
}

// level is the rate the busiest member reads for key.
func (p *haproxyPeers) level(key string, now time.Duration) float64 {
	var most float64
	for _, h := range p.instances[:p.d.members] {
		most = max(most, h.Level(key, now))
	}
	return most
}

func (p *haproxyPeers) forget() {}

// failover: the instances keep their state in their own memory.
func (p *haproxyPeers) failover(time.Duration) {}
