package deploy

import (
	"time"

	"ratelab/algorithms"
)

// Evict forgets, at now, the keys whose state is what a new key gets (see
// algorithms.Limiter.Evict: no decision changes, provided no request comes at
// a time before now), where dropping one changes nothing else either: each
// instance's own limiter (local, share) and a store with no replica (central,
// its calls a latency after now). The other protocols keep every key they
// hold: a replica applies writes a lag late, HAProxy's peers and Gubernator's
// peers hold copies that pushes and broadcasts update, and Kong's counters
// are pruned by window (kongSync.dropOldWindows).
func (d *Deployment) Evict(now time.Duration) { d.proto.evict(now) }

func (p *local) evict(now time.Duration) { evictEach(p.instances, now) }

func (p *share) evict(now time.Duration) { evictEach(p.instances, now) }

// evictEach evicts, at now, each instance's limiter (nil: a slot not made).
func evictEach(instances []algorithms.Limiter, now time.Duration) {
	for _, lim := range instances {
		if lim != nil {
			lim.Evict(now)
		}
	}
}

func (p *central) evict(now time.Duration) {
	if p.rep == nil {
		p.store.Evict(now)
	}
}

func (p *replicaReads) evict(time.Duration)    {}
func (p *haproxyPeers) evict(time.Duration)    {}
func (p *haproxyPeersSum) evict(time.Duration) {}
func (p *gubernator) evict(time.Duration)      {}
func (p *kongSync) evict(time.Duration)        {}
