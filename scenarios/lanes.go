package scenarios

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/suggest"
	"ratelab/sim"
)

func (c *compiler) lanes(o Overrides) error {
	c.overrides = o
	specs := c.s.Lanes
	if len(specs) == 0 {
		for _, name := range c.defaultLanes() {
			specs = append(specs, LaneSpec{Algorithm: AlgorithmOf(name)})
		}
	}
	for i, spec := range specs {
		var lanes []sim.LaneConfig
		if isProductLane(spec) {
			var err error
			if lanes, err = c.productLanes(i, spec); err != nil {
				return err
			}
			for _, l := range lanes {
				c.expanded = append(c.expanded, l.Name)
			}
		} else {
			lane, err := c.lane(i, spec)
			if err != nil {
				return err
			}
			lanes = []sim.LaneConfig{lane}
		}
		for _, lane := range lanes {
			if err := plain("lane name", lane.Name); err != nil {
				return c.fail([]any{"lane", i, "name"}, "lane %d: %v", i+1, err)
			}
			if strings.Contains(lane.Name, ",") {
				return c.fail([]any{"lane", i, "name"}, "lane %q: a lane name cannot hold a comma (--lanes separates names with commas)", lane.Name)
			}
			if slices.ContainsFunc(c.cfg.Lanes, func(l sim.LaneConfig) bool { return l.Name == lane.Name }) {
				return c.fail([]any{"lane", i, "name"}, "two lanes are named %q; give each a name = \"…\"", lane.Name)
			}
			c.cfg.Lanes = append(c.cfg.Lanes, lane)
		}
	}
	if len(o.Lanes) > 0 {
		var kept []sim.LaneConfig
		for _, want := range o.Lanes {
			found := false
			for _, l := range c.cfg.Lanes {
				if l.Name != want && string(l.Algorithm) != want {
					continue
				}
				found = true // kept already, perhaps, by an algorithm named before
				if !slices.ContainsFunc(kept, func(k sim.LaneConfig) bool { return k.Name == l.Name }) {
					kept = append(kept, l)
				}
			}
			if !found {
				var names []string
				for _, l := range c.cfg.Lanes {
					names = append(names, l.Name)
				}
				return &problem{fmt.Sprintf("--lanes: scenario %q has no lane or algorithm %q; its lanes are: %s", c.s.Name, want, strings.Join(names, ", "))}
			}
		}
		slices.SortStableFunc(kept, func(a, b sim.LaneConfig) int {
			return slices.IndexFunc(c.cfg.Lanes, func(l sim.LaneConfig) bool { return l.Name == a.Name }) -
				slices.IndexFunc(c.cfg.Lanes, func(l sim.LaneConfig) bool { return l.Name == b.Name })
		})
		c.cfg.Lanes = kept
	}
	return nil
}

