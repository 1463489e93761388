package deploy

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
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
	sent      map[pushKey]*algorithms.HAProxyState // pushes in flight sent at sentAt
	sentAt    time.Duration
	// apartTouched are the entries each instance touched during a partition.
	apartTouched map[pushKey]bool
}

type pushKey struct {
	from int
	key  string
}

func newHAProxyPeers(d *Deployment) (protocol, error) {
	p := &haproxyPeers{d: d, instances: make([]*algorithms.HAProxy, d.cfg.Most), sent: map[pushKey]*algorithms.HAProxyState{}, apartTouched: map[pushKey]bool{}}
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
		if p.d.partitioned(p.d.cut) {
			p.apartTouched[pushKey{inst, key}] = true
		}
	}
	return d, 0
}

// heal pushes, for each member, the entries it touched while apart to the
// members on the other side of the cut that was.
func (p *haproxyPeers) heal(now time.Duration, was []bool) {
	resumePushes(p.d, p.apartTouched, was, now,
		func(from int, key string) (algorithms.HAProxyState, bool) { return p.instances[from].Entry(key, now) },
		func(to, _ int, key string, entry algorithms.HAProxyState, arrival time.Duration) {
			p.instances[to].Receive(key, entry, now, arrival)
		})
}

// resumePushes is what HAProxy's peer sessions do when a partition heals:
// they reconnect and resume their pushes from the last update the other side
// acknowledged (init_connected_peer: last_pushed = update), so each member
// pushes every entry it touched while apart (touched, emptied once the
// deployment is whole again), as entry reads it now, to the members it is
// together with again (the partition healed, or moved); receive applies one
// at to. Every entry is read before any is sent: both
// sides push at once.
func resumePushes(d *Deployment, touched map[pushKey]bool, was []bool, now time.Duration,
	entry func(from int, key string) (algorithms.HAProxyState, bool),
	receive func(to, from int, key string, entry algorithms.HAProxyState, arrival time.Duration)) {
	keys := slices.SortedFunc(maps.Keys(touched), func(a, b pushKey) int {
		return cmp.Or(cmp.Compare(a.from, b.from), strings.Compare(a.key, b.key))
	})
	if !d.partitioned(d.cut) {
		clear(touched) // whole again: every pair has had them
	}
	type resume struct {
		pushKey
		entry algorithms.HAProxyState
	}
	var pushes []resume
	for _, pk := range keys {
		if pk.from >= d.members {
			continue // removed since
		}
		if e, ok := entry(pk.from, pk.key); ok {
			pushes = append(pushes, resume{pk, e})
		}
	}
	for _, r := range pushes {
		for to := range d.members {
			if d.rejoined(was, r.from, to) {
				d.send(r.from, to, now, func(arrival time.Duration) { receive(to, r.from, r.key, r.entry, arrival) })
			}
		}
	}
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
	if p.d.cfg.Latency > 0 || p.d.cfg.Jitter > 0 {
		p.sent[pk] = msg
	}
	p.d.sendOthers(from, now, func(to int, arrival time.Duration) {
		p.instances[to].Receive(key, *msg, now, arrival)
	})
}

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
