package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"ratelab/algorithms"
)

// The clients' lifecycle in a lane: a logical request is made (an arrival or a
// closed-loop worker), tries the limiter (attempt, through the decider), is
// admitted (at once, or after a queue delay or reservation) and served, or fails;
// a failure is retried by the client's policy or given up on.

// startClient schedules client i's first work: its closed-loop workers, spread
// over the client's Spread, or its first arrival, read from the client's feed.
func (l *Lane) startClient(i int, feed *arrivalFeed) {
	c := &l.cfg.Clients[i]
	cr := clientRun{c: c, retry: c.Retry}
	if l.Config.Retry != nil {
		cr.retry = *l.Config.Retry
	}
	if loop, ok := c.Pattern.(ClosedLoop); ok {
		traffic := newStream(l.cfg.Seed, streamTraffic, i)
		cr.traffic, cr.keys = traffic, newKeyPicker(traffic, c.Keys, c.KeyZipf)
		for w := 0; w < loop.Concurrency; w++ {
			l.schedule(c.Start+loop.Spread*time.Duration(w)/time.Duration(loop.Concurrency), evWorker, i)
		}
	} else {
		cr.feed = feed.reader(l.Index)
	}
	l.clients = append(l.clients, cr)
	if cr.feed != nil {
		l.nextArrival(i)
	}
}

// arrive turns a client's pending event into its deliveries and schedules the next.
func (l *Lane) arrive(ci int) {
	c := &l.clients[ci]
	a := c.pending
	for d := 0; d < c.c.Deliveries; d++ {
		l.attempt(l.newRequest(ci, a.key, a.cost, false))
	}
	l.nextArrival(ci)
}

// nextArrival reads client ci's next arrival from its feed and schedules it; at
// the end of the client's arrivals it schedules nothing, and a failure (a trace
// that changed) stops the lane.
func (l *Lane) nextArrival(ci int) {
	c := &l.clients[ci]
	if next, ok := c.feed.next(); ok {
		c.pending = next
		c.pendingSeq = l.scheduleArrival(next.at, ci)
	} else if err := c.feed.err(); err != nil {
		l.err = fmt.Errorf("client %q: %w", c.c.Name, err)
	}
}

// leaveFeeds tells the clients' feeds the lane reads no more.
func (l *Lane) leaveFeeds() {
	for _, c := range l.clients {
		if c.feed != nil {
			c.feed.leave()
		}
	}
}

// newRequest starts a logical request from client ci for its key at position pos.
func (l *Lane) newRequest(ci, pos int, cost int64, worker bool) int32 {
	c := &l.clients[ci]
	c.made++
	id := identity{key: int32(c.c.Keys[pos]), pair: l.pairs[ci][pos]}
	l.rec.m.Offered++
	l.tick.Offered++
	l.rec.offered(id)
	rid, r := l.reqs.Alloc()
	r.client, r.key, r.pair, r.cost, r.first, r.n, r.worker, r.slot = int32(ci), id.key, id.pair, cost, l.now, c.made, worker, -1
	if c.retry.remedied() {
		l.remedy(ci).deposit(c.retry, l.now)
	}
	return rid
}

// remediedClients says some client of the lane retries with a remedy
// (sim.Retry's Budget, Throttle, Adaptive or Envoy) or honours the RateLimit
// field, or will once a recorded input changes its policy: what each answer
// tells them changes what they send next, so the lane decides one at a time.
func (l *Lane) remediedClients() bool {
	reacts := func(r Retry) bool { return r.remedied() || r.HonourRateLimit }
	if l.Config.Retry != nil {
		return reacts(*l.Config.Retry)
	}
	for _, c := range l.cfg.Clients {
		if reacts(c.Retry) {
			return true
		}
	}
	return slices.ContainsFunc(l.cfg.Inputs, func(in Input) bool { return in.Kind == InputRetry && reacts(in.Retry) })
}

// remedy is the state client ci's retry remedies use: its node's, for its
// policy's parameters.
func (l *Lane) remedy(ci int) *remedyState {
	c := &l.clients[ci]
	k := keyOf(c.c.Node, c.retry)
	s, ok := l.remedies[k]
	if !ok {
		if l.remedies == nil {
			l.remedies = map[remedyKey]*remedyState{}
		}
		s = &remedyState{}
		l.remedies[k] = s
	}
	return s
}

// attempt sends request id to the limiter now, through the lane's decider,
// unless its client's adaptive throttle rejects it first: then the request
// ends there, no attempt made and no row written (Metrics.ClientRejected).
func (l *Lane) attempt(id int32) {
	r := l.reqs.At(id)
	if l.clients[r.client].retry.HonourRateLimit {
		if until, ok := l.holding(r); ok {
			l.schedule(until, evAttempt, int(id)) // held, as the RateLimit field said
			return
		}
	}
	if c := &l.clients[r.client]; c.retry.Adaptive != nil {
		draw := func() *rand.Rand { return throttleStream(l.cfg.Seed, int(r.client), r.n, int(r.attempt)+1) }
		if !l.remedy(int(r.client)).sends(c.retry, l.now, draw) {
			l.rec.m.ClientRejected++
			l.finish(id, l.now)
			return
		}
	}
	r.attempt++
	r.tries = 0
	r.sent = l.now
	l.rec.m.Attempts++
	if c := &l.clients[r.client]; c.retry.Envoy != nil {
		l.remedy(int(r.client)).sent(c.retry)
	}
	l.tick.Attempts++
	if l.storeDown && (!l.Config.Deployed() || l.Config.Deploy.Sync.UsesStore()) {
		l.unreachable(id)
		return
	}
	l.decider.decide(id)
}

