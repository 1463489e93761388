package sim

import (
	"fmt"
	"math/rand/v2"
	"time"

	"ratelab/algorithms"
)

// Lane is one limiter under test, with its own copy of the clients and the backend:
// every lane sees the same offered traffic, and what happens next (retries, backend
// load) follows from its own decisions. A lane runs on one goroutine.
type Lane struct {
	Index  int
	Config LaneConfig

	cfg      *Config
	limiters []algorithms.Limiter // one per tier
	periods  []time.Duration      // each tier's policy period, as this lane enforces it
	split    []splitter           // one per tier, for Multi and Watch
	versions []uint64             // per key: writes so far, for Watch

	now    time.Duration
	seq    uint64
	events eventHeap
	// arrivals holds each open-loop client's next arrival beside the heap, when
	// there are few clients (sideArrivals): taking the earliest of them and the
	// heap's top in the same (time, seq) order gives the same run with no heap
	// work per arrival. An entry with at == never is empty.
	arrivals     []event
	sideArrivals bool

	clients []clientRun
	pairs   [][]int32 // per client, per key position: its identity's pair (see identity)
	reqs    []request
	free    []int32
	backend *backendRun

	rec        recorder
	series     []Sample
	nextTick   time.Duration
	tick       Sample // the tick being filled
	evictEvery time.Duration
	lastEvict  time.Duration

	// rows, when not nil, receives every decision as it lands.
	rows func(Row)
	err  error

	last     algorithms.Decision // the latest decision, for the UI's headers
	lastKey  int32
	lastSeen bool
}

// Sample is one tick of a lane's series: the watched key's level at the tick's
// end, and the decisions landed during the tick.
type Sample struct {
	At       time.Duration // the tick's end
	Level    float64
	Accepted int64
	Denied   int64
}

// Row is one decision, as the request CSV records it.
type Row struct {
	At         time.Duration // when the decision landed, true virtual time
	Lane       int
	Client     int
	Key        int
	Request    int64 // the logical request's number within its client, from 1
	Attempt    int   // from 1
	Cost       int64
	Allowed    bool
	Remaining  float64
	RetryAfter time.Duration
}

// noDecision is the answer carried by a failure that is not the limiter's: a
// backend error, a WATCH that kept losing.
var noDecision algorithms.Decision

// clientRun is a client's state in one lane.
type clientRun struct {
	c       *Client
	gen     arrivals   // nil for a closed loop
	pending arrival    // the generator's next event, scheduled as evArrival
	traffic *rand.Rand // keys and costs of a closed loop
	keys    keyPicker  // closed loop
	retry   *rand.Rand // retry jitter
	made    int64      // logical requests so far
}

// request is a logical request in flight: between attempts, waiting for a commit,
// queued or in the backend.
type request struct {
	client   int32
	key      int32 // index into Config.Keys
	pair     int32 // its (client, key) identity (see identity)
	attempt  int32
	tries    int32 // WATCH reads for the current attempt
	worker   bool  // sent by a closed-loop worker
	n        int64
	cost     int64
	first    time.Duration // its first attempt
	slot     int32         // its pending state in the splitter
	version  uint64        // the key's version when it was read (Watch)
	decision algorithms.Decision
}

