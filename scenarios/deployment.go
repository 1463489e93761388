package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/deploy"
	"ratelab/products/all"
	"ratelab/sim"
)

// MaxLinkLatency bounds a deployment's link latency, sync wait and membership
// delay: past a day, nothing a run shows would change.
const MaxLinkLatency = 24 * time.Hour

// deployment compiles a deployed lane's keys: sync, link_latency, sync_wait,
// sync_batch_limit, membership_delay, replica_lag, with instances and balance
// (sim/deployed.go). Without sync, it refuses the keys that need it.
func (c *compiler) deployment(spec LaneSpec, lane *sim.LaneConfig, bad func(string, string, ...any) error) error {
	if !spec.Sync.Set() {
		for _, k := range []struct {
			key string
			set bool
		}{{"link_latency", spec.LinkLatency != nil}, {"sync_wait", spec.SyncWait != nil}, {"sync_batch_limit", spec.SyncBatchLimit != nil}, {"membership_delay", spec.MembershipDelay != nil}, {"replica_lag", spec.ReplicaLag != nil}, {"link_jitter", spec.LinkJitter != nil}} {
			if k.set {
				suggest := "sync = \"local\" (or another protocol: " + strings.Join(deploy.Protocols(), ", ") + ")"
				switch k.key {
				case "link_jitter":
					suggest = "sync = \"haproxy-peers\", \"haproxy-peers-sum\" or \"gubernator-global\" (the protocols whose instances send each other messages)"
				case "replica_lag":
					suggest = "sync = \"central\" or \"replica-reads\""
				}
				return bad(k.key, "%s applies to a deployment; add %s and instances = N", k.key, suggest)
			}
		}
		switch b := spec.Balance.Value(); {
		case b == sim.BalanceHash || b == sim.BalanceSticky:
			return bad("balance", "balance = %q applies to a deployment; add sync = \"local\" (each instance its own limit, as instances alone keep it)", b)
		}
		return nil
	}
	proto := spec.Sync.Value()
	info, _ := algorithms.Lookup(lane.Algorithm)
	n := 1
	if spec.Instances != nil {
		n = *spec.Instances
	}
	dur := func(d *Duration) time.Duration {
		if d == nil {
			return 0
		}
		return d.Duration
	}
	latency, wait, seen, lag, jitter := dur(spec.LinkLatency), dur(spec.SyncWait), dur(spec.MembershipDelay), dur(spec.ReplicaLag), dur(spec.LinkJitter)
	switch {
	case spec.Instances == nil:
		return bad("sync", "a deployment needs instances = N (1 to %d): the gateway instances at the start", MaxInstances)
	case n < 1 || n > MaxInstances:
		return bad("instances", "instances must be from 1 to %d (got %d); it is how many gateway instances run the limit", MaxInstances, n)
	case lane.Backend == sim.OnRedis:
		return bad("sync", "a deployment is modelled in memory, its store too (central); keep the lane in memory, or remove sync")
	case spec.Shards != nil || len(spec.Limits) > 0:
		return bad("sync", "a deployment runs one limit per instance; remove shards and limits, or sync")
	case info.Shape == algorithms.ShapeNone:
		return bad("sync", "the no-limit lane has nothing to deploy; remove sync")
	case lane.Strategy != algorithms.Atomic:
		return bad("sync", "a deployment's instances decide atomically (strategy %q is a store's race: give it a lane of its own)", lane.Strategy)
	case spec.TTL != nil:
		return bad("ttl", "a deployment's instances keep their state as the product does; remove ttl, or sync")
	case spec.PerInstance.Set():
		return bad("per_instance", "a deployment's protocol says what each instance holds (sync = %q); remove per_instance", proto)
	case latency < 0 || latency > MaxLinkLatency || latency%time.Microsecond != 0:
		return bad("link_latency", "link_latency must be from 0 to %s, whole microseconds (got %s): a link's one-way delay", MaxLinkLatency, latency)
	case latency > 0 && (proto == deploy.KongSync || proto == deploy.KongSyncPre11859):
		return bad("link_latency", "sync = %q decides on each agent's own counts, answered at once, and reads Redis a round trip away on a fresh read: two delays in one lane ratelab does not model yet; remove link_latency", proto)
	case jitter < 0 || jitter > MaxLinkLatency || jitter%time.Microsecond != 0:
		return bad("link_jitter", "link_jitter must be from 0 to %s, whole microseconds (got %s)", MaxLinkLatency, jitter)
	case jitter > 0 && (proto.UsesStore() || proto == deploy.Local || proto == deploy.Share):
		return bad("link_jitter", "link_jitter delays the messages between instances; sync = %q sends none ratelab would jitter (a store's calls are decided in the order they are made): use it with haproxy-peers, haproxy-peers-sum or gubernator-global", proto)
	case seen < 0 || seen > MaxLinkLatency || seen%time.Microsecond != 0:
		return bad("membership_delay", "membership_delay must be from 0 to %s, whole microseconds (got %s)", MaxLinkLatency, seen)
	case len(c.cfg.Tiers) > 1:
		return bad("sync", "a deployment is scored against one ideal of one policy; this scenario has %d tiers: give the deployment a scenario of one", len(c.cfg.Tiers))
	case proto.Periodic() && spec.SyncWait == nil:
		return bad("sync", "sync = %q sends what each instance counted every sync_wait, which is missing: add sync_wait (Kong's sync_rate, Gubernator's GlobalSyncWait), e.g. sync_wait = \"100ms\"", proto)
	case proto.Periodic() && (wait < time.Millisecond || wait > MaxLinkLatency):
		return bad("sync_wait", "sync = %q sends what each instance counted every sync_wait: give one from 1ms to %s (got %s)", proto, MaxLinkLatency, wait)
	case !proto.Periodic() && spec.SyncWait != nil:
		return bad("sync_wait", "sync = %q sends nothing periodically; remove sync_wait (kong-sync and gubernator-global take it)", proto)
	case spec.MembershipDelay != nil && proto != deploy.Share:
		return bad("membership_delay", "membership_delay is how long share's instances take to see a change; sync = %q does not divide by the membership", proto)
	case proto == deploy.ReplicaReads && spec.ReplicaLag == nil:
		return bad("sync", "sync = \"replica-reads\" reads each count from the store's replica: add replica_lag, how late the replica applies a write (e.g. replica_lag = \"50ms\")")
	case spec.ReplicaLag != nil && proto != deploy.Central && proto != deploy.ReplicaReads:
		return bad("replica_lag", "replica_lag is the store's replica's lag; sync = %q has no store replica ratelab models (central and replica-reads do)", proto)
	case lag < 0 || lag > MaxLinkLatency || lag%time.Microsecond != 0:
		return bad("replica_lag", "replica_lag must be from 0 to %s, whole microseconds (got %s)", MaxLinkLatency, lag)
	case proto == deploy.ReplicaReads && !isCounter(lane.Algorithm):
		return bad("sync", "sync = \"replica-reads\" reads a count from a replica and adds to it on the primary: %s keeps no count a write can add to; use %s", lane.Algorithm, counterWords())
	case proto == deploy.ReplicaReads && lane.Options.Rollover != 0:
		return bad("rollover", "sync = \"replica-reads\" counts past the limit, which a rollover would carry as a debt no product defines; remove rollover")
	case spec.SyncBatchLimit != nil && proto != deploy.GubernatorGlobal && proto != deploy.GubernatorGlobalPre219:
		return bad("sync_batch_limit", "sync_batch_limit is Gubernator's GlobalBatchLimit; sync = %q has none", proto)
	case spec.SyncBatchLimit != nil && (*spec.SyncBatchLimit < 1 || *spec.SyncBatchLimit > 1_000_000):
		return bad("sync_batch_limit", "sync_batch_limit must be from 1 to 1000000 (got %d)", *spec.SyncBatchLimit)
	}
	if syncs, product := all.Products.SyncsOf(lane.Algorithm, lane.Options); !slices.Contains(syncs, proto) {
		var words []string
		for _, s := range syncs {
			if s != deploy.ReplicaReads || isCounter(lane.Algorithm) { // replica-reads takes counters only
				words = append(words, fmt.Sprintf("%q", s))
			}
		}
		whose := fmt.Sprintf("a lane of %s, which is no product's,", lane.Algorithm)
		if product != nil {
			whose = fmt.Sprintf("%s's lane, with these options,", product.Name)
		}
		return bad("sync", "sync = %q is not how %s shares a limit across instances: use %s", proto, whose, strings.Join(words, " or "))
	}
	if err := copiesFit(proto, n, len(c.cfg.Keys)); err != nil {
		return bad("instances", "%v", err)
	}
	if err := checkWeights(spec, n, bad); err != nil {
		return err
	}
	lane.Instances, lane.Balance, lane.Weights = n, spec.Balance.Value(), slices.Clone(spec.Weights)
	lane.Deploy = sim.DeployConfig{On: true, Sync: proto, Most: n, Latency: latency, SyncWait: wait, SeenAfter: seen,
		Replicated: spec.ReplicaLag != nil, ReplicaLag: lag, Jitter: jitter}
	if spec.SyncBatchLimit != nil {
		lane.Deploy.BatchLimit = *spec.SyncBatchLimit
	}
	return nil
}

