package sim

import (
	"slices"
	"time"

	"ratelab/algorithms"
)

// A leaky queue whose abandoned requests leave it (the leaky bucket's
// abandoned = "leave", algorithms.Options.LeaveAbandoned): when a queued
// request's client stops waiting before its turn, the request leaves the
// queue, its units come out of the bucket (algorithms.Leaver), and every
// request queued behind it on its key goes ahead that much sooner — a queue
// that drops cancelled work. The default keeps it (nginx's limit_req): its
// units drain as if it were served, and those behind it wait for it.
//
// So the lane holds each key's queued requests in order, with the event that
// will end each one's wait: its turn (evQueueTurn) or its client's deadline
// (evQueueLeave). Moving a request up schedules a new event; the old one, no
// longer its live one, is passed over when it comes (waitingEvent). A queued
// request counts as admitted (its row's admitted_at and queue_delay, the
// queue-delay percentile, the peak windows) when it goes ahead, not when it
// is accepted; one that leaves is not admitted at all: its row has no
// admitted_at (NotAdmitted), and its queue_delay is how long it waited.

// NotAdmitted is the AdmittedAt of a row whose request left the queue before
// its turn: accepted, never gone ahead.
const NotAdmitted time.Duration = -1

// waiter is a request in a leaky queue whose abandoned requests leave.
type waiter struct {
	goAhead  time.Duration // its turn, as it stands now
	deadline time.Duration // when its client stops waiting
	decided  time.Duration // when the limiter accepted it
	turn     uint64        // the sequence number of its turn's event, while it heads its line
	leave    uint64        // the sequence number of its deadline's event
}

// waitlines are a lane's queued requests: by request, and each key's in order.
type waitlines struct {
	waiters map[int32]*waiter
	lines   map[int32][]int32
}

// leavesAbandoned says the lane's queue drops requests whose clients stopped
// waiting: a leaky bucket in queue mode with abandoned = "leave", in memory,
// with a backend whose clients give up. The lane asks once (Lane.leaves).
func (l *Lane) leavesAbandoned() bool {
	if !l.Config.Options.LeaveAbandoned || l.backend == nil || l.backend.b.Timeout <= 0 || len(l.limiters) == 0 {
		return false
	}
	_, ok := l.limiters[0].(algorithms.Leaver)
	return ok
}

// enqueue holds request id, accepted now to go ahead at goAhead, in its key's
// queue, until its turn or its client's deadline. Every waiter has its
// deadline's event, which never moves; only the head of a line has its turn's
// (those behind it go in order), so a leave moves the others' turns without
// scheduling anything.
func (l *Lane) enqueue(id int32, goAhead, deadline time.Duration) {
	if l.waiting.waiters == nil {
		l.waiting = waitlines{waiters: map[int32]*waiter{}, lines: map[int32][]int32{}}
	}
	r := l.reqs.At(id)
	w := &waiter{goAhead: goAhead, deadline: deadline, decided: l.now, leave: l.nextSeq()}
	l.push(event{at: max(deadline, l.now), seq: w.leave, kind: evQueueLeave, ref: id})
	l.waiting.waiters[id] = w
	l.waiting.lines[r.key] = append(l.waiting.lines[r.key], id)
	if len(l.waiting.lines[r.key]) == 1 {
		l.scheduleTurn(id, w)
	}
}

// scheduleTurn schedules the turn of w, the head of its line, unless its
// client's deadline comes first (then its deadline's event makes it leave).
func (l *Lane) scheduleTurn(id int32, w *waiter) {
	if w.goAhead >= w.deadline {
		return
	}
	w.turn = l.nextSeq()
	l.push(event{at: max(w.goAhead, l.now), seq: w.turn, kind: evQueueTurn, ref: id})
}

// waitingEvent says whether e, an evQueueTurn or evQueueLeave, is its
// request's live event: a turn of a waiter heading its line, or a waiter's
// deadline while it still waits past it.
func (l *Lane) waitingEvent(e event) bool {
	w, ok := l.waiting.waiters[e.ref]
	if !ok {
		return false
	}
	if e.kind == evQueueTurn {
		return w.turn == e.seq
	}
	return w.leave == e.seq && w.goAhead >= w.deadline
}

// goAheadFromQueue: request id's turn has come; it leaves its key's queue,
// admitted now, and the next in line heads it.
func (l *Lane) goAheadFromQueue(id int32) {
	r := l.reqs.At(id)
	w := l.dequeue(id)
	waited := l.now - w.decided
	l.rec.queueDelay.Add(waited)
	l.rowAccepted(r, l.now, waited)
	l.rec.admit(r.key, l.now, l.now, r.cost, l.periods[l.cfg.Keys[r.key].Tier])
	l.admit(id)
}

// leaveQueue: request id's client stopped waiting before its turn; it leaves
// its key's queue, whose requests behind it go ahead sooner, and fails as
// timed out.
func (l *Lane) leaveQueue(id int32) {
	r := l.reqs.At(id)
	k := &l.cfg.Keys[r.key]
	sooner := l.limiters[k.Tier].(algorithms.Leaver).Leave(k.Name, l.stamp(r), r.cost)
	line := l.waiting.lines[r.key]
	i := slices.Index(line, id)
	for _, next := range line[i+1:] {
		nw := l.waiting.waiters[next]
		nw.goAhead = max(nw.goAhead-sooner, l.now)
	}
	w := l.dequeue(id)
	l.rowAccepted(r, NotAdmitted, l.now-w.decided)
	l.deadlinePassed(id)
}

// dequeue takes request id out of its key's queue and returns its waiter;
// when it headed the line, the next one heads it now and has its turn
// scheduled.
func (l *Lane) dequeue(id int32) *waiter {
	r := l.reqs.At(id)
	w := l.waiting.waiters[id]
	delete(l.waiting.waiters, id)
	line := l.waiting.lines[r.key]
	i := slices.Index(line, id)
	line = slices.Delete(line, i, i+1)
	switch {
	case len(line) == 0:
		delete(l.waiting.lines, r.key)
	case i == 0:
		l.waiting.lines[r.key] = line
		l.scheduleTurn(line[0], l.waiting.waiters[line[0]])
	default:
		l.waiting.lines[r.key] = line
	}
	return w
}
