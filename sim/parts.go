package sim

import (
	"ratelab/algorithms"
)

// Part is one of a lane's limiters for one tier: the whole lane, one of its
// shards, or one of its limits. Each holds state of its own, under keys of its
// own (on Redis, the shard is in the keys' hash tag so shards spread over a
// cluster's slots).
type Part struct {
	Tier  int
	Shard int // its index among the lane's shards; -1 when not a shard
	Limit int // its index among the lane's limits; -1 when not one of several
	// Algorithm, Policy and Options are what this limiter enforces; Template
	// names its keys from the request's.
	Algorithm algorithms.Name
	Policy    algorithms.Policy
	Options   algorithms.Options
	Template  algorithms.KeyTemplate
}

// Sharded says the lane splits its limit into shards.
func (l LaneConfig) Sharded() bool { return l.Shards > 1 }

// MultiLimit says the lane holds each request to several limits.
func (l LaneConfig) MultiLimit() bool { return len(l.Limits) > 0 }

// Balanced says the lane's limit is kept per instance behind a load balancer.
func (l LaneConfig) Balanced() bool { return l.Instances > 1 || l.Deployed() }

// Pieces is how many limiters the lane's limit is kept in, one of which decides
// each request: its shards, or its instances; 1 otherwise.
func (l LaneConfig) Pieces() int {
	switch {
	case l.Sharded():
		return l.Shards
	case l.Deployed():
		return max(l.Instances, l.Deploy.Most)
	case l.Balanced():
		return l.Instances
	}
	return 1
}

// Composite says a decision of the lane calls more than one limiter: it is
// sharded, kept per instance, or holds several limits. A deployed lane is not:
// its deployment decides (deployed.go).
func (l LaneConfig) Composite() bool {
	return (l.Pieces() > 1 && !l.Deployed()) || l.MultiLimit()
}

// Parts are the lane's limiters for tier t, in the order a decision names them:
// the lane itself, its shards or its instances (piece i's policy is
// PiecePolicy's; Shard is the piece), or its limits as listed.
func (l LaneConfig) Parts(cfg *Config, t int) []Part {
	p := l.TierPolicy(cfg, t)
	switch {
	case l.Pieces() > 1:
		parts := make([]Part, l.Pieces())
		for i := range parts {
			pp, o := l.PiecePolicy(cfg, t, i)
			parts[i] = Part{Tier: t, Shard: i, Limit: -1, Algorithm: l.Algorithm, Policy: pp, Options: o}
		}
		return parts
	case l.MultiLimit():
		parts := make([]Part, len(l.Limits))
		for i, lim := range l.Limits {
			parts[i] = Part{Tier: t, Shard: -1, Limit: i, Algorithm: lim.Algorithm, Policy: lim.Policy.WithDefaults(), Options: lim.Options, Template: lim.Template}
		}
		return parts
	}
	return []Part{{Tier: t, Shard: -1, Limit: -1, Algorithm: l.Algorithm, Policy: p, Options: l.Options}}
}

// order is the limits' order for client c: Orders[c], or as listed.
func (l LaneConfig) order(c int) []int {
	if c < len(l.Orders) && l.Orders[c] != nil {
		return l.Orders[c]
	}
	out := make([]int, len(l.Limits))
	for i := range out {
		out[i] = i
	}
	return out
}

// buildParts builds the lane's limiters for tier t (see LaneConfig.Parts); a
// composite lane's become a Set.
func (l *Lane) buildParts(index, t int, store StateStore) error {
	parts := l.Config.Parts(l.cfg, t)
	lims := make([]algorithms.Limiter, len(parts))
	for i, part := range parts {
		lim, health, err := store.Limiter(index, l.Config, part)
		if err != nil {
			return err
		}
		if health != nil {
			l.health = append(l.health, health)
		}
		lims[i] = lim
		l.evictEvery = max(l.evictEvery, part.Policy.Period)
	}
	l.limiters = append(l.limiters, lims...)
	if l.Config.Composite() {
		set, err := algorithms.NewSet(lims)
		if err != nil {
			return err
		}
		l.sets = append(l.sets, set)
		if n := l.Config.Pieces(); n > 1 && t == 0 {
			l.rec.shardUnits = make([]int64, n)
		}
	}
	return nil
}

// level is key k's level at now, for the graphs: its limiter's; the sum of a
// sharded lane's shards, or of the instances (the tokens, or units in the
// window, of them all); a multi-limit lane's first limit's.
func (l *Lane) level(k Key) float64 {
	if l.Config.Deployed() {
		return l.deployed.tiers[k.Tier].Level(k.Name, l.now)
	}
	if !l.Config.Composite() {
		return l.limiters[k.Tier].Level(k.Name, l.now)
	}
	parts := l.sets[k.Tier].Parts()
	if l.Config.MultiLimit() {
		return parts[0].Level(k.Name, l.now)
	}
	var sum float64
	for _, p := range parts {
		sum += p.Level(k.Name, l.now)
	}
	return sum
}
