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
// Not modelled: the scheduler's hops before the applet sends (a push is
// sent at the touch's instant), 200 messages a wakeup, resync on
// reconnection, shards.
type haproxyPeers struct {
	d         *Deployment
	instances []*algorithms.HAProxy
	sent      map[pushKey]*algorithms.HAProxyState // pushes in flight sent at sentAt
	sentAt    time.Duration
}

type pushKey struct {
	from int
	key  string
}

func newHAProxyPeers(d *Deployment) (protocol, error) {
	p := &haproxyPeers{d: d, instances: make([]*algorithms.HAProxy, d.cfg.Most), sent: map[pushKey]*algorithms.HAProxyState{}}
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
	after, ok := h.Entry(key, now)
	if ok && after != before {
		p.push(inst, key, after, now)
	}
	return d, 0
}

// push sends instance from's entry for key to every other member, once per
// instant.
func (p *haproxyPeers) push(from int, key string, s algorithms.HAProxyState, now time.Duration) {
	if now != p.sentAt {
		clear(p.sent)
		p.sentAt = now
	}
	pk := pushKey{from, key}
	if msg, ok := p.sent[pk]; ok {
		*msg = s // the message not yet arrived carries the entry as it is now
		return
	}
	msg := &s
	if p.d.cfg.Latency > 0 {
		p.sent[pk] = msg
	}
	p.d.sendOthers(from, now, func(to int, arrival time.Duration) {
		p.instances[to].Receive(key, *msg, now, arrival)
	})
}

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
