package deploy

import (
	"time"

	"ratelab/algorithms"
)

// share is the Share protocol, Envoy's local_cluster_rate_limit: each
// instance keeps a bucket of the whole policy and a request costs it
// cost × the membership the instance last saw (Envoy's atomic token bucket
// consumes hits_addend / share_factor tokens, share_factor = 1 / the hosts of
// the local cluster: envoyproxy/envoy,
// source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc —
// see docs/peers.md for the commit). Together the members admit the policy
// while each sees the true membership and the balancer is even.
//
// An instance sees a change SeenAfter after it (the control plane's
// propagation); until then it divides by the membership it saw. Its bucket is
// not rebuilt when its share changes: only the cost of the next request does.
// A new instance starts full, seeing the membership of its start.
type share struct {
	d         *Deployment
	instances []algorithms.Limiter
	seen      []int64 // the membership each instance divides by
}

func newShare(d *Deployment) (*share, error) {
	p := &share{d: d, instances: make([]algorithms.Limiter, d.cfg.Most), seen: make([]int64, d.cfg.Most)}
	for i := range d.members {
		if err := p.fresh(i); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *share) fresh(i int) error {
	lim, err := p.d.cfg.New()
	if err != nil {
		return err
	}
	p.instances[i], p.seen[i] = lim, int64(p.d.members)
	return nil
}

func (p *share) decide(inst int, key string, now time.Duration, cost int64) (algorithms.Decision, time.Duration) {
	return p.instances[inst].Allow(key, now, cost*p.seen[inst]), 0
}

func (p *share) scale(now time.Duration, before, n int) {
	for i := n; i < before; i++ {
		p.instances[i] = nil
	}
	for i := before; i < n; i++ {
		_ = p.fresh(i)
	}
	survivors := min(before, n)
	see := func(time.Duration) { // the survivors see n, those still members
		for i := range min(survivors, p.d.members) {
			p.seen[i] = int64(n)
		}
	}
	if p.d.cfg.SeenAfter == 0 {
		see(now)
		return
	}
	p.d.after(now+p.d.cfg.SeenAfter, see)
}

// restart gives instance i a new, full bucket, dividing by the membership
// now.
func (p *share) restart(_ time.Duration, i int) { _ = p.fresh(i) }

// level is the requests the members have room for together: each one's
// tokens over the share it charges.
func (p *share) level(key string, now time.Duration) float64 {
	var sum float64
	for i, lim := range p.instances[:p.d.members] {
		sum += lim.Level(key, now) / float64(p.seen[i])
	}
	return sum
}

func (p *share) forget() {}

// failover: the instances keep their state in their own memory.
func (p *share) failover(time.Duration) {}
