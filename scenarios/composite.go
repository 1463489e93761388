package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"ratelab/algorithms"
	"ratelab/sim"
)

// composite compiles what a lane says beyond one limiter: shards of its limit,
// several limits per request and how they combine, and its headers' family.
func (c *compiler) composite(i int, spec LaneSpec, lane *sim.LaneConfig, bad func(string, string, ...any) error) error {
	info, _ := algorithms.Lookup(lane.Algorithm)
	lane.Headers = info.Headers
	if spec.Headers.Set() {
		lane.Headers = spec.Headers.Value()
	}
	switch {
	case info.NoHeaders && spec.Headers.Set():
		return bad("headers", "%s sends no rate-limit headers, so its responses carry none; remove headers (the request CSV's http_status and product_status say what it answers)", lane.Algorithm)
	case lane.Options.HideClientHeaders && spec.Headers.Set():
		return bad("headers", "hide_client_headers = true sends no rate-limit headers, so its responses carry none; remove headers or hide_client_headers")
	}
	if err := c.shards(spec, lane, bad); err != nil {
		return err
	}
	if err := c.instances(spec, lane, bad); err != nil {
		return err
	}
	return c.limits(i, spec, lane, bad)
}

// MaxInstances is the most instances a lane's limit may be kept in.
const MaxInstances = 1000

// instances compiles instances, balance and weights: the lane's limit kept in
// each instance's memory behind a load balancer (sim/balance.go).
func (c *compiler) instances(spec LaneSpec, lane *sim.LaneConfig, bad func(string, string, ...any) error) error {
	if err := c.deployment(spec, lane, bad); err != nil || lane.Deployed() {
		return err
	}
	if spec.Instances == nil || *spec.Instances == 1 {
		switch {
		case spec.PerInstance.Set():
			return bad("per_instance", "per_instance applies to a lane kept on several instances; add instances = N (2 or more)")
		case spec.Balance.Set():
			return bad("balance", "balance applies to a lane kept on several instances; add instances = N (2 or more)")
		case spec.Weights != nil:
			return bad("weights", "weights apply to a lane kept on several instances with balance = \"weighted\"; add instances = N (2 or more)")
		}
		return nil
	}
	n := *spec.Instances
	info, _ := algorithms.Lookup(lane.Algorithm)
	switch {
	case n < 1 || n > MaxInstances:
		return bad("instances", "instances must be from 1 to %d (got %d); it is how many application instances keep the limit, each in its own memory", MaxInstances, n)
	case lane.Backend == sim.OnRedis:
		return bad("instances", "instances keep the limit in each instance's own memory; a lane on Redis shares one store, which is one limit: keep the lane in memory (a lane with instances stays there under --redis), or remove instances")
	case spec.Shards != nil:
		return bad("instances", "a lane is sharded (shards) or kept per instance (instances), not both")
	case len(spec.Limits) > 0:
		return bad("instances", "instances keep one limit per instance; this lane holds each request to several ([[scenario.lane.limits]]): remove instances, or give the limit a lane of its own")
	case info.Shape == algorithms.ShapeNone:
		return bad("instances", "the no-limit lane has nothing to keep; remove instances")
	case lane.Strategy != algorithms.Atomic:
		return bad("instances", "instances apply to atomic lanes (strategy %q reads and writes one store); remove instances or the strategy", lane.Strategy)
	}
	balance := spec.Balance.Value()
	if err := checkWeights(spec, n, bad); err != nil {
		return err
	}
	per := spec.PerInstance.Value()
	for t := range c.cfg.Tiers {
		p := lane.TierPolicy(c.cfg, t).WithDefaults()
		what, most := "burst", p.Burst
		if p.Limit < most {
			what, most = "limit", p.Limit
		}
		if per == sim.InstanceShare && int64(n) > most {
			return bad("instances", "instances = %d with per_instance = \"share\" is more than the %s (%d) of tier %q: an instance would get less than one unit; use at most %d instances, or raise the %s", n, what, most, c.cfg.Tiers[t].Name, most, what)
		}
	}
	lane.Instances, lane.PerInstance, lane.Balance, lane.Weights = n, per, balance, slices.Clone(spec.Weights)
	return nil
}

