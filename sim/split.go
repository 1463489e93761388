package sim

import (
	"ratelab/algorithms"
)

// splitDecider runs the non-atomic strategies (algorithms.Multi, algorithms.Watch)
// as steps on the virtual clock: read the state, decide on the copy, and a round
// trip later write it back blindly (Multi) or commit it only if nobody wrote the
// key since the read (Watch), reading again when another writer won, up to the
// lane's WatchRetries. Multi's steps can be batched (see batcher); Watch's cannot,
// since each WATCH holds a connection of its own until its EXEC.
type splitDecider struct {
	l       *Lane
	split   []algorithms.Splitter // one per tier
	batched bool
	batcher
	// decided is, per tier, the decision made on each slot's state, from the
	// read that filled the slot until its write (a slot is one request's
	// until then)
	decided [][]algorithms.Decision
}

func newSplit(l *Lane, split []algorithms.Splitter, lookahead bool) *splitDecider {
	s := &splitDecider{l: l, split: split, decided: make([][]algorithms.Decision, len(split))}
	s.batcher = batcher{l: l}
	if lookahead {
		for _, sp := range split {
			if b, ok := sp.(algorithms.StepBatcher); ok {
				s.steps = append(s.steps, b)
			}
		}
		s.batched = len(s.steps) == len(split)
	}
	s.apply = func(op *pendingOp, _ algorithms.Decision) {
		switch op.kind {
		case opRead:
			s.decideRead(op.id, op.step.Slot)
		case opWrite:
			l.land(op.id, decision(op.decided, op.at))
		}
	}
	return s
}

// decide is the first step of a non-atomic decision: read the state now.
func (s *splitDecider) decide(id int32) { s.read(id) }

// read reads request id's key now, then decides on the copy.
func (s *splitDecider) read(id int32) {
	l := s.l
	r := l.reqs.At(id)
	k := l.cfg.Keys[r.key]
	r.tries++
	l.storeCall()
	node := l.clients[r.client].c.Node
	if s.batched {
		s.add(pendingOp{kind: opRead, id: id, at: l.now, tier: k.Tier, step: algorithms.Step{Node: node, Key: k.Name, Now: l.stamp(r)}})
		return
	}
	s.decideRead(id, s.split[k.Tier].ReadState(node, k.Name, l.stamp(r), l.Config.Strategy == algorithms.Watch))
}

// decideRead decides request id on the state read into slot, now, and lands the
// write (or EXEC) a round trip later.
func (s *splitDecider) decideRead(id, slot int32) {
	l := s.l
	r := l.reqs.At(id)
	k := l.cfg.Keys[r.key]
	r.slot = slot
	d := &s.decided[k.Tier]
	if int(slot) >= len(*d) {
		*d = append(*d, make([]algorithms.Decision, int(slot)+1-len(*d))...)
	}
	(*d)[slot] = s.split[k.Tier].DecideOn(slot, k.Name, l.stamp(r), r.cost)
	l.schedule(l.now+l.Config.RoundTrip, evCommit, int(id))
}

// commit lands a non-atomic decision's write: blindly for Multi; for Watch only if
// nobody wrote the key since the read, else read again (or give up).
func (s *splitDecider) commit(id int32) {
	l := s.l
	r := l.reqs.At(id)
	k := l.cfg.Keys[r.key]
	sp := s.split[k.Tier]
	decided := s.decided[k.Tier][r.slot] // the slot is freed by the write
	l.storeCall()
	var committed bool
	switch {
	case l.Config.Strategy == algorithms.Watch:
		committed = sp.CommitState(r.slot, k.Name)
	case s.batched:
		s.add(pendingOp{kind: opWrite, id: id, at: l.now, tier: k.Tier, decided: decided, step: algorithms.Step{Write: true, Slot: r.slot, Node: l.clients[r.client].c.Node, Key: k.Name, Now: l.stamp(r)}})
		r.slot = -1
		return
	default:
		sp.WriteState(r.slot, l.clients[r.client].c.Node, k.Name)
		committed = true
	}
	r.slot = -1
	if !committed {
		if int(r.tries) <= l.Config.WatchRetries {
			s.read(id)
			return
		}
		l.land(id, &landing{d: noDecision, answered: l.now, lost: true, shard: -1})
		return
	}
	l.land(id, decision(decided, l.now))
}
