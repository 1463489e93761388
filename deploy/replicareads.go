package deploy

import (
	"fmt"
	"time"

	"ratelab/algorithms"
)

// replicaReads is the ReplicaReads protocol: GitHub's replicated limiter
// (github.blog, "How we scaled the GitHub API with a sharded, replicated rate
// limiter in Redis", 2021): a key's count is read from a replica, and a
// request the count allows is added to the count on the primary, which
// replicates it to the replica ReplicaLag later (replica.go). Reads and
// writes are two calls to two servers, so every request admitted within the
// lag of the one that reached the limit reads a count that has not reached it
// yet: they pass it, by as many as arrive in the lag and the write's way to
// the primary.
//
// A request reaches instance i at now; its read reaches the replica at now +
// Latency and is decided there as the algorithm's Check (the count as the
// replica has it: every write at or before now + Latency − ReplicaLag); the
// answer is back at now + 2·Latency, when the instance sends the write, which
// the primary applies at now + 3·Latency as an Add (an INCRBY: it counts
// whatever the limit). The algorithm must be a Counter (fixed window, sliding
// counter): a count a write can add to without deciding.
//
// Not modelled: the reset time a client is told read from the replica's TTL
// (the "wobble" GitHub reported, of a whole second); one replica serves every
// read (several replicas lagging apart would each read its own count).
type replicaReads struct {
	d   *Deployment
	rep *replicated
}

func newReplicaReads(d *Deployment) (*replicaReads, error) {
	probe, err := d.cfg.New()
	if err != nil {
		return nil, err
	}
	if _, ok := probe.(algorithms.Counter); !ok {
		return nil, fmt.Errorf("sync %q reads a count from a replica and adds to it on the primary: the %s keeps no count a write can add to; use one of %v", ReplicaReads, probe.Algorithm(), algorithms.Counters())
	}
	rep, err := newReplicated(d.cfg.ReplicaLag, d.cfg.Failovers, d.cfg.New, func(lim algorithms.Limiter, w write) { lim.(algorithms.Counter).Add(w.key, w.at, w.cost) })
	if err != nil {
		return nil, err
	}
	return &replicaReads{d: d, rep: rep}, nil
}

func (p *replicaReads) decide(_ int, key string, now time.Duration, cost int64) (algorithms.Decision, time.Duration) {
	lat := p.d.cfg.Latency
	p.d.stats.StoreCalls++ // the read
	p.rep.catchUp(now + lat)
	dec := p.rep.replica.(algorithms.Checker).Check(key, now+lat, cost)
	if dec.Allowed {
		p.d.stats.StoreCalls++ // the write
		p.rep.write(write{key, now + 3*lat, cost})
	}
	return dec, 2 * lat
}

func (p *replicaReads) scale(time.Duration, int, int) {}

// restart: an instance keeps nothing; the store keeps every count.
func (p *replicaReads) restart(time.Duration, int) {}

// level is the primary's count, with every write sent by now.
func (p *replicaReads) level(key string, now time.Duration) float64 {
	return p.rep.primary.Level(key, now)
}

func (p *replicaReads) forget() { p.rep.forget() }

func (p *replicaReads) failover(now time.Duration) { p.rep.failover(now) }