func newLane(cfg *Config, index int) (*Lane, error) {
	lc := cfg.Lanes[index]
	l := &Lane{Index: index, Config: lc, cfg: cfg, nextTick: cfg.Tick}
	build := cfg.NewLimiter
	if build == nil {
		build = func(lane LaneConfig, _ int, p algorithms.Policy) (algorithms.Limiter, error) {
			return algorithms.New(lane.Algorithm, p, lane.Options)
		}
	}
	for t := range cfg.Tiers {
		p := lc.TierPolicy(cfg, t)
		l.evictEvery = max(l.evictEvery, p.Period, cfg.Tick)
		lim, err := build(lc, t, p)
		if err != nil {
			return nil, fmt.Errorf("lane %q: %w", lc.Name, err)
		}
		l.limiters = append(l.limiters, lim)
		l.periods = append(l.periods, p.Period)
		if lc.Strategy != Atomic {
			s, ok := newSplitter(lim)
			if !ok {
				return nil, fmt.Errorf("lane %q: strategy %q needs an algorithm whose state is a value (token-bucket or gcra), not %s", lc.Name, lc.Strategy, lc.Algorithm)
			}
			l.split = append(l.split, s)
		}
	}
	if lc.Strategy == Watch {
		l.versions = make([]uint64, len(cfg.Keys))
	}
	if cfg.Backend != nil {
		l.backend = &backendRun{b: *cfg.Backend}
	}
	l.rec.keys = make([]keyStats, len(cfg.Keys))
	l.rec.peaks = make([]peakSpan, len(cfg.Keys))
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
	l.rec.m = Metrics{Lane: lc.Name, Algorithm: lc.Algorithm, Backend: lc.Backend}
	l.sideArrivals = len(cfg.Clients) <= maxSideArrivals
	if l.sideArrivals {
		l.arrivals = make([]event, len(cfg.Clients))
		for i := range l.arrivals {
			l.arrivals[i].at = never
		}
	}
	for i := range cfg.Clients {
		c := &cfg.Clients[i]
		cr := clientRun{c: c, retry: newStream(cfg.Seed, streamRetry, i)}
		traffic := newStream(cfg.Seed, streamTraffic, i)
		if loop, ok := c.Pattern.(ClosedLoop); ok {
			cr.traffic, cr.keys = traffic, newKeyPicker(traffic, c.Keys, c.KeyZipf)
			for w := 0; w < loop.Concurrency; w++ {
				l.schedule(c.Start+loop.Spread*time.Duration(w)/time.Duration(loop.Concurrency), evWorker, i)
			}
		} else {
			gen, err := newArrivals(c, traffic)
			if err != nil {
				return nil, fmt.Errorf("client %q: %w", c.Name, err)
			}
			cr.gen = gen
			if a, ok := gen.next(); ok {
				cr.pending = a
				l.scheduleArrival(a.at, i)
			}
		}
		l.clients = append(l.clients, cr)
	}
	return l, nil
}

// Now is the virtual time the lane has reached.
func (l *Lane) Now() time.Duration { return l.now }

// Series is the lane's samples so far, one per tick.
func (l *Lane) Series() []Sample { return l.series }

// Limiter is the lane's limiter for tier 0.
func (l *Lane) Limiter() algorithms.Limiter { return l.limiters[0] }

// Err is the failure that stopped the lane, if any.
func (l *Lane) Err() error { return l.err }

// Metrics are the lane's figures so far.
func (l *Lane) Metrics() Metrics {
	m := l.rec.finish(l.cfg, l.Config)
	if l.backend != nil {
		m.Errors = l.backend.errors
		m.Wasted = l.backend.wasted
		m.BackendUtilization = l.backend.utilization(l.now)
	}
	return m
}

// advanceTo runs every event before t (at most the run's end), sampling the series
// at each tick boundary passed.
func (l *Lane) advanceTo(t time.Duration) {
	t = min(t, l.cfg.Duration)
	for l.err == nil {
		limit := min(t, l.nextTick)
		for l.err == nil {
			e, ok := l.take(limit)
			if !ok {
				break
			}
			l.now = e.at
			l.handle(e)
		}
		if l.nextTick > t {
			break
		}
		l.now = l.nextTick
		l.sample()
	}
	if l.err == nil {
		l.now = t
	}
}

// sample closes the tick ending now.
func (l *Lane) sample() {
	k := l.cfg.Keys[l.cfg.WatchKey]
	l.tick.At = l.now
	l.tick.Level = l.limiters[k.Tier].Level(k.Name, l.now)
	l.series = append(l.series, l.tick)
	l.tick = Sample{}
	var bytes int64
	var keys int
	for _, lim := range l.limiters {
		bytes += lim.StateBytes()
		keys += lim.Keys()
	}
	l.rec.m.PeakStateBytes = max(l.rec.m.PeakStateBytes, bytes)
	l.rec.m.PeakKeys = max(l.rec.m.PeakKeys, keys)
	if l.now-l.lastEvict >= l.evictEvery {
		for _, lim := range l.limiters {
			lim.Evict(l.now)
		}
		l.lastEvict = l.now
	}
	l.nextTick += l.cfg.Tick
}

// never is the time of an empty arrival slot.
const never = time.Duration(1<<63 - 1)

// maxSideArrivals is the most clients whose arrivals are kept beside the heap; with
// more, scanning them would cost more than the heap does.
const maxSideArrivals = 8

