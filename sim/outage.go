package sim

import (
	"time"

	"ratelab/algorithms"
)

// A store's failures, as a scenario's timed changes (inputs) make them, in every
// lane at the same virtual instant, in memory and on Redis alike:
//
//   - down: the store cannot be reached (a deployment whose instances keep
//     their state in their own memory has none to lose: deploy.Protocol's
//     UsesStore). Until it is up again, every decision
//     that starts — an attempt reaching the lane's decider — is made by the
//     lane's on_error without asking the store: allowed ("open") or refused
//     ("closed", told to retry after one emission interval, period / limit, as a
//     Redis call that fails is). It is answered a round trip later (the call
//     that failed), counted in Metrics.StoreErrors (one per decision, however
//     many limiters the lane would have called) and the series' store_errors,
//     and its row's outcome is store_error. The state is still in the store,
//     unreachable: levels read on as before, and nothing is written. A decision
//     already under way when the store goes down (a batch in flight, a
//     non-atomic write a round trip after its read, a multi-limit lane between
//     stages) completes as if the store had answered: its calls were made.
//   - up: the store answers again, with the state it had.
//   - flushed: the store loses every key of every lane's limiters (and of a
//     sharded lane's measure of its whole limit), as a store flushed or a
//     failover to a replica that had none of them does: each key's next request
//     finds it new, a full bucket or an empty window, whatever it had spent.
//     What was asked of the store before the flush reaches it before the flush
//     (a batch in flight is settled first); a non-atomic read before it and its
//     write after it writes back what was read, as a blind write does; a WATCH
//     read before it fails to commit. On Redis the lane's keys are deleted
//     (SCAN on the lane's own prefix, UNLINK): nothing outside the run's
//     keys is touched. A flush while the store is down still happens (the
//     replica that takes over has nothing).
//   - failed over: the store's replica takes over. A deployed lane whose
//     store has a replica (DeployConfig.Replicated: central, replica-reads)
//     loses the writes of the replica's lag, and nothing older (package
//     deploy, replica.go); a deployment that keeps its state in its
//     instances loses nothing; every other lane's store fails over to a
//     replica that had none of its keys: a flush.

// StoreChange is what happens to every lane's store at an input.
type StoreChange int

const (
	StoreUp         StoreChange = iota // answers again
	StoreDown                          // cannot be reached: on_error decides
	StoreFlushed                       // loses every key
	StoreFailedOver                    // its replica takes over
)

// String is the change's word in scenario files.
func (c StoreChange) String() string { return [...]string{"up", "down", "flushed", "failover"}[c] }

// changeStore makes change c to the lane's store, now.
func (l *Lane) changeStore(c StoreChange) {
	switch c {
	case StoreUp:
		l.storeDown = false
	case StoreDown:
		l.storeDown = true
	case StoreFlushed:
		l.flush()
	case StoreFailedOver:
		l.failover()
	}
}

// failover fails the lane's store over to its replica (see StoreChange): a
// deployment as its protocol does, any other lane as a flush.
func (l *Lane) failover() {
	if !l.Config.Deployed() {
		l.flush()
		return
	}
	l.decider.settle()
	for _, dep := range l.deployed.tiers {
		dep.Failover(l.now)
	}
}

// flush drops every key of the lane's limiters, after what was asked before it.
func (l *Lane) flush() {
	l.decider.settle()
	for _, dep := range l.deployed.tiers {
		dep.Forget()
	}
	for _, lims := range [][]algorithms.Limiter{l.limiters, l.whole} {
		for _, lim := range lims {
			if f, ok := lim.(algorithms.Forgetter); ok {
				f.ForgetAll()
			}
		}
	}
	if s, ok := l.decider.(*splitDecider); ok {
		for _, sp := range s.split {
			if v, ok := sp.(interface{ Invalidate() int }); ok {
				v.Invalidate() // a WATCH read before the flush fails to commit
			}
		}
	}
}

// unreachable decides request id by the lane's on_error, its store being down:
// allowed, or refused with one emission interval to wait (as a failed Redis call
// is), answered a round trip from now — or, with a StoreTimeout, when the
// timeout gives up on the store (envoyproxy/ratelimit#462: every request
// waiting the store's timeout while Redis is down).
func (l *Lane) unreachable(id int32) {
	r := l.reqs.At(id)
	l.outageErrors++
	p := l.Config.TierPolicy(l.cfg, l.cfg.Keys[r.key].Tier).WithDefaults()
	d := algorithms.Decision{Limit: p.Burst, OnError: true}
	if l.Config.OnError == FailOpen {
		d.Allowed = true
	} else {
		d.RetryAfter = p.Period / time.Duration(p.Limit)
	}
	if l.Config.Deployed() { // the ideal, synchronised instantly, has no store to lose
		l.scoreDeployed(r, d.Allowed)
	}
	l.land(id, decision(d, l.now+max(l.Config.RoundTrip, l.Config.StoreTimeout)))
}
