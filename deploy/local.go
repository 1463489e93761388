package deploy

import (
	"time"

	"ratelab/algorithms"
)

// local is the Local protocol: each instance a limiter of the whole policy of
// its own, told nothing of the others. An instance removed loses its state; one
// added (or added back) starts with a fresh limiter: a bucket full, a window
// empty — new pods start full.
type local struct {
	d         *Deployment
	instances []algorithms.Limiter // per instance; nil: not made yet
}

func newLocal(d *Deployment) (*local, error) {
	p := &local{d: d, instances: make([]algorithms.Limiter, d.cfg.Most)}
	for i := range d.members {
		if err := p.fresh(i); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// fresh gives instance i a new, empty limiter.
func (p *local) fresh(i int) error {
	lim, err := p.d.cfg.New()
	if err != nil {
		return err
	}
	p.instances[i] = lim
	return nil
}

func (p *local) decide(inst int, key string, now time.Duration, cost int64) (algorithms.Decision, time.Duration) {
	return p.instances[inst].Allow(key, now, cost), 0
}

func (p *local) scale(_ time.Duration, before, n int) {
	for i := n; i < before; i++ {
		p.instances[i] = nil // removed: its state goes with it
	}
	for i := before; i < n; i++ {
		_ = p.fresh(i) // New succeeded once with the same arguments
	}
}

// restart gives instance i a new, empty limiter.
func (p *local) restart(_ time.Duration, i int) { _ = p.fresh(i) }

// level is the sum of the members' levels: the units (or tokens) they hold
// together.
func (p *local) level(key string, now time.Duration) float64 {
	var sum float64
	for _, lim := range p.instances[:p.d.members] {
		sum += lim.Level(key, now)
	}
	return sum
}

func (p *local) forget() {}

// failover: the instances keep their state in their own memory.
func (p *local) failover(time.Duration) {}