// partitionsFit checks, once every change is compiled and the inputs are in
// the order the engine applies them, that each partition and each restart
// names instances its lane has then.
func (c *compiler) partitionsFit() error {
	members := map[int]int{}
	for _, in := range c.cfg.Inputs {
		if in.Kind != sim.InputScale && in.Kind != sim.InputPartition && in.Kind != sim.InputRestart {
			continue
		}
		l := c.cfg.Lanes[in.Lane]
		if _, ok := members[in.Lane]; !ok {
			members[in.Lane] = l.Instances
		}
		switch in.Kind {
		case sim.InputScale:
			members[in.Lane] = in.Instances
		case sim.InputPartition:
			for _, i := range in.Slots {
				if i >= members[in.Lane] {
					return c.fail(c.changeAt(in, "partition"), "the partition at %s cuts off instance %d of lane %q, which runs %s then (an instance added later joins the side not cut off)", in.At, i+1, l.Name, instancesWord(members[in.Lane]))
				}
			}
		case sim.InputRestart:
			for _, i := range in.Slots {
				if i >= members[in.Lane] {
					return c.fail(c.changeAt(in, "restart"), "the restart at %s replaces instance %d of lane %q, which runs %s then", in.At, i+1, l.Name, instancesWord(members[in.Lane]))
				}
			}
		}
	}
	return nil
}

