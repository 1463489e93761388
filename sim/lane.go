package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
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
	split    []Splitter           // one per tier, for Multi and Watch

	// Lookahead: an atomic lane whose limiters decide in batches (Redis) and whose
	// round trip is > 0 defers its decisions. Every consequence of a decision at t
	// (an answer, a retry, an admission) comes at t + round trip or later, so the
	// decisions of one round trip cannot influence each other except through the
	// limiter's state, and the limiter applies them in order: they go out in one
	// batch, decided exactly as one at a time.
	batch   []algorithms.BatchLimiter // one per tier, when batching decisions
	steps   []StepBatcher             // one per tier, when batching Multi's steps
	pending []pendingOp
	until   time.Duration // the batch must be decided before events from here on
	// buffers of flush, kept between batches
	reqBuf   []algorithms.Request
	decBuf   []algorithms.Decision
	outBuf   []algorithms.Decision
	stepBuf  []algorithms.Step
	whereBuf []int

	now    time.Duration
	seq    uint64
	pinned uint64 // while a deferred op's answer is applied: its reserved numbers
	events eventHeap
	// arrivals holds each open-loop client's next arrival beside the heap, when
	// there are few clients (sideArrivals): taking the earliest of them and the
	// heap's top in the same (time, seq) order gives the same run with no heap
	// work per arrival. An entry with at == never is empty.
	arrivals     []event
	sideArrivals bool

	clients []clientRun
	pairs   [][]int32 // per client, per key position: its identity's pair (see identity)
	reqs    slab[request]
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

// pendingOp is a decision or a step deferred to the lane's next batch.
type pendingOp struct {
	kind opKind
	id   int32
	seq  uint64 // the sequence numbers reserved for what its answer schedules
	at   time.Duration
	tier int
	req  algorithms.Request // opDecide
	step algorithms.Step    // opRead, opWrite
}

type opKind uint8

const (
	opDecide opKind = iota // an atomic decision
	opRead                 // Multi's read
	opWrite                // Multi's blind write
)

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
	decision algorithms.Decision
}

