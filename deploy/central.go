package deploy

import (
	"time"

	"ratelab/algorithms"
)

// central is the Central protocol: one limiter in a store every instance asks
// for each decision, a link's latency away. The store decides when the call
// reaches it (Latency after the request reached the instance) and the
// instance has the answer a round trip after the request arrived. Calls reach
// the store in the order they were made (one latency for every link), so the
// store's decisions are those of one limiter fed every request Latency late:
// exact, and only late. Membership does not matter to it; a flush loses its
// state.
//
// With a replica (Config.Replicated), the store replicates each decision's
// effect ReplicaLag late (replica.go) and a failover promotes the replica:
// the decisions of the last ReplicaLag are lost to the new primary. Without
// one, a failover is to a server that had nothing: a flush.
type central struct {
	d     *Deployment
	store algorithms.Limiter
	rep   *replicated // nil without a replica
}

func newCentral(d *Deployment) (*central, error) {
	if d.cfg.Replicated {
		rep, err := newReplicated(d.cfg.ReplicaLag, d.cfg.Failovers, d.cfg.New, func(lim algorithms.Limiter, w write) { lim.Allow(w.key, w.at, w.cost) })
		if err != nil {
			return nil, err
		}
		return &central{d: d, store: rep.primary, rep: rep}, nil
	}
	lim, err := d.cfg.New()
	if err != nil {
		return nil, err
	}
	return &central{d: d, store: lim}, nil
}

func (p *central) decide(_ int, key string, now time.Duration, cost int64) (algorithms.Decision, time.Duration) {
	p.d.stats.StoreCalls++
	lat := p.d.cfg.Latency
	dec := p.store.Allow(key, now+lat, cost)
	if p.rep != nil {
		p.rep.sent(write{key, now + lat, cost})
		p.rep.catchUp(now)
	}
	return dec, 2 * lat
}

func (p *central) scale(time.Duration, int, int) {}

// restart: an instance keeps nothing; the store keeps every count.
func (p *central) restart(time.Duration, int) {}

// level is the store's, as of the calls that have reached it by now.
func (p *central) level(key string, now time.Duration) float64 {
	return p.store.Level(key, now+p.d.cfg.Latency)
}

func (p *central) forget() {
	if p.rep != nil {
		p.rep.forget()
		return
	}
	forgetAll(p.store)
}

func (p *central) failover(now time.Duration) {
	if p.rep == nil {
		p.forget()
		return
	}
	p.rep.failover(now)
	p.store = p.rep.primary
}

// forgetAll loses every key of lim, when it can lose them.
func forgetAll(lim algorithms.Limiter) {
	if f, ok := lim.(algorithms.Forgetter); ok {
		f.ForgetAll()
	}
}