// take removes and returns the earliest event before limit, from the heap or the
// arrival slots, in (time, seq) order.
func (l *Lane) take(limit time.Duration) (event, bool) {
	slot := -1
	var e event
	if len(l.events) > 0 {
		e = l.events[0]
	} else {
		e.at = never
	}
	for i := range l.arrivals {
		if a := &l.arrivals[i]; a.at < e.at || (a.at == e.at && a.at != never && a.seq < e.seq) {
			e, slot = *a, i
		}
	}
	if e.at >= limit {
		return e, false
	}
	if slot >= 0 {
		l.arrivals[slot].at = never
	} else {
		l.events.pop()
	}
	return e, true
}

// scheduleArrival schedules client ci's next arrival at `at`.
func (l *Lane) scheduleArrival(at time.Duration, ci int) {
	if !l.sideArrivals {
		l.schedule(at, evArrival, ci)
		return
	}
	l.seq++
	l.arrivals[ci] = event{at: at, seq: l.seq, kind: evArrival, ref: int32(ci)}
}

func (l *Lane) schedule(at time.Duration, kind eventKind, ref int) {
	l.seq++
	l.events.push(event{at: at, seq: l.seq, kind: kind, ref: int32(ref)})
}

func (l *Lane) handle(e event) {
	switch e.kind {
	case evArrival:
		l.arrive(int(e.ref))
	case evWorker:
		c := &l.clients[e.ref]
		l.attempt(l.newRequest(int(e.ref), c.keys.pick(c.traffic), c.c.Cost.draw(c.traffic), true))
	case evAttempt:
		l.attempt(e.ref)
	case evCommit:
		l.commit(e.ref)
	case evAdmit:
		l.admit(e.ref)
	case evBackendDone:
		l.backendDone(e.ref)
	case evBackendTimeout:
		l.backendTimeout(e.ref)
	}
}

// arrive turns a client's pending event into its deliveries and schedules the next.
func (l *Lane) arrive(ci int) {
	c := &l.clients[ci]
	a := c.pending
	for d := 0; d < c.c.Deliveries; d++ {
		l.attempt(l.newRequest(ci, a.key, a.cost, false))
	}
	if next, ok := c.gen.next(); ok {
		c.pending = next
		l.scheduleArrival(next.at, ci)
	} else if err := c.gen.err(); err != nil {
		l.err = fmt.Errorf("client %q: %w", c.c.Name, err)
	}
}

// newRequest starts a logical request from client ci for its key at position pos.
func (l *Lane) newRequest(ci, pos int, cost int64, worker bool) int32 {
	c := &l.clients[ci]
	c.made++
	id := identity{key: int32(c.c.Keys[pos]), pair: l.pairs[ci][pos]}
	l.rec.m.Offered++
	l.rec.offered(id)
	r := request{client: int32(ci), key: id.key, pair: id.pair, cost: cost, first: l.now, n: c.made, worker: worker, slot: -1}
	if n := len(l.free); n > 0 {
		id := l.free[n-1]
		l.free = l.free[:n-1]
		l.reqs[id] = r
		return id
	}
	l.reqs = append(l.reqs, r)
	return int32(len(l.reqs) - 1)
}

// attempt sends request id to the limiter now.
func (l *Lane) attempt(id int32) {
	r := &l.reqs[id]
	r.attempt++
	r.tries = 0
	l.rec.m.Attempts++
	if l.Config.Strategy == Atomic {
		k := l.cfg.Keys[r.key]
		l.rec.m.StoreCalls++
		d := l.limiters[k.Tier].Allow(k.Name, l.stamp(r), r.cost)
		l.decided(id, d, l.now+l.Config.RoundTrip)
		return
	}
	l.read(id)
}

// stamp is the time r's node clock reads now.
func (l *Lane) stamp(r *request) time.Duration {
	return l.cfg.Nodes[l.clients[r.client].c.Node].Clock(l.now)
}

// read is the first step of a non-atomic decision: read the state now, decide on
// the copy, and land the write (or EXEC) a round trip later.
func (l *Lane) read(id int32) {
	r := &l.reqs[id]
	k := l.cfg.Keys[r.key]
	s := l.split[k.Tier]
	r.tries++
	r.slot = s.read(k.Name, l.stamp(r))
	r.decision = s.decide(r.slot, k.Name, l.stamp(r), r.cost)
	if l.versions != nil {
		r.version = l.versions[r.key]
	}
	l.rec.m.StoreCalls++
	l.schedule(l.now+l.Config.RoundTrip, evCommit, int(id))
}