func (c *compiler) lane(i int, spec LaneSpec) (sim.LaneConfig, error) {
	o := c.overrides
	at := func(key string) []any { return []any{"lane", i, key} }
	if !spec.Algorithm.Set() && len(spec.Limits) > 0 {
		spec.Algorithm = spec.Limits[0].Algorithm // a multi-limit lane is shown as its first limit
	}
	name := spec.shownName()
	bad := func(key, format string, args ...any) error {
		return c.fail(at(key), "lane %q: %s", name, fmt.Sprintf(format, args...))
	}
	info, known := algorithms.Lookup(spec.Algorithm.Value())
	if !known {
		return sim.LaneConfig{}, c.fail(at("algorithm"), "lane %d: algorithm is missing; use one of %s", i+1, algorithms.Join(algorithms.Names(), ", "))
	}
	lane := sim.LaneConfig{Name: name, Algorithm: info.Name, WatchRetries: 20}
	ported := info.Redis != nil && allPorted(spec.Limits)

	base := c.cfg.Tiers[0].Policy
	p := base
	overridden := false
	if spec.Limit != nil {
		p.Limit, overridden = *spec.Limit, true
	}
	if spec.Period != nil {
		p.Period, overridden = spec.Period.Duration, true
	}
	if spec.Burst != nil {
		p.Burst, overridden = *spec.Burst, true
	} else if spec.Limit != nil && c.s.Policy.Burst == 0 && o.Burst == 0 {
		p.Burst = p.Limit
	}
	if spec.RetryAfterJitter != nil {
		p.RetryJitter, overridden = *spec.RetryAfterJitter, true
	}
	if overridden {
		if err := p.Validate(1); err != nil {
			return lane, bad("limit", "%v", err)
		}
		lane.Policy = p
	}

	opts := info.Defaults
	err := spec.OptionsSpec.apply(info, &opts)
	if err != nil {
		key := "algorithm"
		if oe, ok := errors.AsType[*algorithms.OptionError](err); ok {
			key = oe.Key
		}
		return lane, bad(key, "%v", err)
	}
	lane.Options = opts

	if spec.Strategy.Set() {
		st := spec.Strategy.Value()
		if st != algorithms.Atomic && !info.Splittable() {
			return lane, bad("strategy", "strategy %q applies to %s, whose state is a value a client can read and write back (this lane runs %s)", spec.Strategy, splittable(), spec.Algorithm)
		}
		lane.Strategy = st
		if st != algorithms.Atomic {
			lane.RoundTrip = time.Millisecond
		}
	}
	backend := spec.Backend.Value()
	if !spec.Backend.Set() && o.Redis && ported && spec.TTL == nil && !spec.Abandoned.Leave() && (spec.Instances == nil || *spec.Instances == 1) {
		backend = sim.OnRedis // a lane with a ttl, or kept per instance, stays in memory (see below, and instances)
	}
	if backend == sim.OnRedis {
		lane.Backend = sim.OnRedis
		lane.RoundTrip = time.Millisecond // a network store; the lookahead batches one round trip
		if info.Redis == nil {
			return lane, bad("backend", "%s has no Redis port: it runs in memory only (docs/redis-and-bench.md); remove backend = \"redis\"", spec.Algorithm)
		}
		if !ported {
			return lane, bad("backend", "a limit runs %s, which has no Redis port; give every limit an algorithm with one, or keep the lane in memory", unported(spec.Limits))
		}
	}
	if spec.RoundTrip != nil {
		if spec.RoundTrip.Duration < 0 || spec.RoundTrip.Duration > time.Minute {
			return lane, bad("round_trip", "round_trip must be from 0 to 1m (got %s)", spec.RoundTrip)
		}
		lane.RoundTrip = spec.RoundTrip.Duration
	}
	if spec.WatchRetries != nil {
		if *spec.WatchRetries < 0 || *spec.WatchRetries > 1000 {
			return lane, bad("watch_retries", "watch_retries must be from 0 to 1000 (got %d)", *spec.WatchRetries)
		}
		lane.WatchRetries = *spec.WatchRetries
	}
	lane.Clock, lane.OnError = spec.Clock.Value(), spec.OnError.Value()
	if spec.StoreTimeout != nil {
		switch d := spec.StoreTimeout.Duration; {
		case !c.outage() && !c.partitioned(lane.Name):
			return lane, bad("store_timeout", "store_timeout is how long a decision waits for a store that does not answer; this scenario's store never goes down: add a [[scenario.change]] with store = \"down\" (or a partition of this deployed lane), or remove store_timeout")
		case d < time.Microsecond || d > MaxLinkLatency || d%time.Microsecond != 0:
			return lane, bad("store_timeout", "store_timeout must be from 1µs to %s, whole microseconds (got %s)", MaxLinkLatency, d)
		}
		lane.StoreTimeout = spec.StoreTimeout.Duration
	}
	if lane.Backend == sim.InMemory && spec.OnError.Set() && !c.outage() && !c.partitioned(lane.Name) {
		return lane, bad("on_error", "on_error decides when the store fails: on a backend = \"redis\" lane, in a scenario whose store goes down (a [[scenario.change]] with store = \"down\"), or for a deployed lane's instances a partition cuts off; this lane's store never fails")
	}
	if spec.TTL != nil {
		ttl := spec.TTL.Duration
		switch {
		case lane.Backend == sim.OnRedis:
			return lane, bad("ttl", "ttl is kept on the virtual clock, in memory: Redis expires keys on its own wall clock, which a simulated run outpaces; keep the lane in memory (a lane with a ttl stays there under --redis)")
		case lane.Strategy != algorithms.Atomic:
			return lane, bad("ttl", "ttl applies to atomic lanes (strategy %q reads and writes the state itself)", lane.Strategy)
		case ttl <= 0 || ttl > algorithms.MaxTTL || ttl%time.Microsecond != 0:
			return lane, bad("ttl", "ttl must be from 1µs to %s, a whole number of microseconds (got %s); leave it out for keys that never expire", algorithms.MaxTTL, spec.TTL)
		}
		lane.TTL = ttl
	}
	if spec.Abandoned.Leave() {
		switch {
		case lane.Options.Mode != algorithms.LeakyQueue:
			return lane, bad("abandoned", "abandoned is what a queue does with a request whose client stopped waiting; a meter holds no request: remove it, or use mode = \"queue\"")
		case lane.Backend == sim.OnRedis:
			return lane, bad("abandoned", "abandoned = \"leave\" runs in memory only (the Lua script keeps no queue to leave); keep the lane in memory (a lane that leaves stays there under --redis)")
		case spec.Instances != nil && *spec.Instances > 1:
			return lane, bad("abandoned", "abandoned = \"leave\" is for a lane of one limiter; remove it, or instances")
		case len(spec.Limits) > 0:
			return lane, bad("abandoned", "abandoned = \"leave\" is for a lane of one limit; remove it, or the [[scenario.lane.limits]]")
		}
	}
	if spec.Retry != nil {
		r, err := c.retryPolicy(spec.Retry, func(key, format string, args ...any) error {
			return c.fail([]any{"lane", i, "retry", key}, "lane %q: retry: %s", name, fmt.Sprintf(format, args...))
		})
		if err != nil {
			return lane, err
		}
		lane.Retry = &r
	}
	if err := c.composite(i, spec, &lane, bad); err != nil {
		return lane, err
	}
	return lane, c.enforceable(i, spec, lane, bad)
}