// instancesWord is "1 instance", "3 instances".
func instancesWord(n int) string {
	if n == 1 {
		return "1 instance"
	}
	return fmt.Sprintf("%d instances", n)
}

// changeAt is where in the file the change that made input in says key: the
// first change at its time, of its lane, that sets key.
func (c *compiler) changeAt(in sim.Input, key string) []any {
	for i, ch := range c.s.Changes {
		set := (key == "partition" && ch.Partition != nil) || (key == "restart" && ch.Restart != nil)
		if set && ch.At.Duration == in.At && ch.Lane == c.cfg.Lanes[in.Lane].Name {
			return []any{"change", i, key}
		}
	}
	return nil
}

// MaxBacklog is the most a deployed lane may hold on its way: writes a replica
// has yet to apply (and, in a scenario that fails the store over, every write
// the replica applied, which a new replica is rebuilt from), or messages
// between instances not yet arrived. Each is a few dozen bytes: this many is
// a few hundred megabytes.
const MaxBacklog = 10_000_000

// backlogs refuses a deployed lane whose store's replica, or whose links,
// would hold more than MaxBacklog at once on the scenario's traffic: about
// the requests sent within the replica's lag (all of them with a failover),
// or the messages sent within a link's latency and jitter (a push to every
// other member per request, for HAProxy's peers).
func (c *compiler) backlogs(Overrides) error {
	run := c.cfg.Duration.Seconds()
	failover := slices.ContainsFunc(c.cfg.Inputs, func(in sim.Input) bool { return in.Kind == sim.InputStore && in.Store == sim.StoreFailedOver })
	for _, l := range c.cfg.Lanes {
		d := l.Deploy
		if !d.On || run <= 0 {
			continue
		}
		var at []any
		if i := c.laneSpecIndex(l.Name); i >= 0 {
			at = []any{"lane", i}
		}
		if d.Replicated {
			held := c.offered * min(1, d.ReplicaLag.Seconds()/run)
			if failover {
				held += c.offered
			}
			if held > MaxBacklog {
				return c.fail(at, "lane %q: its store's replica would hold about %.3g writes at once (the requests within replica_lag = %s%s), more than the %d ratelab keeps; shorten replica_lag or the run, or lower the rates", l.Name, held, d.ReplicaLag, map[bool]string{true: ", and every write for the failover's new replica", false: ""}[failover], MaxBacklog)
			}
		}
		if d.Sync == deploy.HAProxyPeers || d.Sync == deploy.HAProxyPeersSum {
			most := max(d.Most, l.Instances)
			inFlight := c.offered / run * float64(most-1) * min(run, (d.Latency+d.Jitter).Seconds())
			if inFlight > MaxBacklog {
				return c.fail(at, "lane %q: about %.3g pushes between its %d instances would be on their way at once (each request pushed to every other, over links of %s and a jitter of %s), more than the %d ratelab keeps; use fewer instances or a shorter link_latency or link_jitter", l.Name, inFlight, most, d.Latency, d.Jitter, MaxBacklog)
			}
		}
	}
	return nil
}

