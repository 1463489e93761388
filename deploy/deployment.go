package deploy

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"ratelab/algorithms"
)

// Config is a deployment: its protocol, its instances and its links.
type Config struct {
	Protocol Protocol
	// Instances is the membership at the start (≥ 1); Most the most a change
	// makes it (≥ Instances).
	Instances int
	Most      int
	// Latency is a link's one-way delay: between two instances, and from an
	// instance to the store. 0: messages arrive at once.
	Latency time.Duration
	// SyncWait is how often a periodic protocol sends what an instance counted
	// (Kong's sync_rate, Gubernator's GlobalSyncWait); > 0 for those.
	SyncWait time.Duration
	// BatchLimit, for Gubernator, is the most hits queued for one peer before
	// they are sent at once (GlobalBatchLimit); 0: its default, 1,000.
	BatchLimit int
	// SeenAfter, for Share, is how long after a membership change an instance
	// sees it (the control plane's propagation).
	SeenAfter time.Duration
	// Name is the limit's name where the protocol hashes it (Gubernator's
	// Name, whose hash key is Name + "_" + key); Peers the instances'
	// addresses (Gubernator's GRPCAddress: its ring hashes them), default
	// "peer-<i>".
	Name  string
	Peers []string
	// Replicated says the store has a replica, which applies the primary's
	// writes ReplicaLag late (central: a failover promotes it; ReplicaReads
	// reads from it, and needs it).
	Replicated bool
	ReplicaLag time.Duration
	// Failovers says the run may fail the store over (Failover): a store
	// with a replica then keeps every write its replica applied, to rebuild
	// a new replica from; without it, a failover of such a store panics.
	Failovers bool
	// Jitter adds to each message between instances a delay drawn uniformly
	// from 0 to Jitter, from a stream seeded by Seed; a link keeps its order.
	// The protocols whose instances call the store (UsesStore) take none.
	Jitter time.Duration
	Seed   uint64
	// New makes a fresh limiter of the policy (a new instance's state, the
	// store's, an owner's): the lane's algorithm, policy and options.
	New func() (algorithms.Limiter, error)
	// Keys, when set, is a limiter asked about the same keys as the
	// deployment's (the lane's ideal): the deployment's find their keys
	// through its directory (algorithms.ShareKeys), or the first one's when it
	// cannot share. Set it when each instance holds most of the keys: every
	// instance then keeps room for a state in every slot of the directory,
	// which for instances holding few of many keys costs more than it saves.
	Keys algorithms.Limiter
}

// Stats counts what a deployment sent: messages between instances (a sync, a
// broadcast, a forwarded request: one per message, however many keys it
// carries) and calls to its store.
type Stats struct {
	Messages   int64
	StoreCalls int64
	// Lost is the messages a partition dropped (counted in Messages too).
	Lost int64
}

// Deployment is a policy deployed as Config says; see the package comment.
type Deployment struct {
	cfg     Config
	members int // instances now
	timers  timers
	seq     uint64
	stats   Stats
	proto   protocol
	// lives counts each instance slot's incarnations: a timer set for an
	// instance, or a message sent to it, that finds another in its slot (it
	// was removed, or removed and added again) does nothing.
	lives []int
	// cut marks the instance slots a partition cuts off from the others and
	// from the store (Partition); none when whole. split says some member is
	// cut off.
	cut   []bool
	split bool
	// jitter draws each message's jitter; lastOn is each link's last arrival.
	jitter *rand.Rand
	lastOn map[[2]int]time.Duration
}

// protocol is one sync protocol's state and decisions.
type protocol interface {
	// decide decides a request that reached instance inst at now, and says
	// how long after now the instance has the answer.
	decide(inst int, key string, now time.Duration, cost int64) (algorithms.Decision, time.Duration)
	// scale is told the membership changed to n at now (before, an instance
	// ≥ n was removed, or a new one < n added: it starts empty).
	scale(now time.Duration, before, n int)
	// level is key's fill at now as the deployment holds it, for graphs.
	level(key string, now time.Duration) float64
	// forget loses every key of the deployment's store (a flush); local
	// protocols lose nothing.
	forget()
	// failover fails the store over to its replica at now (a protocol
	// without a replica: to one that had nothing, a flush).
	failover(now time.Duration)
	// restart replaces member i at now with a new, empty one in its slot
	// (what it had in memory and had not sent is lost).
	restart(now time.Duration, i int)
	// state is what the deployment holds now (state.go).
	state() State
	// evict forgets the idle keys at now where that changes nothing (evict.go).
	evict(now time.Duration)
}

