package sim

import (
	"fmt"
	"time"

	"ratelab/algorithms"
)

// decider stands between a request and the lane's limiter. There are three, and a
// fourth for lanes that call several limiters per decision (composite.go):
//
//   - atomic: the limiter decides at once (in memory, or one call to the store);
//   - batched: an atomic decision deferred to a batch that goes to the store in
//     one round trip (the lookahead, for Redis), decided exactly as one at a time;
//   - split: the non-atomic strategies, read then write (or commit) a round trip
//     later, their steps possibly batched the same way.
//
// The rest of the lane sees only this seam: attempt calls decide, the commit event
// calls commit, and the event loop asks due and settle for deferred work. A
// decider counts its round trips to the store (Lane.storeCall) and hands what it
// decided to the lane (Lane.land, a landing); it records nothing itself.
type decider interface {
	// decide asks for request id's decision now.
	decide(id int32)
	// commit lands a split decision's write (an evCommit event).
	commit(id int32)
	// due is the time from which events must wait for deferred work to be
	// settled; never when nothing is deferred.
	due() time.Duration
	// settle decides what was deferred and applies the answers, each at the time
	// it was asked.
	settle()
}

// newDecider picks the lane's decider from its strategy and what its limiters can
// do: with a round trip to a store that takes batches, decisions are batched.
func newDecider(l *Lane) (decider, error) {
	lc := l.Config
	// a client's retry remedy keeps state of its own that each answer
	// changes, in the order the answers land: one at a time
	lookahead := lc.RoundTrip > 0 && !l.cfg.NoLookahead && !l.remediedClients()
	if lc.Deployed() {
		return deployDecider{l}, nil
	}
	if lc.Composite() {
		return newComposite(l, lookahead), nil
	}
	if lc.Strategy == algorithms.Atomic {
		if lookahead {
			if b, ok := batchLimiters(l.limiters); ok {
				return newBatched(l, b), nil
			}
		}
		return atomicDecider{l}, nil
	}
	var split []algorithms.Splitter
	for _, lim := range l.limiters {
		s, ok := algorithms.NewSplitter(lim)
		if !ok {
			return nil, fmt.Errorf("strategy %q needs an algorithm whose state is a value (%s), not %s", lc.Strategy, algorithms.Join(algorithms.Where(algorithms.Info.Splittable), " or "), lc.Algorithm)
		}
		split = append(split, s)
	}
	return newSplit(l, split, lookahead && lc.Strategy == algorithms.Multi), nil
}

// batchLimiters returns every tier's limiter as a BatchLimiter, if all are.
func batchLimiters(lims []algorithms.Limiter) ([]algorithms.BatchLimiter, bool) {
	out := make([]algorithms.BatchLimiter, len(lims))
	for i, lim := range lims {
		b, ok := lim.(algorithms.BatchLimiter)
		if !ok {
			return nil, false
		}
		out[i] = b
	}
	return out, true
}

// atomicDecider asks the limiter at once.
type atomicDecider struct{ l *Lane }

func (a atomicDecider) decide(id int32) {
	l := a.l
	r := l.reqs.At(id)
	k := &l.cfg.Keys[r.key]
	l.storeCall()
	d := l.limiters[k.Tier].Allow(k.Name, l.stamp(r), r.cost)
	l.land(id, decision(d, l.now+l.Config.RoundTrip))
}

func (atomicDecider) commit(int32)       {}
func (atomicDecider) due() time.Duration { return never }
func (atomicDecider) settle()            {}
