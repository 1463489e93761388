package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/slab"
)

// Lane is one limiter under test, with its own copy of the clients and the backend:
// every lane sees the same offered traffic, and what happens next (retries, backend
// load) follows from its own decisions. A lane runs on one goroutine.
//
// The lane is the engine (engine.go) running the clients' lifecycle (client.go),
// with a decider (decider.go) between a request and the limiter, a backend
// (backend.go) behind it, and a recorder (metrics.go, record.go) watching.
type Lane struct {
	Index  int
	Config LaneConfig

	engine
	cfg      *Config
	limiters []algorithms.Limiter // one per tier; a composite lane's every part, tier by tier
	health   []Health             // what the store says of the limiters' calls (none in memory)
	sets     []algorithms.Set     // a composite lane's parts, per tier (see composite.go)
	whole    []algorithms.Limiter // a sharded or balanced lane's whole limit, per tier, in memory (see wholeLimit)
	periods  []time.Duration      // each tier's policy period, as this lane enforces it
	decider  decider

	clients []clientRun
	// remedies are the states of the clients' retry remedies (remedy.go), by
	// node and parameters, each kept from its first use.
	remedies map[remedyKey]*remedyState
	holds    map[paceKey]time.Duration // keys clients honouring the RateLimit field hold, until when (pace.go)
	waiting  waitlines                 // a leaky queue's waiting requests, when abandoned ones leave (abandon.go)
	leaves   bool                      // the queue drops requests whose clients stopped waiting (leavesAbandoned)
	paces    bool                      // the answers tell what remains and when it resets (pace.go)
	inputs   *[]Input                  // the run's inputs (see inputs.go)
	pairs    [][]int32                 // per client, per key position: its identity's pair (see identity)
	reqs     slab.Slab[request]
	backend  *backendRun

	rec        recorder
	series     boundedSeries
	nextTick   time.Duration
	tick       Sample // the tick being filled
	tickSeen   bool   // tick.High and tick.Low hold an observation
	watchShape algorithms.Shape
	composite  bool      // Config.Composite, asked per decision (LaneConfig is large to copy)
	perSecond  perSecond // lane-wide decisions allowed in any second
	evictEvery time.Duration
	lastEvict  time.Duration

	// failuresSeen is the store's failures at the last tick's end.
	failuresSeen int64
	// storeDown says the lane's store is down (an outage, see outage.go);
	// outageErrors counts the decisions on_error made meanwhile.
	storeDown    bool
	outageErrors int64

	// stream, when not nil, receives every decision as it lands (see stream.go);
	// samples every tick's sample as it closes.
	stream  *rowStream
	held    heldRows // rows waiting for their fate (see fate.go)
	samples func(Sample)
	err     error

	// ctx, when done, stops the lane, as does more work than budget (if > 0);
	// see stop.go.
	ctx     context.Context
	budget  int64
	handled int64 // events handled so far

	// last is the latest decision (see LastDecision), kept when keepLast
	// (Run.KeepLive): a headless run does not pay for it.
	last latest
	// latestRefusal is the latest refusal a rule made, kept when keepLast
	latestRefusal Refusal
	keepLast      bool
	// turn is the next instance a round-robin balancer sends to (balance.go).
	turn int
	// deployed is a deployed lane's deployment and ideal (deployed.go);
	// sticky each client's instance under BalanceSticky (-1: none yet), hashed
	// the ring of BalanceHash.
	deployed deployment
	sticky   []int32
	hashed   *ring
}