// accepted carries request id on once d accepted it, landed now: it goes ahead
// at once, or after its queue delay or reservation, the application having the
// answer at `answered`.
func (l *Lane) accepted(id int32, d algorithms.Decision, answered time.Duration) {
	r := l.reqs.At(id)
	if l.rec.windows != nil {
		l.rec.windowAdmit(r.key, l.stamp(r), r.cost)
	}
	goAhead := later(answered, d.Delay)
	if l.leaves && d.Delay > 0 && goAhead > l.now && !d.OnError {
		// queued where abandoned requests leave: admitted when its turn comes
		// (its row says when), not yet; leaves says the backend has a timeout
		deadline, _ := l.deadline(r)
		l.rowAccepted(r, NotAdmitted, d.Delay)
		l.enqueue(id, goAhead, deadline)
		return
	}
	l.rec.queueDelay.Add(d.Delay)
	l.rowAccepted(r, goAhead, d.Delay)
	switch {
	case d.OnError:
		l.settleRow(r, OutcomeStoreError, answered, false)
	case l.backend != nil: // the backend says later
	case goAhead > l.now && goAhead >= l.cfg.Duration:
		l.settleRow(r, OutcomeInFlight, goAhead, false) // queued or reserved past the end
	default:
		// without a backend, going ahead is success: known now, so the row
		// need not wait (and hold every row decided after it) until then
		l.settleRow(r, OutcomeServed, goAhead, false)
	}
	l.rec.admit(r.key, goAhead, l.now, r.cost, l.periods[l.cfg.Keys[r.key].Tier])
	if deadline, ok := l.deadline(r); ok && goAhead >= deadline && !d.OnError {
		// still in the limiter's queue (or waiting for its reservation) when
		// the client stops waiting: it never reaches the backend
		l.schedule(max(deadline, l.now), evDeadline, int(id))
		return
	}
	if goAhead > l.now {
		l.schedule(goAhead, evAdmit, int(id))
		return
	}
	l.admit(id)
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
	r := l.reqs.At(id)
	l.rec.m.Succeeded++
	if l.rec.scopes.scopes != nil {
		l.rec.scopes.succeed(r, l.now)
	}
	if c := &l.clients[r.client]; c.retry.remedied() {
		s := l.remedy(int(r.client))
		s.answered(c.retry, r.retry)
		s.succeeded(c.retry, l.now)
	}
	l.rec.succeeded(identity{r.key, r.pair})
	l.rec.latency.Add(l.now - r.first)
	l.settleRow(r, OutcomeServed, l.now, false)
	l.finish(id, l.now)
}

// noDecision is the answer carried by a failure that is not the limiter's: a
// backend error, a WATCH that kept losing.
var noDecision algorithms.Decision

// failedAs handles an attempt that failed now without a decision of the
// limiter's (a backend error, a WATCH that kept losing), its row's outcome o
// unless the client gives up; it returns the row's number when the row is
// held for the backend's last word (a timed-out attempt), else 0.
func (l *Lane) failedAs(id int32, o Outcome) int64 {
	return l.failedAt(id, false, noDecision, l.now, o)
}

// failedAt: the application answered at `answered`; the client hears a latency
// later and retries by its policy (the attempt's row then says o), or gives up
// (gave_up, or store_error for a decision of on_error).
func (l *Lane) failedAt(id int32, denied bool, d algorithms.Decision, answered time.Duration, o Outcome) int64 {
	r := l.reqs.At(id)
	timedOut := o == OutcomeTimedOut // the backend may yet serve it: wasted
	if d.OnError {
		o = OutcomeStoreError
	}
	c := &l.clients[r.client]
	heard := later(answered, c.c.Latency)
	var stream func(attempt int) *rand.Rand // only a jittered wait draws: no closure per failure otherwise
	if c.retry.Jitter != JitterNone {
		stream = func(attempt int) *rand.Rand { return jitterStream(l.cfg.Seed, int(r.client), r.n, attempt) }
	}
	wait, ok := c.retry.wait(int(r.attempt), denied, d.RetryAfter, stream)
	if c.retry.remedied() {
		retried, s := ok, l.remedy(int(r.client))
		s.answered(c.retry, r.retry)
		ok = s.mayRetry(c.retry, c.retry.retries(denied), ok, l.now)
		if retried && !ok {
			l.rec.m.RetriesWithheld++
		}
		r.retry = ok && c.retry.Envoy != nil
	}
	if ok {
		l.schedule(later(heard, wait), evAttempt, int(id))
		return l.settleRow(r, o, answered, timedOut)
	}
	l.rec.m.GaveUp++
	if r.spent {
		l.rec.m.Starved++
	}
	if o != OutcomeStoreError {
		o = OutcomeGaveUp
	}
	row := l.settleRow(r, o, answered, timedOut)
	l.finish(id, answered)
	return row
}

// finish retires request id; a closed-loop worker sends its next request once the
// client has heard the answer and thought.
func (l *Lane) finish(id int32, answered time.Duration) {
	r := l.reqs.At(id)
	c := l.clients[r.client].c
	if r.worker {
		if loop := c.Pattern.(ClosedLoop); later(answered, c.Latency+loop.Think) < c.Stop {
			l.schedule(answered+c.Latency+loop.Think, evWorker, int(r.client))
		}
	}
	l.reqs.Release(id)
}
