package deploy

import "ratelab/algorithms"

// State is what a deployment holds at one moment, summed over every holder of
// state — its instances' limiters, caches and counters, and its store's (with
// its replica) — each counted as algorithms.Limiter counts its own (Keys and
// StateBytes: a key's name and the numbers kept for it, what a Redis port
// would store). A key held by three instances counts three times: three copies
// take three times the memory. Queued messages are in flight, not held, and
// are not counted.
type State struct {
	Keys  int
	Bytes int64
}

// State is what the deployment holds now (see State).
func (d *Deployment) State() State { return d.proto.state() }

// limiters is what the limiters in lims hold, together; a nil one (an
// instance slot not made, or let go) holds nothing.
func limiters[L algorithms.Limiter](lims []L) State {
	var s State
	var none L
	for _, lim := range lims {
		if any(lim) != any(none) {
			s.Keys += lim.Keys()
			s.Bytes += lim.StateBytes()
		}
	}
	return s
}

// plus is s and t together.
func (s State) plus(t State) State { return State{s.Keys + t.Keys, s.Bytes + t.Bytes} }

func (p *local) state() State { return limiters(p.instances) }

func (p *share) state() State { return limiters(p.instances) }

// state is the store's, or with a replica its primary's (the store) and the
// replica's.
func (p *central) state() State {
	if p.rep != nil {
		return p.rep.state()
	}
	return limiters([]algorithms.Limiter{p.store})
}

func (p *replicaReads) state() State { return p.rep.state() }

// state is what the primary and the replica hold.
func (r *replicated) state() State {
	return limiters([]algorithms.Limiter{r.primary, r.replica})
}

func (p *haproxyPeers) state() State { return limiters(p.instances) }

func (p *haproxyPeersSum) state() State {
	s := limiters(p.own)
	for _, copies := range p.copies {
		s = s.plus(limiters(copies))
	}
	return s
}

// state counts each peer's cache and, before PR #219, the broadcast statuses
// it kept (a key and three numbers each).
func (p *gubernator) state() State {
	var s State
	for _, peer := range p.peers {
		if peer == nil {
			continue
		}
		s = s.plus(limiters([]*algorithms.Gubernator{peer.cache}))
		s.Keys += len(peer.statuses)
		s.Bytes += peer.statusBytes + int64(len(peer.statuses))*guberStatusBytes
	}
	return s
}

// guberStatusBytes is a kept status's numbers: under, remaining, expireAt.
const guberStatusBytes = 3 * 8

// state counts Kong's counters in Redis and in each node's shared dictionary
// (the counts it read, and those it has yet to push). Each counter is a key of
// its own there, whose name holds the request's key, so each counts as a key
// with the key's bytes (algorithms.Kong, one store of its own, counts a key's
// name once for all its windows).
func (p *kongSync) state() State {
	s := p.redis.state()
	for _, a := range p.agents {
		if a != nil {
			s = s.plus(a.cached.state()).plus(a.delta.state())
		}
	}
	return s
}