// checkWeights checks a lane's weights against its balance and its n
// instances: one weight per instance with balance = "weighted", none without.
func checkWeights(spec LaneSpec, n int, bad func(string, string, ...any) error) error {
	balance := spec.Balance.Value()
	switch {
	case balance == sim.BalanceWeighted && len(spec.Weights) != n:
		return bad("weights", "balance = \"weighted\" needs weights, one number per instance (%d; got %d)", n, len(spec.Weights))
	case balance != sim.BalanceWeighted && spec.Weights != nil:
		return bad("weights", "weights apply to balance = \"weighted\" (this lane's balance is %q)", balance)
	}
	for j, w := range spec.Weights {
		if w < 1 || w > 1_000_000 {
			return bad("weights", "weights[%d] must be from 1 to 1000000 (got %d): an instance's share of the requests", j, w)
		}
	}
	return nil
}

// shards compiles shards and shard_pick.
func (c *compiler) shards(spec LaneSpec, lane *sim.LaneConfig, bad func(string, string, ...any) error) error {
	if spec.Shards == nil {
		if spec.ShardPick.Set() {
			return bad("shard_pick", "shard_pick applies to a sharded lane; add shards = N (2 or more)")
		}
		return nil
	}
	n := *spec.Shards
	info, _ := algorithms.Lookup(lane.Algorithm)
	switch {
	case n < 1:
		return bad("shards", "shards must be >= 1 (got %d); it is how many limits of 1/shards each the lane's limit is split into", n)
	case len(spec.Limits) > 0:
		return bad("shards", "shards splits one limit; this lane holds each request to several ([[scenario.lane.limits]]): remove shards, or give the hot limit a lane of its own")
	case info.Shape == algorithms.ShapeNone:
		return bad("shards", "the no-limit lane has nothing to shard; remove shards")
	case lane.Strategy != algorithms.Atomic && n > 1:
		return bad("shards", "shards apply to atomic lanes (strategy %q reads and writes one key); remove shards or the strategy", lane.Strategy)
	}
	for t := range c.cfg.Tiers {
		p := lane.TierPolicy(c.cfg, t).WithDefaults()
		what, most := "burst", p.Burst
		if p.Limit < most {
			what, most = "limit", p.Limit
		}
		if int64(n) > most {
			return bad("shards", "shards = %d is more than the %s (%d) of tier %q: a shard would get less than one unit; use at most %d shards, or raise the %s", n, what, most, c.cfg.Tiers[t].Name, most, what)
		}
	}
	pick := spec.ShardPick.Value()
	if n < 2 && pick == algorithms.PickTwoChoices {
		return bad("shard_pick", "two choices need two shards or more (shards = %d)", n)
	}
	lane.Shards, lane.ShardPick = n, pick
	return nil
}