// enforceable refuses a lane whose algorithm cannot enforce one of its policies
// as its product writes it (algorithms.Info.CheckPolicy): nginx's rate per
// second or per minute, its delay within the burst. The message is placed at
// the option at fault, or at the period: the limit's, the lane's, or the
// tier's the lane takes it from.
func (c *compiler) enforceable(i int, spec LaneSpec, lane sim.LaneConfig, bad func(string, string, ...any) error) error {
	for t, tier := range c.cfg.Tiers {
		for _, part := range lane.Parts(c.cfg, t) {
			info, _ := algorithms.Lookup(part.Algorithm)
			if info.CheckPolicy == nil {
				continue
			}
			err := info.CheckPolicy(part.Policy, part.Options)
			if err == nil {
				continue
			}
			what := ""
			if len(c.cfg.Tiers) > 1 && part.Limit < 0 {
				what = fmt.Sprintf("tier %q: ", tier.Name)
			}
			if part.Limit >= 0 {
				what = fmt.Sprintf("limit %q: ", lane.Limits[part.Limit].Name)
			}
			if oe, ok := errors.AsType[*algorithms.OptionError](err); ok {
				return bad(oe.Key, "%s%v", what, err)
			}
			path := []any{"policy", "period"}
			switch {
			case part.Limit >= 0 && spec.Limits[part.Limit].Period != nil:
				path = []any{"lane", i, "limits", part.Limit, "period"}
			case spec.Period != nil:
				path = []any{"lane", i, "period"}
			case t > 0:
				path = []any{"tier", t - 1, "period"}
			}
			return c.fail(path, "lane %q: %s%v", lane.Name, what, err)
		}
	}
	return nil
}

// outage says the scenario takes its store down (a change with store = "down"),
// so on_error decides some requests of lanes in memory too.
func (c *compiler) outage() bool {
	return slices.ContainsFunc(c.s.Changes, func(ch ChangeSpec) bool { return ch.Store.Value() == sim.StoreDown && ch.Store.Set() })
}

// partitioned says a change cuts some of lane's instances off (a partition of
// a deployed lane: those instances cannot reach its store).
func (c *compiler) partitioned(lane string) bool {
	return slices.ContainsFunc(c.s.Changes, func(ch ChangeSpec) bool {
		return ch.Lane == lane && ch.Partition != nil && len(*ch.Partition) > 0
	})
}

// splittable names the algorithms the non-atomic strategies apply to.
func splittable() string {
	return algorithms.Join(algorithms.Where(algorithms.Info.Splittable), " and ")
}

// defaultLanes are the algorithms of a scenario that lists no lanes: every limiter.
func (c *compiler) defaultLanes() []algorithms.Name { return algorithms.DefaultLanes() }

// KongWindows are a kong lane's windows beyond its policy's, by name: the
// rate-limiting plugin's config.second … config.year, each a limit of
// requests (month and year are calendar windows, UTC).
type KongWindows map[string]int64

// kongWindowNames are the windows a kong lane's kong_windows may set, in
// algorithms.KongSecond … KongYear order.
var kongWindowNames = algorithms.KongWindowNames[:]

// limits are the windows as the lane takes them: each one of Kong's, its limit
// > 0.
func (k KongWindows) limits() (algorithms.KongWindows, error) {
	var w algorithms.KongWindows
	if len(k) == 0 {
		return w, fmt.Errorf("kong_windows sets no window; write one or more of %s = a limit, or leave the key out", strings.Join(kongWindowNames, ", "))
	}
	for _, name := range slices.Sorted(maps.Keys(k)) {
		limit := k[name]
		i := slices.Index(kongWindowNames, name)
		if i < 0 {
			if near := suggest.Nearest(name, kongWindowNames); near != "" {
				return w, fmt.Errorf("kong_windows: %q is not one of Kong's windows (%s); did you mean %q?", name, strings.Join(kongWindowNames, ", "), near)
			}
			return w, fmt.Errorf("kong_windows: %q is not one of Kong's windows (%s)", name, strings.Join(kongWindowNames, ", "))
		}
		w[i] = limit
	}
	for i, limit := range w {
		if _, set := k[kongWindowNames[i]]; set && limit <= 0 {
			return w, fmt.Errorf("kong_windows: %s must be > 0 (got %d); leave a window out to have none", kongWindowNames[i], limit)
		}
	}
	return w, nil
}

// shownName is the name a lane table's lane is known by: its name, else its
// limits' names joined with +, else its algorithm.
func (spec LaneSpec) shownName() string {
	switch {
	case spec.Name != "":
		return spec.Name
	case len(spec.Limits) > 0:
		return strings.Join(limitNames(spec.Limits), "+")
	}
	return spec.Algorithm.String()
}
