package sim

import (
	"slices"
	"time"

	"ratelab/algorithms"
)

// The lookahead. A lane whose store is a round trip away (Redis) need not wait a
// round trip per decision: every consequence of a decision made at t — its answer,
// a retry, an admission — comes at t + round trip or later, so the decisions of
// one round trip cannot influence each other except through the limiter's state,
// and the store applies them in order. They go out together, and are decided
// exactly as one at a time would be. The same holds for Multi's reads and blind
// writes. A test replays every shipped scenario both ways.
//
// Each deferred operation reserves sequence numbers when it is made, and the
// events its answer schedules take them (engine.applying), so ties between events
// at one instant break as they would have without the batch.

// batcher holds the operations deferred to the lane's next batch.
type batcher struct {
	l       *Lane
	pending []pendingOp
	until   time.Duration // the batch must be settled before events from here on
	apply   func(op *pendingOp, d algorithms.Decision)

	allow []algorithms.BatchLimiter // per tier, for decisions
	steps []algorithms.StepBatcher  // per tier, for reads and writes
	// buffers, kept between batches
	reqBuf   []algorithms.Request
	decBuf   []algorithms.Decision
	outBuf   []algorithms.Decision
	stepBuf  []algorithms.Step
	whereBuf []int
}

// pendingOp is a decision or a step deferred to the lane's next batch.
type pendingOp struct {
	kind    opKind
	id      int32
	seq     uint64 // the sequence numbers reserved for what its answer schedules
	at      time.Duration
	tier    int
	req     algorithms.Request  // opDecide
	step    algorithms.Step     // opRead, opWrite
	decided algorithms.Decision // opWrite: the decision it writes
}

type opKind uint8

const (
	opDecide opKind = iota // an atomic decision
	opRead                 // Multi's read
	opWrite                // Multi's blind write
)

// add defers op to the batch, which must then be settled before any event a round
// trip after its first op.
func (b *batcher) add(op pendingOp) {
	if len(b.pending) == 0 {
		b.until = b.l.now + b.l.Config.RoundTrip
	}
	op.seq = b.l.reserve()
	b.pending = append(b.pending, op)
}

func (b *batcher) due() time.Duration {
	if len(b.pending) == 0 {
		return never
	}
	return b.until
}

// settle sends the pending batch, a batch per tier, and applies the answers in the
// order the ops were made, each at the time it was made.
func (b *batcher) settle() {
	if len(b.pending) == 0 {
		return
	}
	b.decBuf = slices.Grow(b.decBuf[:0], len(b.pending))[:len(b.pending)]
	for tier := range b.l.limiters {
		where, reqs, steps := b.whereBuf[:0], b.reqBuf[:0], b.stepBuf[:0]
		for i, p := range b.pending {
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
			out := slices.Grow(b.outBuf[:0], len(reqs))[:len(reqs)]
			b.allow[tier].AllowBatch(reqs, out)
			for j, i := range where {
				b.decBuf[i] = out[j]
			}
			b.outBuf = out
		case len(steps) > 0:
			b.steps[tier].Steps(steps)
			for j, i := range where {
				b.pending[i].step = steps[j]
			}
		}
		b.whereBuf, b.reqBuf, b.stepBuf = where, reqs, steps
	}
	now := b.l.now
	for i := range b.pending {
		p := &b.pending[i]
		b.l.applying(p.at, p.seq)
		b.apply(p, b.decBuf[i])
	}
	b.l.done(now)
	b.pending = b.pending[:0]
}

// batchedDecider defers atomic decisions to a batch (see batcher).
type batchedDecider struct{ batcher }

func newBatched(l *Lane, allow []algorithms.BatchLimiter) *batchedDecider {
	b := &batchedDecider{batcher{l: l, allow: allow}}
	b.apply = func(op *pendingOp, d algorithms.Decision) { l.land(op.id, decision(d, op.at+l.Config.RoundTrip)) }
	return b
}

func (b *batchedDecider) decide(id int32) {
	l := b.l
	r := l.reqs.At(id)
	k := &l.cfg.Keys[r.key]
	l.storeCall()
	b.add(pendingOp{kind: opDecide, id: id, at: l.now, tier: k.Tier, req: algorithms.Request{Key: k.Name, Now: l.stamp(r), Cost: r.cost}})
}

func (b *batchedDecider) commit(int32) {}