// limits compiles a multi-limit lane's limits, combine and order.
func (c *compiler) limits(i int, spec LaneSpec, lane *sim.LaneConfig, bad func(string, string, ...any) error) error {
	if len(spec.Limits) == 0 {
		switch {
		case spec.Combine.Set():
			return bad("combine", "combine applies to a lane that holds each request to several limits; add [[scenario.lane.limits]] tables, two or more")
		case spec.Order != nil:
			return bad("order", "order applies to a lane that holds each request to several limits; add [[scenario.lane.limits]] tables, two or more")
		}
		return nil
	}
	if lane.Strategy != algorithms.Atomic {
		return bad("strategy", "strategy %q reads and writes one key; a lane with several limits decides with combine instead", lane.Strategy)
	}
	lane.Combine = spec.Combine.Value()
	base := lane.TierPolicy(c.cfg, 0)
	names := limitNames(spec.Limits)
	for j, ls := range spec.Limits {
		at := func(key string) []any { return []any{"lane", i, "limits", j, key} }
		badLimit := func(key, format string, args ...any) error {
			return c.fail(at(key), "lane %q: limit %q: %s", lane.Name, names[j], fmt.Sprintf(format, args...))
		}
		if slices.Index(names, names[j]) != j {
			return badLimit("name", "two limits are named %q; give each its own name", names[j])
		}
		algorithm := ls.Algorithm.Value()
		info, _ := algorithms.Lookup(algorithm)
		opts := info.Defaults
		if !ls.Algorithm.Set() { // the lane's, with the lane's options
			algorithm, opts = lane.Algorithm, lane.Options
			info, _ = algorithms.Lookup(algorithm)
		}
		if info.Baseline {
			return badLimit("algorithm", "the no-limit lane is not a limit; use one of %s", algorithms.Join(algorithms.Limiters(), ", "))
		}
		p := base
		if ls.Limit != nil {
			p.Limit = *ls.Limit
			p.Burst = 0 // the limit's own, unless it gives a burst
		}
		if ls.Period != nil {
			p.Period = ls.Period.Duration
		}
		if ls.Burst != nil {
			p.Burst = *ls.Burst
		}
		p = p.WithDefaults()
		if err := p.Validate(1); err != nil {
			return badLimit("limit", "%v", err)
		}
		text := ls.Key
		if text == "" {
			text = "{key}"
		}
		tmpl, err := algorithms.ParseKeyTemplate(text)
		if err != nil {
			return badLimit("key", "%v", err)
		}
		var cost int64
		switch v := ls.Cost.(type) {
		case nil:
		case int64:
			if v < 1 {
				return badLimit("cost", "cost must be a number of units >= 1, or \"cost\" for the request's own (got %d)", v)
			}
			cost = v
		case string:
			if v != "cost" {
				return badLimit("cost", "cost must be a number of units, or \"cost\" for the request's own (got %q)", v)
			}
		default:
			return badLimit("cost", "cost must be a whole number of units, or \"cost\" for the request's own (got %v)", v)
		}
		lane.Limits = append(lane.Limits, sim.LimitConfig{Name: names[j], Algorithm: algorithm, Options: opts, Policy: p, Template: tmpl, Cost: cost})
	}
	lane.Algorithm, lane.Options = lane.Limits[0].Algorithm, lane.Limits[0].Options
	if spec.Order != nil {
		lane.Orders = make([][]int, len(c.cfg.Clients))
		for _, client := range slices.Sorted(maps.Keys(spec.Order)) { // in order, so the first problem is always the same
			order := spec.Order[client]
			ci := slices.IndexFunc(c.cfg.Clients, func(cl sim.Client) bool { return cl.Name == client })
			if ci < 0 {
				return bad("order", "order names client %q, which this scenario does not have", client)
			}
			var idx []int
			for _, n := range order {
				k := slices.Index(names, n)
				if k < 0 || slices.Contains(idx, k) {
					break
				}
				idx = append(idx, k)
			}
			if len(idx) != len(names) || len(order) != len(names) {
				return bad("order", "order for client %q must name every limit once (%s), got %s", client, quoted(names), quoted(order))
			}
			lane.Orders[ci] = idx
		}
	}
	return nil
}

// limitNames are the limits' names, the missing ones as limit-1, limit-2…
func limitNames(limits []LimitSpec) []string {
	names := make([]string, len(limits))
	for i, l := range limits {
		names[i] = l.Name
		if names[i] == "" {
			names[i] = fmt.Sprintf("limit-%d", i+1)
		}
	}
	return names
}

// allPorted says every limit's algorithm (those that name one) has a Redis port.
func allPorted(limits []LimitSpec) bool { return unported(limits) == "" }

// unported is the first algorithm the limits name that has no Redis port.
func unported(limits []LimitSpec) algorithms.Name {
	for _, l := range limits {
		if info, ok := algorithms.Lookup(l.Algorithm.Value()); ok && info.Redis == nil {
			return info.Name
		}
	}
	return ""
}

// quoted lists names quoted, comma-separated.
func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