// New makes a deployment.
func New(cfg Config) (*Deployment, error) {
	if cfg.Instances < 1 {
		return nil, fmt.Errorf("a deployment needs at least one instance (got %d)", cfg.Instances)
	}
	cfg.Most = max(cfg.Most, cfg.Instances)
	if cfg.Protocol.Periodic() && cfg.SyncWait <= 0 {
		return nil, fmt.Errorf("sync %q needs sync_wait > 0", cfg.Protocol)
	}
	if cfg.Protocol == ReplicaReads && !cfg.Replicated {
		return nil, fmt.Errorf("sync %q reads from a replica: it needs one (Replicated, a ReplicaLag)", cfg.Protocol)
	}
	if cfg.Replicated && cfg.Protocol != Central && cfg.Protocol != ReplicaReads {
		return nil, fmt.Errorf("sync %q has no store replica ratelab models; central and replica-reads do", cfg.Protocol)
	}
	if cfg.Jitter < 0 || (cfg.Jitter > 0 && cfg.Protocol.UsesStore()) {
		return nil, fmt.Errorf("sync %q: a jitter applies to the messages between instances, ≥ 0, and to no protocol whose instances call a store", cfg.Protocol)
	}
	if cfg.Latency < 0 || cfg.SeenAfter < 0 || cfg.ReplicaLag < 0 {
		return nil, fmt.Errorf("link latency, the membership delay and the replica's lag must be ≥ 0")
	}
	if cfg.BatchLimit <= 0 {
		cfg.BatchLimit = 1000
	}
	if cfg.Keys != nil {
		cfg.New = sharingKeys(cfg.New, cfg.Keys)
	}
	d := &Deployment{cfg: cfg, members: cfg.Instances, lives: make([]int, cfg.Most), cut: make([]bool, cfg.Most)}
	if cfg.Jitter > 0 {
		d.jitter, d.lastOn = rand.New(rand.NewPCG(cfg.Seed, 0x6a17)), map[[2]int]time.Duration{}
	}
	var err error
	switch cfg.Protocol {
	case Local:
		d.proto, err = newLocal(d)
	case Share:
		d.proto, err = newShare(d)
	case Central:
		d.proto, err = newCentral(d)
	case KongSync, KongSyncPre11859:
		d.proto, err = newKongSync(d, cfg.Protocol == KongSyncPre11859)
	case HAProxyPeers:
		d.proto, err = newHAProxyPeers(d)
	case GubernatorGlobal, GubernatorGlobalPre219:
		d.proto, err = newGubernator(d, cfg.Protocol == GubernatorGlobalPre219)
	case HAProxyPeersSum:
		d.proto, err = newHAProxyPeersSum(d)
	case ReplicaReads:
		d.proto, err = newReplicaReads(d)
	default:
		err = fmt.Errorf("unknown protocol %d", cfg.Protocol)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Members is the membership now.
func (d *Deployment) Members() int { return d.members }

// Stats is what the deployment sent so far.
func (d *Deployment) Stats() Stats { return d.stats }

// Decide decides a request of cost units for key that reached instance inst
// (0 ≤ inst < Members) at now, after running every timer due by now; it says
// how long after now the instance has the answer (a store's round trip, a
// forward to an owner). Times must not go backwards between calls.
func (d *Deployment) Decide(inst int, key string, now time.Duration, cost int64) (algorithms.Decision, time.Duration) {
	d.runTimers(now)
	if inst < 0 || inst >= d.members {
		panic(fmt.Sprintf("deploy: instance %d of %d", inst, d.members))
	}
	return d.proto.decide(inst, key, now, cost)
}

// Scale changes the membership to n (1 ≤ n ≤ Config.Most) at now: instances
// from n up are removed with their state; new ones start empty.
func (d *Deployment) Scale(now time.Duration, n int) {
	d.runTimers(now)
	n = min(max(n, 1), d.cfg.Most)
	if n == d.members {
		return
	}
	before := d.members
	d.members = n
	for i := min(before, n); i < max(before, n); i++ {
		d.lives[i]++     // removed, or new
		d.cut[i] = false // a new member joins the side not cut off
	}
	d.split = slices.Contains(d.cut[:n], true)
	d.proto.scale(now, before, n)
}

// Restart replaces the members insts (slots from 0) at now, after the timers
// due, with new ones that start empty in their slots, as a rolling restart
// does: what each had in memory, and had not sent, is lost; a message or a
// timer for the one replaced finds another there and does nothing. The
// membership stays.
func (d *Deployment) Restart(now time.Duration, insts []int) error {
	for _, i := range insts {
		if i < 0 || i >= d.members {
			return fmt.Errorf("restart: instance %d of %d members", i, d.members)
		}
	}
	d.runTimers(now)
	for _, i := range insts {
		d.lives[i]++
		d.proto.restart(now, i)
	}
	return nil
}

// Level is key's fill at now as the deployment holds it (after the timers due).
func (d *Deployment) Level(key string, now time.Duration) float64 {
	d.runTimers(now)
	return d.proto.level(key, now)
}

// Forget loses every key of the deployment's store, as a flush does.
func (d *Deployment) Forget() { d.proto.forget() }

// Failover fails the deployment's store over to its replica at now, after
// the timers due: with Config.Replicated, the writes of the last ReplicaLag
// are lost; without, every key is (as Forget). Protocols that keep their
// state in the instances lose nothing.
func (d *Deployment) Failover(now time.Duration) {
	d.runTimers(now)
	d.proto.failover(now)
}

// deliver runs fn when a message sent at `at` from instance from to
// instance to arrives: a link's latency later, plus its jitter (a uniform
// draw from 0 to Jitter, seeded), never before the message sent on the same
// link before it (a link is one connection: it keeps its order); at once
// without latency or jitter.
func (d *Deployment) deliver(from, to int, at time.Duration, fn func(arrival time.Duration)) {
	if d.cfg.Latency == 0 && d.cfg.Jitter == 0 {
		fn(at)
		return
	}
	arrival := at + d.cfg.Latency
	if d.cfg.Jitter > 0 {
		arrival += time.Duration(d.jitter.Int64N(int64(d.cfg.Jitter) + 1))
		link := [2]int{from, to}
		arrival = max(arrival, d.lastOn[link])
		d.lastOn[link] = arrival
	}
	d.after(arrival, fn)
}

// afterFor sets fn to run at `at` for instance inst, unless inst was removed
// (or replaced) by then.
func (d *Deployment) afterFor(inst int, at time.Duration, fn func(at time.Duration)) {
	life := d.lives[inst]
	d.after(at, func(at time.Duration) {
		if d.lives[inst] == life {
			fn(at)
		}
	})
}

// send counts a message sent at `at` from instance from to instance to and
// runs fn when it arrives (deliver), unless to was removed (or replaced) by
// then, or a partition lies between them when it is sent or when it would
// arrive: the message is lost.
func (d *Deployment) send(from, to int, at time.Duration, fn func(arrival time.Duration)) {
	d.stats.Messages++
	if d.apart(from, to) {
		d.stats.Lost++
		return
	}
	life := d.lives[to]
	d.deliver(from, to, at, func(arrival time.Duration) {
		switch {
		case d.lives[to] != life:
		case d.apart(from, to):
			d.stats.Lost++
		default:
			fn(arrival)
		}
	})
}

// sendOthers sends a message at `at` from instance from to every other
// member (see send).
func (d *Deployment) sendOthers(from int, at time.Duration, fn func(to int, arrival time.Duration)) {
	for to := range d.members {
		if to != from {
			d.send(from, to, at, func(arrival time.Duration) { fn(to, arrival) })
		}
	}
}

// after sets fn to run at `at` (see runTimers).
func (d *Deployment) after(at time.Duration, fn func(at time.Duration)) {
	d.seq++
	heap.Push(&d.timers, timer{at: at, seq: d.seq, fn: fn})
}

// runTimers runs every timer due by now, earliest first, ties in the order
// they were set; a timer may set others, which run too if due.
func (d *Deployment) runTimers(now time.Duration) {
	for len(d.timers) > 0 && d.timers[0].at <= now {
		t := heap.Pop(&d.timers).(timer)
		t.fn(t.at)
	}
}

// timer is something a protocol does at a time.
type timer struct {
	at  time.Duration
	seq uint64
	fn  func(at time.Duration)
}

// timers is a min-heap of timers by (at, seq).
type timers []timer

func (h timers) Len() int { return len(h) }
func (h timers) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h timers) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timers) Push(x any)   { *h = append(*h, x.(timer)) }
func (h *timers) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}

// sharingKeys is fresh, with every limiter it makes finding its keys through
// first's directory, or the first made's when first cannot share
// (algorithms.ShareKeys): a deployment's instances and stores are asked about
// the same keys, and with one directory a key's place is looked up in one
// table, warm in the cache, however many instances there are. It changes no
// decision. Limiters that cannot share (kept in Redis) keep their own.
func sharingKeys(fresh func() (algorithms.Limiter, error), first algorithms.Limiter) func() (algorithms.Limiter, error) {
	return func() (algorithms.Limiter, error) {
		lim, err := fresh()
		switch {
		case err != nil:
		case first == nil || !algorithms.ShareKeys(first, lim):
			first = lim
		}
		return lim, err
	}
}