// Sample is one tick of a lane's series: the watched key's level at the tick's
// end, the highest and lowest it reached during the tick (after each of its
// decisions, and at the tick's start and end), and the decisions landed during the
// tick. High and Low keep what the end value hides: a fixed window that fills up
// just before it resets inside a tick ends the tick near zero, with High at the
// full window.
type Sample struct {
	At        time.Duration // the tick's end
	Level     float64
	High, Low float64
	Accepted  int64
	Denied    int64
	// Offered is the logical requests made during the tick, Attempts the
	// decisions asked for (retries included; a decision may land in a later
	// tick, or after the run's end).
	Offered  int64
	Attempts int64
	// BackendErrors is the accepted requests the backend failed during the tick
	// (queue full, or the client's timeout); BackendQueue the requests waiting in
	// its queue at the tick's end (both 0 without a backend). StoreErrors is the
	// store's failures during the tick (see Metrics.StoreErrors).
	BackendErrors int64
	BackendQueue  int
	StoreErrors   int64
	// Levels, for the series sink only (Run.OnSeries), is the level of each of
	// Config.WatchKeys at the tick's end, in that order.
	Levels []float64
	// A deployed lane's: IdealAccepted is what its ideal admitted of the
	// decisions made during the tick (Accepted counts the deployment's as
	// they land, a protocol's round trip later), Members its membership at
	// the tick's end. Both 0 for any other lane; the series CSV has neither.
	IdealAccepted int64
	Members       int
}

// clientRun is a client's state in one lane.
type clientRun struct {
	c          *Client
	feed       *feedReader // its open-loop arrivals; nil for a closed loop
	pending    arrival     // the feed's next arrival, scheduled as evArrival
	pendingSeq uint64      // its sequence number; an arrival with another is stale
	traffic    *rand.Rand  // a closed loop's keys and costs
	keys       keyPicker   // a closed loop's
	made       int64       // logical requests so far
	retry      Retry       // its retry policy now (inputs change it)
}

// request is a logical request in flight: between attempts, waiting for a commit,
// queued or in the backend.
type request struct {
	client  int32
	key     int32 // index into Config.Keys
	pair    int32 // its (client, key) identity (see identity)
	attempt int32
	tries   int32 // WATCH reads for the current attempt
	worker  bool  // sent by a closed-loop worker
	n       int64
	cost    int64
	first   time.Duration // its first attempt
	sent    time.Duration // its current attempt: the client's deadline runs from here
	slot    int32         // its pending state in the splitter, or its plan (composite.go)
	spent   bool          // a limit spent units for it on an attempt that was refused
	retry   bool          // its current attempt is a retry Envoy's budget holds outstanding
	row     int64         // its current attempt's row while held (see fate.go); 0: none
}

func newLane(cfg *Config, index int, inputs *[]Input, feeds []*arrivalFeed, store StateStore) (*Lane, error) {
	lc := cfg.Lanes[index]
	l := &Lane{Index: index, Config: lc, cfg: cfg, nextTick: cfg.Tick, engine: newEngine(len(cfg.Clients)), rec: newRecorder(cfg, lc)}
	for t := range cfg.Tiers {
		p := lc.TierPolicy(cfg, t)
		l.evictEvery = max(l.evictEvery, p.Period, cfg.Tick)
		build := func() error { return l.buildParts(index, t, store) }
		if lc.Deployed() {
			build = func() error { return l.buildDeployment(index, t, store) }
		}
		if err := build(); err != nil {
			return nil, fmt.Errorf("lane %q: %w", lc.Name, err)
		}
		l.periods = append(l.periods, p.Period)
		if lc.Pieces() > 1 && !lc.Deployed() {
			whole, err := algorithms.New(lc.Algorithm, p, lc.Options)
			if err == nil && lc.TTL > 0 {
				whole, err = algorithms.WithTTL(whole, lc.TTL) // its keys expire as the shards' do
			}
			if err != nil {
				return nil, fmt.Errorf("lane %q: %w", lc.Name, err)
			}
			l.whole = append(l.whole, whole)
		}
	}
	d, err := newDecider(l)
	if err != nil {
		return nil, fmt.Errorf("lane %q: %w", lc.Name, err)
	}
	l.decider = d
	info, _ := algorithms.Lookup(lc.Algorithm)
	l.watchShape = info.Shape
	l.composite = lc.Composite() || lc.Deployed() // levels from the limiters, not one decision
	if info.Shape == algorithms.ShapeFixedWindow {
		l.rec.windows = make([]windowStats, len(cfg.Keys))
	}
	l.perSecond = newPerSecond(cfg.Tick)
	l.rec.scopes = newScopeStats(cfg)
	if cfg.Backend != nil {
		l.backend = &backendRun{b: *cfg.Backend}
	}
	l.leaves = l.leavesAbandoned()
	l.paces = info.Shape != algorithms.ShapeNone && info.SendsHeaders(lc.Options) && lc.Headers.Paces()
	owned := make([]bool, len(cfg.Keys))
	for i := range cfg.Clients {
		slots := make([]int32, len(cfg.Clients[i].Keys))
		for pos, k := range cfg.Clients[i].Keys {
			slots[pos] = -1
			if owned[k] {
				slots[pos] = int32(len(l.rec.extra))
				l.rec.extra = append(l.rec.extra, pairStats{})
			}
			owned[k] = true
		}
		l.pairs = append(l.pairs, slots)
	}
	l.rec.m = openingMetrics(lc)
	for i := range cfg.Clients {
		l.startClient(i, feeds[i])
	}
	l.inputs = inputs
	for i := range *inputs {
		l.scheduleInput(i)
	}
	return l, nil
}

