package sim

import (
	"slices"
	"time"

	"ratelab/algorithms"
	"ratelab/deploy"
)

// A deployed lane is a limit run as gateway instances behind a load balancer
// with a sync protocol (package deploy): N copies of the lane's policy that
// share what they admitted as the protocol does, a link's latency apart, with
// membership the scenario's changes scale up and down (InputScale). Each
// request's attempt goes to the instance the balancer picks among the members
// (balance.go) and is decided there; the answer reaches the application after
// the protocol's delay (a store's round trip, for instance).
//
// Beside it runs the ideal: one limiter of the lane's policy, synchronised
// instantly, asked about every attempt the deployment was asked about at the
// same instant (deploy.Score). The lane's overshoot, false denials and
// convergence are the deployment's against it.

// DeployConfig is how a deployed lane is run (see package deploy).
type DeployConfig struct {
	// On: the lane is a deployment; its Instances are the membership at the
	// start, Most the most a change makes it.
	On       bool
	Sync     deploy.Protocol
	Most     int
	Latency  time.Duration // a link's one-way delay
	SyncWait time.Duration // a periodic protocol's
	// BatchLimit is Gubernator's GlobalBatchLimit (0: its default); SeenAfter
	// how long instances take to see a membership change (share).
	BatchLimit int
	SeenAfter  time.Duration
	// Replicated says the store has a replica lagging ReplicaLag (central,
	// replica-reads): a failover loses the lag's writes.
	Replicated bool
	ReplicaLag time.Duration
	// Jitter adds up to this to each message between instances (seeded by
	// the run's seed).
	Jitter time.Duration
}

// Deployed says the lane is run as a deployment.
func (l LaneConfig) Deployed() bool { return l.Deploy.On }

// GubernatorName is the Name a deployment's requests carry where a protocol
// hashes it (Gubernator's hash key, Name + "_" + key): one for every lane, so
// a key has the same owner in each.
const GubernatorName = "ratelab"

// deployment is a deployed lane's state: a deployment and the ideal per tier,
// and their score.
type deployment struct {
	tiers []*deploy.Deployment
	ideal []algorithms.Limiter
	// kept is each tier's keys held after its last eviction (see evict).
	kept  []int
	score *deploy.Score
	// tick counts each instance slot's admissions in the tick under way;
	// last those of the tick before (the UI's strip of instances).
	tick, last []int64
}

// deployedKeysKept is the most states a deployment holds before it evicts (see
// evict): sharedKeySlots, 24 MiB of token buckets (a variable for tests).
var deployedKeysKept = sharedKeySlots

// evict evicts the idle keys at now of the lane's ideal and of each tier's
// deployment that holds more than deployedKeysKept states and twice what it
// kept after it last evicted. A deployment's instances each hold the keys they
// were asked about, and a key idle in one of many instances comes back at its
// next request there: evicting as often as a lane's limiter would drop and make
// again most of them (64 instances over 1,000 keys: the cost of a decision 1.2×
// as much), so a deployment evicts only to bound its memory, to within twice
// what stays held past the budget, at an amortised walk per key added.
func (d *deployment) evict(now time.Duration) {
	if d.kept == nil {
		d.kept = make([]int, len(d.tiers))
	}
	for t, dep := range d.tiers {
		if keys := dep.State().Keys; keys > deployedKeysKept && keys >= 2*d.kept[t] {
			dep.Evict(now)
			d.kept[t] = dep.State().Keys
		}
		d.ideal[t].Evict(now)
	}
}

// closeTick keeps the tick's admissions per instance as the last tick's, for
// the members now, and starts the next.
func (d *deployment) closeTick() {
	n := d.members()
	d.last = append(d.last[:0], d.tick[:n]...)
	clear(d.tick)
}

// LastTickByInstance is what each instance of a deployed lane admitted in the
// tick that closed last, one number per member then; nil for another lane.
func (l *Lane) LastTickByInstance() []int64 {
	if !l.Config.Deployed() {
		return nil
	}
	return l.deployed.last
}

// members is the membership now (every tier's deployment scales together).
func (d *deployment) members() int { return d.tiers[0].Members() }

// buildDeployment builds the lane's deployment for tier t, its instances'
// limiters from the store (as a lane's own are), and its ideal: the
// yardstick, one limiter of the policy in memory, made apart from the store
// as a sharded lane's whole limit is.
func (l *Lane) buildDeployment(index, t int, store StateStore) error {
	lc := l.Config
	p := lc.TierPolicy(l.cfg, t)
	part := Part{Tier: t, Shard: -1, Limit: -1, Algorithm: lc.Algorithm, Policy: p, Options: lc.Options}
	fresh := func() (algorithms.Limiter, error) {
		lim, _, err := store.Limiter(index, lc, part)
		return lim, err
	}
	ideal, err := algorithms.New(lc.Algorithm, p, lc.Options.Ideal())
	if err == nil && lc.TTL > 0 {
		ideal, err = algorithms.WithTTL(ideal, lc.TTL)
	}
	if err != nil {
		return err
	}
	dep, err := deploy.New(deploy.Config{
		Protocol: lc.Deploy.Sync, Instances: lc.Instances, Most: lc.Deploy.Most,
		Latency: lc.Deploy.Latency, SyncWait: lc.Deploy.SyncWait, BatchLimit: lc.Deploy.BatchLimit,
		SeenAfter: lc.Deploy.SeenAfter, Name: GubernatorName, New: fresh,
		Replicated: lc.Deploy.Replicated, ReplicaLag: lc.Deploy.ReplicaLag,
		Jitter: lc.Deploy.Jitter, Seed: l.cfg.Seed ^ uint64(index)<<32 ^ uint64(t),
		Failovers: slices.ContainsFunc(l.cfg.Inputs, func(in Input) bool { return in.Kind == InputStore && in.Store == StoreFailedOver }),
		Keys:      sharedKeys(ideal, len(l.cfg.Keys)*max(lc.Deploy.Most, lc.Instances)),
	})
	if err != nil {
		return err
	}
	d := &l.deployed
	d.tiers, d.ideal = append(d.tiers, dep), append(d.ideal, ideal)
	if t == 0 {
		d.score = deploy.NewScore(p.Limit, p.Period)
		l.rec.shardUnits = make([]int64, max(lc.Deploy.Most, lc.Instances))
		d.tick = make([]int64, max(lc.Deploy.Most, lc.Instances))
	}
	return nil
}