// laneSpecIndex is the file's index of the lane named name (by its name, or
// by its algorithm when it has none), for a message's place; -1 if none (a
// lane a product configuration describes).
func (c *compiler) laneSpecIndex(name string) int {
	return slices.IndexFunc(c.s.Lanes, func(l LaneSpec) bool {
		return l.Name == name || (l.Name == "" && string(l.Algorithm.Value()) == name)
	})
}

// isCounter says a limiter of the algorithm keeps a count a store can add to
// without deciding (algorithms.Counter), as replica-reads needs.
func isCounter(name algorithms.Name) bool { return slices.Contains(algorithms.Counters(), name) }

// counterWords names the counters for a message: "fixed-window or sliding-counter".
func counterWords() string {
	var words []string
	for _, n := range algorithms.Counters() {
		words = append(words, string(n))
	}
	return strings.Join(words, " or ")
}

// MaxCopies is the most key states a deployment whose every instance keeps a
// copy of each key (HAProxy's peers, Gubernator's GLOBAL; with one table per
// server, a copy of every server's) may hold.
const MaxCopies = 2_000_000

// MaxSumServers is the most instances of haproxy-peers-sum: each keeps a copy
// of every other's table, n² tables in all.
const MaxSumServers = 100

// copiesFit says whether n instances of protocol p may keep keys keys each.
func copiesFit(p deploy.Protocol, n, keys int) error {
	per := 0 // copies of a key the deployment keeps
	switch p {
	case deploy.HAProxyPeers, deploy.GubernatorGlobal, deploy.GubernatorGlobalPre219:
		per = n
	case deploy.HAProxyPeersSum:
		if n > MaxSumServers {
			return fmt.Errorf("with sync = %q every server keeps a table of every server's (%d tables on %d), more than ratelab holds: use at most %d instances", p, n*n, n, MaxSumServers)
		}
		per = n * n
	default:
		return nil
	}
	if per*keys > MaxCopies {
		return fmt.Errorf("with sync = %q every instance keeps a copy of every key (%d copies a key on %d instances): × %d keys is %d copies, more than the %d ratelab holds; use fewer instances or keys", p, per, n, keys, per*keys, MaxCopies)
	}
	return nil
}

