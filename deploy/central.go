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
type central struct {
	d     *Deployment
	store algorithms.Limiter
}

func newCentral(d *Deployment) (*central, error) {
	lim, err := d.cfg.New()
	if err != nil {
		return nil, err
	}
	return &central{d: d, store: lim}, nil
}

func (p *central) decide(_ int, key string, now time.Duration, cost int64) (algorithms.Decision, time.Duration) {
	p.d.stats.StoreCalls++
	lat := p.d.cfg.Latency
	return p.store.Allow(key, now+lat, cost), 2 * lat
}

func (p *central) scale(time.Duration, int, int) {}

// level is the store's, as of the calls that have reached it by now.
func (p *central) level(key string, now time.Duration) float64 {
	return p.store.Level(key, now+p.d.cfg.Latency)
}

func (p *central) forget() {
	if f, ok := p.store.(algorithms.Forgetter); ok {
		f.ForgetAll()
	}
}