// Series is the lane's samples so far, in time order, each covering SeriesStep:
// one per tick, or coarser in a long run (see MaxSeriesPoints).
func (l *Lane) Series() []Sample { return l.series.kept }

// Unavailable says the lane's store is down (an outage) or failed at its last
// call (Redis).
func (l *Lane) Unavailable() bool {
	if l.storeDown {
		return true
	}
	for _, h := range l.health {
		if h.Unavailable() {
			return true
		}
	}
	return false
}

// Metrics are the lane's figures so far, every sum over keys added up in key
// order: the same bytes every time, at the cost of a walk over the keys.
func (l *Lane) Metrics() Metrics { return l.complete(l.rec.finish()) }

// LiveMetrics are the lane's figures so far in O(1), from sums kept as they
// changed (see running.go): Metrics but for the last bits of fairness,
// max_units and over-grant — for a view redrawn every frame. Without the sums
// kept (Run.KeepLive), it is Metrics.
func (l *Lane) LiveMetrics() Metrics {
	if l.rec.live == nil {
		return l.Metrics()
	}
	return l.complete(l.rec.liveMetrics())
}

// complete adds to m what the backend and the store know.
func (l *Lane) complete(m Metrics) Metrics {
	if l.backend != nil {
		m.Errors = l.backend.errors
		m.Wasted = l.backend.wasted
		m.BackendUtilization = l.backend.utilization(l.now)
	}
	m.StoreErrors = l.storeFailures()
	if l.Config.Deployed() {
		l.deployedMetrics(&m)
	}
	return m
}

// storeFailures is the store's failures so far: the decisions an outage left
// to on_error, and the failures of the lane's limiters' calls (Redis).
func (l *Lane) storeFailures() int64 {
	n := l.outageErrors
	for _, h := range l.health {
		n += h.Failures()
	}
	return n
}

// advanceTo runs every event before t (at most the run's end), sampling the series
// at each tick boundary passed. Work the decider deferred is settled before any
// event at or after the time it is due.
func (l *Lane) advanceTo(t time.Duration) {
	t = min(t, l.cfg.Duration)
	for l.err == nil {
		limit := min(t, l.nextTick)
		for l.err == nil {
			e, ok := l.take(limit)
			if due := l.decider.due(); due != never && (!ok || e.at >= due) {
				l.decider.settle() // its consequences may come before e, or before limit
				if ok {
					l.putBack(e)
				}
				continue
			}
			if !ok {
				break
			}
			l.now = e.at
			l.handle(e)
			l.counted()
		}
		if l.err != nil || l.nextTick > t {
			break // stopped, or a tick not finished: no sample
		}
		l.now = l.nextTick
		l.sample()
	}
	if l.err == nil {
		l.now = t
	}
}