// scaleChange compiles a change's lane with its instances (lane's membership
// from the change on: it raises the lane's Most) or its partition.
// It says left when the lane is one --lanes left out: the change goes with it.
func (c *compiler) scaleChange(ch ChangeSpec, add func(sim.Input), bad func(string, string, ...any) error) (left bool, err error) {
	if ch.Lane == "" && ch.Instances == nil && ch.Partition == nil && ch.Restart == nil {
		return false, nil
	}
	if ch.Lane == "" || (ch.Instances == nil && ch.Partition == nil && ch.Restart == nil) {
		return false, bad("lane", "a change of a deployment needs both lane = \"…\" (a deployed lane) and instances = N, partition = [instances cut off, from 1] or restart = [instances replaced, from 1]")
	}
	i := slices.IndexFunc(c.cfg.Lanes, func(l sim.LaneConfig) bool { return l.Name == ch.Lane })
	if i < 0 && slices.ContainsFunc(c.s.Lanes, func(l LaneSpec) bool { return l.Name == ch.Lane }) {
		return true, nil
	}
	switch {
	case i < 0:
		return false, bad("lane", "no lane %q in this scenario", ch.Lane)
	case !c.cfg.Lanes[i].Deployed():
		return false, bad("lane", "lane %q is not a deployment; give it sync = \"local\" (or another protocol) to change its membership or partition it", ch.Lane)
	}
	if ch.Instances != nil { // first: a partition or restart in the same change is of the new membership
		switch n := *ch.Instances; {
		case c.cfg.Lanes[i].Balance == sim.BalanceWeighted:
			return false, bad("instances", "lane %q is balanced by weights, one per instance: its membership cannot change (use round-robin, random, hash or sticky to scale it)", ch.Lane)
		case n < 1 || n > MaxInstances:
			return false, bad("instances", "instances must be from 1 to %d (got %d)", MaxInstances, n)
		default:
			l := &c.cfg.Lanes[i]
			if err := copiesFit(l.Deploy.Sync, n, len(c.cfg.Keys)); err != nil {
				return false, bad("instances", "%v", err)
			}
			l.Deploy.Most = max(l.Deploy.Most, n)
			add(sim.Input{Kind: sim.InputScale, Lane: i, Instances: n})
		}
	}
	slots := func(key, what string, numbers []int) ([]int, error) {
		out := make([]int, 0, len(numbers))
		for _, n := range numbers {
			switch {
			case n < 1 || n > MaxInstances:
				return nil, bad(key, "%s lists the instances %s, numbered from 1 to at most %d (got %d)", key, what, MaxInstances, n)
			case slices.Contains(out, n-1):
				return nil, bad(key, "%s lists instance %d twice; list each once", key, n)
			}
			out = append(out, n-1)
		}
		return out, nil
	}
	if ch.Partition != nil {
		cut, err := slots("partition", "cut off", *ch.Partition)
		if err != nil {
			return false, err
		}
		add(sim.Input{Kind: sim.InputPartition, Lane: i, Slots: cut})
	}
	if ch.Restart != nil {
		replaced, err := slots("restart", "replaced", *ch.Restart)
		if err != nil {
			return false, err
		}
		if len(replaced) == 0 {
			return false, bad("restart", "restart lists the instances replaced; it is empty")
		}
		add(sim.Input{Kind: sim.InputRestart, Lane: i, Slots: replaced})
	}
	return false, nil
}