// sharedKeySlots is the most slots (keys × instances) a deployment's
// instances keep room for when they share the ideal's key directory: 2^20,
// 24 MiB of token buckets. Past it (many instances over many keys, each
// holding few) they keep their keys apart, as one limiter does.
const sharedKeySlots = 1 << 20

// sharedKeys is the ideal, for the deployment's instances to share its key
// directory (deploy.Config.Keys), when slots (keys × instances) fit
// sharedKeySlots; else nil.
func sharedKeys(ideal algorithms.Limiter, slots int) algorithms.Limiter {
	if slots > sharedKeySlots {
		return nil
	}
	return ideal
}

// deployDecider decides a deployed lane's attempts: at the instance the
// balancer picks, and by the ideal, at once.
type deployDecider struct{ l *Lane }

func (a deployDecider) decide(id int32) {
	l := a.l
	r := l.reqs.At(id)
	k := &l.cfg.Keys[r.key]
	inst := l.instance(r)
	now := l.now // a deployment decides on the virtual clock
	dep := l.deployed.tiers[k.Tier]
	if l.Config.Deploy.Sync.UsesStore() && !dep.Reaches(inst) {
		l.unreachable(id) // cut off from the store by a partition
		return
	}
	d, delay := dep.Decide(inst, k.Name, now, r.cost)
	l.scoreDeployed(r, d.Allowed)
	if d.Allowed {
		l.deployed.tick[inst]++
	}
	o := decision(d, l.now+delay)
	o.shard = int32(inst)
	l.land(id, o)
}

// scoreDeployed asks the ideal about request r's attempt, now, and scores the
// deployment's answer, allowed, against it.
func (l *Lane) scoreDeployed(r *request, allowed bool) {
	k := &l.cfg.Keys[r.key]
	ideal := l.deployed.ideal[k.Tier].Allow(k.Name, l.now, r.cost)
	l.deployed.score.Add(k.Name, l.now, r.cost, allowed, ideal.Allowed)
	if ideal.Allowed {
		l.tick.IdealAccepted++
	}
}

func (deployDecider) commit(int32)       {}
func (deployDecider) due() time.Duration { return never }
func (deployDecider) settle()            {}

// scale makes the lane's membership n, now.
func (l *Lane) scale(n int) {
	d := &l.deployed
	if n == d.members() {
		return
	}
	for _, dep := range d.tiers {
		dep.Scale(l.now, n)
	}
	if l.turn >= n {
		l.turn = 0
	}
	d.score.Changed(l.now)
}

// partition cuts the lane's instances cut (slots) off from the others and
// the store, in place of the partition before, or heals it (none).
func (l *Lane) partition(cut []int) {
	for _, dep := range l.deployed.tiers {
		if err := dep.Partition(l.now, cut); err != nil {
			panic(err) // the scenario's compiler checks the instances against the lane's members then
		}
	}
}

// restart replaces the lane's instances insts with new, empty ones: a
// membership change for its score.
func (l *Lane) restart(insts []int) {
	for _, dep := range l.deployed.tiers {
		if err := dep.Restart(l.now, insts); err != nil {
			panic(err) // the scenario's compiler checks the instances against the lane's membership
		}
	}
	l.deployed.score.Changed(l.now)
}

// deployedMetrics fills in m's deployment figures.
func (l *Lane) deployedMetrics(m *Metrics) {
	d := &l.deployed
	s := d.score
	m.deployed = true
	m.Instances = d.members()
	m.OvershootUnits = s.Overshoot()
	m.OvershootWindowUnits = s.WorstWindow
	if limit := l.Config.TierPolicy(l.cfg, 0).Limit; limit > 0 {
		m.OvershootRatio = float64(s.WorstWindow) / float64(limit)
	}
	m.FalseDenials = s.FalseDenials
	m.ExcessAdmissions = s.Excess
	m.IdealAccepted = s.IdealAccepted
	m.Converge = s.Converge()
	m.unconverged = !s.Converged(l.now)
	var st deploy.Stats
	for _, dep := range d.tiers {
		x := dep.Stats()
		st.Messages += x.Messages
		st.StoreCalls += x.StoreCalls
	}
	if secs := l.now.Seconds(); secs > 0 {
		m.SyncMessagesPerSecond = float64(st.Messages) / secs
		m.StoreCallsPerSecond = float64(st.StoreCalls) / secs
	}
}