func newLane(cfg *Config, index int) (*Lane, error) {
	lc := cfg.Lanes[index]
	l := &Lane{Index: index, Config: lc, cfg: cfg, nextTick: cfg.Tick}
	build := cfg.NewLimiter
	if build == nil {
		build = MemoryLimiter
	}
	for t := range cfg.Tiers {
		p := lc.TierPolicy(cfg, t)
		l.evictEvery = max(l.evictEvery, p.Period, cfg.Tick)
		lim, err := build(index, lc, t, p)
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
		if lc.RoundTrip > 0 && !cfg.NoLookahead {
			if b, ok := lim.(algorithms.BatchLimiter); ok && lc.Strategy == Atomic {
				l.batch = append(l.batch, b)
			}
			if b, ok := lim.(StepBatcher); ok && lc.Strategy == Multi {
				l.steps = append(l.steps, b)
			}
		}
	}
	if len(l.batch) != len(l.limiters) {
		l.batch = nil
	}
	if len(l.steps) != len(l.limiters) {
		l.steps = nil
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
		cr := clientRun{c: c}
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

// Series is the lane's samples so far, one per tick.
func (l *Lane) Series() []Sample { return l.series }

// Unavailable says the lane's store (Redis) failed at its last call.
func (l *Lane) Unavailable() bool {
	for _, lim := range l.limiters {
		if u, ok := lim.(interface{ Unavailable() bool }); ok && u.Unavailable() {
			return true
		}
	}
	return false
}

// Metrics are the lane's figures so far.
func (l *Lane) Metrics() Metrics {
	m := l.rec.finish(l.cfg, l.Config)
	if l.backend != nil {
		m.Errors = l.backend.errors
		m.Wasted = l.backend.wasted
		m.BackendUtilization = l.backend.utilization(l.now)
	}
	for _, lim := range l.limiters {
		if f, ok := lim.(interface{ Failures() int64 }); ok {
			m.StoreErrors += f.Failures()
		}
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
			if !ok && len(l.pending) == 0 {
				break
			}
			if len(l.pending) > 0 && (!ok || e.at >= l.until) {
				l.flush() // its consequences may come before e, or before limit
				if ok {
					l.pushBack(e)
				}
				continue
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
			lim.Evict(l.earliestStamp())
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
	l.arrivals[ci] = event{at: at, seq: l.nextSeq(), kind: evArrival, ref: int32(ci)}
}

// seqStride spaces the sequence numbers of events, so that the events a deferred
// op schedules when its batch is decided can take the numbers it reserved when it
// was made (see defer_): ties then break exactly as if it had been decided at once.
const seqStride = 64

// nextSeq is the sequence number of the next event scheduled: the next stride, or
// within the stride a deferred op reserved while its answers are applied.
func (l *Lane) nextSeq() uint64 {
	if l.pinned != 0 {
		l.pinned++
		return l.pinned
	}
	l.seq += seqStride
	return l.seq
}

func (l *Lane) schedule(at time.Duration, kind eventKind, ref int) {
	l.events.push(event{at: at, seq: l.nextSeq(), kind: kind, ref: int32(ref)})
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
	return l.reqs.put(request{client: int32(ci), key: id.key, pair: id.pair, cost: cost, first: l.now, n: c.made, worker: worker, slot: -1})
}

// attempt sends request id to the limiter now.
func (l *Lane) attempt(id int32) {
	r := l.reqs.at(id)
	r.attempt++
	r.tries = 0
	l.rec.m.Attempts++
	if l.Config.Strategy != Atomic {
		l.read(id)
		return
	}
	k := l.cfg.Keys[r.key]
	l.rec.m.StoreCalls++
	if l.batch != nil {
		l.defer_(pendingOp{kind: opDecide, id: id, at: l.now, tier: k.Tier, req: algorithms.Request{Key: k.Name, Now: l.stamp(r), Cost: r.cost}})
		return
	}
	d := l.limiters[k.Tier].Allow(k.Name, l.stamp(r), r.cost)
	l.decided(id, d, l.now+l.Config.RoundTrip)
}

// defer_ adds op to the pending batch, which must then be decided before any
// event a round trip after its first op.
func (l *Lane) defer_(op pendingOp) {
	if len(l.pending) == 0 {
		l.until = l.now + l.Config.RoundTrip
	}
	l.seq += seqStride
	op.seq = l.seq
	l.pending = append(l.pending, op)
}

// flush sends the pending batch, a batch per tier, and applies the answers in the
// order the ops were made, each at the time it was made.
func (l *Lane) flush() {
	if len(l.pending) == 0 {
		return
	}
	l.decBuf = slices.Grow(l.decBuf[:0], len(l.pending))[:len(l.pending)]
	for tier := range l.limiters {
		where, reqs, steps := l.whereBuf[:0], l.reqBuf[:0], l.stepBuf[:0]
		for i, p := range l.pending {
			if p.tier != tier {
				continue
			}
			where = append(where, i)
			if p.kind == opDecide {
				reqs = append(reqs, p.req)
			} else {
				steps = append(steps, p.step)
			}
		}
		switch {
		case len(reqs) > 0:
			out := slices.Grow(l.outBuf[:0], len(reqs))[:len(reqs)]
			l.batch[tier].AllowBatch(reqs, out)
			for j, i := range where {
				l.decBuf[i] = out[j]
			}
			l.outBuf = out
		case len(steps) > 0:
			l.steps[tier].Steps(steps)
			for j, i := range where {
				l.pending[i].step = steps[j]
			}
		}
		l.whereBuf, l.reqBuf, l.stepBuf = where, reqs, steps
	}
	now := l.now
	for i, p := range l.pending {
		l.now, l.pinned = p.at, p.seq
		switch p.kind {
		case opDecide:
			l.decided(p.id, l.decBuf[i], p.at+l.Config.RoundTrip)
		case opRead:
			l.decideRead(p.id, p.step.Slot)
		case opWrite:
			l.decided(p.id, l.reqs.at(p.id).decision, p.at)
		}
	}
	l.now, l.pinned = now, 0
	l.pending = l.pending[:0]
}

// pushBack returns an event taken too early to where it was, keeping its order.
func (l *Lane) pushBack(e event) {
	if e.kind == evArrival && l.sideArrivals {
		l.arrivals[e.ref] = e
		return
	}
	l.events.push(e)
}

// earliestStamp is the earliest time any request from now on can be stamped with:
// the slowest node's clock now (clocks only move forward). Eviction asks whether a
// key is idle at that time, not at the true time, or a node running behind would
// find a key forgotten that it still had to wait on.
func (l *Lane) earliestStamp() time.Duration {
	if l.Config.Clock == "server" {
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
	if l.Config.Clock == "server" {
		return l.now
	}
	return l.cfg.Nodes[l.clients[r.client].c.Node].Clock(l.now)
}

// read is the first step of a non-atomic decision: read the state now, decide on
// the copy, and land the write (or EXEC) a round trip later.
func (l *Lane) read(id int32) {
	r := l.reqs.at(id)
	k := l.cfg.Keys[r.key]
	r.tries++
	l.rec.m.StoreCalls++
	node := l.clients[r.client].c.Node
	if l.steps != nil {
		l.defer_(pendingOp{kind: opRead, id: id, at: l.now, tier: k.Tier, step: algorithms.Step{Node: node, Key: k.Name, Now: l.stamp(r)}})
		return
	}
	l.decideRead(id, l.split[k.Tier].ReadState(node, k.Name, l.stamp(r), l.Config.Strategy == Watch))
}

// decideRead decides request id on the state read into slot, now, and lands the
// write (or EXEC) a round trip later.
func (l *Lane) decideRead(id, slot int32) {
	r := l.reqs.at(id)
	k := l.cfg.Keys[r.key]
	r.slot = slot
	r.decision = l.split[k.Tier].DecideOn(slot, k.Name, l.stamp(r), r.cost)
	l.schedule(l.now+l.Config.RoundTrip, evCommit, int(id))
}

// commit lands a non-atomic decision's write: blindly for Multi; for Watch only if
// nobody wrote the key since the read, else read again (or give up).
func (l *Lane) commit(id int32) {
	r := l.reqs.at(id)
	k := l.cfg.Keys[r.key]
	s := l.split[k.Tier]
	l.rec.m.StoreCalls++
	var committed bool
	switch {
	case l.Config.Strategy == Watch:
		committed = s.CommitState(r.slot, k.Name)
	case l.steps != nil:
		l.defer_(pendingOp{kind: opWrite, id: id, at: l.now, tier: k.Tier, step: algorithms.Step{Write: true, Slot: r.slot, Node: l.clients[r.client].c.Node, Key: k.Name, Now: l.stamp(r)}})
		r.slot = -1
		return
	default:
		s.WriteState(r.slot, l.clients[r.client].c.Node, k.Name)
		committed = true
	}
	r.slot = -1
	if !committed {
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
	l.decided(id, r.decision, l.now)
}

// decided records d for request id, landed now; the application has the answer at
// answered (a round trip later for an atomic call).
func (l *Lane) decided(id int32, d algorithms.Decision, answered time.Duration) {
	r := l.reqs.at(id)
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
	r := l.reqs.at(id)
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
	r := l.reqs.at(id)
	c := &l.clients[r.client]
	heard := answered + c.c.Latency
	var rng *rand.Rand
	if c.c.Retry.Jitter != JitterNone {
		rng = jitterStream(l.cfg.Seed, int(r.client), r.n, int(r.attempt))
	}
	if wait, ok := c.c.Retry.wait(int(r.attempt), denied, d.RetryAfter, rng); ok {
		l.schedule(heard+wait, evAttempt, int(id))
		return
	}
	l.rec.m.GaveUp++
	l.finish(id, answered)
}

// finish retires request id; a closed-loop worker sends its next request once the
// client has heard the answer and thought.
func (l *Lane) finish(id int32, answered time.Duration) {
	r := l.reqs.at(id)
	c := l.clients[r.client].c
	if r.worker {
		if loop := c.Pattern.(ClosedLoop); answered+c.Latency+loop.Think < c.Stop {
			l.schedule(answered+c.Latency+loop.Think, evWorker, int(r.client))
		}
	}
	l.reqs.release(id)
}