// commit lands a non-atomic decision's write: blindly for Multi; for Watch only if
// nobody wrote the key since the read, else read again (or give up).
func (l *Lane) commit(id int32) {
	r := &l.reqs[id]
	k := l.cfg.Keys[r.key]
	s := l.split[k.Tier]
	l.rec.m.StoreCalls++
	if l.versions != nil && l.versions[r.key] != r.version {
		s.drop(r.slot)
		r.slot = -1
		if int(r.tries) <= l.Config.WatchRetries {
			l.read(id)
			return
		}
		l.rec.m.Conflicts++
		l.record(r, noDecision)
		l.rec.m.Denied++
		l.tick.Denied++
		l.failed(id, false, noDecision)
		return
	}
	s.write(r.slot, k.Name)
	r.slot = -1
	if l.versions != nil {
		l.versions[r.key]++
	}
	l.decided(id, r.decision, l.now)
}

// decided records d for request id, landed now; the application has the answer at
// answered (a round trip later for an atomic call).
func (l *Lane) decided(id int32, d algorithms.Decision, answered time.Duration) {
	r := &l.reqs[id]
	l.record(r, d)
	if !d.Allowed {
		l.rec.m.Denied++
		l.tick.Denied++
		l.failedAt(id, true, d, answered)
		return
	}
	l.rec.m.Accepted++
	l.tick.Accepted++
	l.rec.queueDelay.add(d.Delay)
	goAhead := answered + d.Delay
	l.rec.admit(r.key, goAhead, r.cost, l.periods[l.cfg.Keys[r.key].Tier])
	if goAhead > l.now {
		l.schedule(goAhead, evAdmit, int(id))
		return
	}
	l.admit(id)
}

// LastDecision is the lane's latest decision and its key, and false before the first.
func (l *Lane) LastDecision() (algorithms.Decision, Key, bool) {
	return l.last, l.cfg.Keys[l.lastKey], l.lastSeen
}

// record keeps d as the latest decision and hands it to the row sink.
func (l *Lane) record(r *request, d algorithms.Decision) {
	l.last, l.lastKey, l.lastSeen = d, r.key, true
	if l.rows == nil {
		return
	}
	l.rows(Row{
		At: l.now, Lane: l.Index, Client: int(r.client), Key: int(r.key), Request: r.n,
		Attempt: int(r.attempt), Cost: r.cost, Allowed: d.Allowed, Remaining: d.Remaining, RetryAfter: d.RetryAfter,
	})
}

// admit lets an accepted request go ahead: to the backend, or straight to success.
func (l *Lane) admit(id int32) {
	if l.backend == nil {
		l.succeeded(id)
		return
	}
	l.backendArrive(id)
}

func (l *Lane) succeeded(id int32) {
	r := &l.reqs[id]
	l.rec.m.Succeeded++
	l.rec.succeeded(identity{r.key, r.pair})
	l.rec.latency.add(l.now - r.first)
	l.finish(id, l.now)
}

// failed handles a request that was denied or errored now.
func (l *Lane) failed(id int32, denied bool, d algorithms.Decision) {
	l.failedAt(id, denied, d, l.now)
}

// failedAt: the application answered at `answered`; the client hears a latency
// later and retries by its policy, or gives up.
func (l *Lane) failedAt(id int32, denied bool, d algorithms.Decision, answered time.Duration) {
	r := &l.reqs[id]
	c := &l.clients[r.client]
	heard := answered + c.c.Latency
	if wait, ok := c.c.Retry.wait(int(r.attempt), denied, d.RetryAfter, c.retry); ok {
		l.schedule(heard+wait, evAttempt, int(id))
		return
	}
	l.rec.m.GaveUp++
	l.finish(id, answered)
}

// finish retires request id; a closed-loop worker sends its next request once the
// client has heard the answer and thought.
func (l *Lane) finish(id int32, answered time.Duration) {
	r := &l.reqs[id]
	c := l.clients[r.client].c
	if r.worker {
		if loop := c.Pattern.(ClosedLoop); answered+c.Latency+loop.Think < c.Stop {
			l.schedule(answered+c.Latency+loop.Think, evWorker, int(r.client))
		}
	}
	l.free = append(l.free, id)
}