// handle runs one event.
func (l *Lane) handle(e event) {
	switch e.kind {
	case evArrival:
		if e.seq == l.clients[e.ref].pendingSeq {
			l.arrive(int(e.ref))
		}
	case evInput:
		l.applyInput(e.ref)
	case evWorker:
		c := &l.clients[e.ref]
		l.attempt(l.newRequest(int(e.ref), c.keys.pick(c.traffic), c.c.Cost.draw(c.traffic), true))
	case evAttempt:
		l.attempt(e.ref)
	case evCommit:
		l.decider.commit(e.ref)
	case evAdmit:
		l.admit(e.ref)
	case evBackendDone:
		l.backendDone(e.ref)
	case evBackendTimeout:
		l.backendTimeout(e.ref)
	case evDeadline:
		l.deadlinePassed(e.ref)
	case evQueueTurn:
		if l.waitingEvent(e) {
			l.goAheadFromQueue(e.ref)
		}
	case evQueueLeave:
		if l.waitingEvent(e) {
			l.leaveQueue(e.ref)
		}
	}
}

// sample closes the tick ending now, and evicts idle keys now and then.
func (l *Lane) sample() {
	k := l.cfg.Keys[l.cfg.WatchKey]
	l.tick.At = l.now
	l.tick.Level = l.level(k)
	l.observe(l.tick.Level)
	if l.backend != nil {
		l.tick.BackendQueue = l.backend.queued()
	}
	failures := l.storeFailures()
	l.tick.StoreErrors = failures - l.failuresSeen
	l.failuresSeen = failures
	if l.Config.Deployed() {
		l.tick.Members = l.deployed.members()
		l.deployed.closeTick()
	}
	l.series.add(l.tick)
	if l.samples != nil {
		s := l.tick
		if len(l.cfg.WatchKeys) > 0 {
			s.Levels = make([]float64, len(l.cfg.WatchKeys))
			for i, key := range l.cfg.WatchKeys {
				s.Levels[i] = l.level(l.cfg.Keys[key])
			}
		}
		l.samples(s)
	}
	l.rec.m.PeakAcceptedPerSecond = max(l.rec.m.PeakAcceptedPerSecond, l.perSecond.add(l.tick.Accepted))
	end := l.tick.Level
	l.tick = Sample{High: end, Low: end} // the next tick starts where this one ended
	l.measureHeld()
	if l.now-l.lastEvict >= l.evictEvery {
		for _, lim := range l.limiters {
			lim.Evict(l.earliestStamp())
		}
		for _, lim := range l.whole {
			lim.Evict(l.earliestStamp())
		}
		l.deployed.evict(l.earliestStamp())
		l.lastEvict = l.now
	}
	l.nextTick += l.cfg.Tick
}

// observe widens the tick's High and Low to a level of the watched key.
func (l *Lane) observe(level float64) {
	if !l.tickSeen {
		l.tick.High, l.tick.Low, l.tickSeen = level, level, true
		return
	}
	l.tick.High, l.tick.Low = max(l.tick.High, level), min(l.tick.Low, level)
}

// levelAfter is the watched key's level right after decision d, read from the
// decision itself (no call to the store): the tokens left for a bucket, the units
// held (limit − remaining) for the windows and the leaky bucket.
func levelAfter(shape algorithms.Shape, d algorithms.Decision) float64 {
	switch shape {
	case algorithms.ShapeBucket:
		return d.Remaining
	case algorithms.ShapeNone:
		return 0
	}
	return float64(d.Limit) - d.Remaining
}

// earliestStamp is the earliest time any request from now on can be stamped with:
// the slowest node's clock now (clocks only move forward). Eviction asks whether a
// key is idle at that time, not at the true time, or a node running behind would
// find a key forgotten that it still had to wait on.
func (l *Lane) earliestStamp() time.Duration {
	if l.Config.Clock == ServerClock {
		return l.now
	}
	earliest := l.now
	for _, n := range l.cfg.Nodes {
		earliest = min(earliest, n.Clock(l.now))
	}
	return earliest
}

// stamp is the time the limiter is told it is: r's node clock now, or the true
// virtual time for a lane on the server's clock (in a simulation, the engine
// plays the server).
func (l *Lane) stamp(r *request) time.Duration {
	if l.Config.Clock == ServerClock {
		return l.now
	}
	return l.cfg.Nodes[l.clients[r.client].c.Node].Clock(l.now)
}
