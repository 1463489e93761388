package deploy

import (
	"fmt"
	"time"

	"ratelab/algorithms"
)

// replicated is a store with one replica, as Redis replicates: the primary
// sends each write it applies to the replica, which applies it ReplicaLag
// later, in order (asynchronous replication with a constant lag). So at any
// time t the replica holds the primary's state as of t − lag: every write the
// primary applied by then, and none after.
//
// A failover promotes the replica: the writes the primary applied in the last
// lag, which the replica had not, are lost (the new primary never had them),
// and a write still on its way to the store when it fails over (sent within a
// link's latency before) reaches the new primary. The new primary gets a
// replica at once, synchronised in full (as a replica's full resync does),
// which lags again from there.
//
// A write is a limiter call: the central store's decision (Allow, whose
// effects Redis replicates as a script's), or a replica-reads count (Add).
// Applying the same calls with the same times to a second limiter gives it the
// same state; the replica applies them at their own times, lag after they
// happened.
type replicated struct {
	lag   time.Duration
	fresh func() (algorithms.Limiter, error)
	apply func(lim algorithms.Limiter, w write)
	// primary holds every write; replica those older than lag.
	primary, replica algorithms.Limiter
	// pending are the writes the primary applied that the replica has not,
	// in the order applied, from head; history every write the replica has
	// applied since the run began, which a new replica is rebuilt from at a
	// failover (kept only when keep: a run that fails over).
	pending []write
	head    int
	history []write
	keep    bool
}

// write is one call the primary applied: to key, at its time, of cost units.
type write struct {
	key  string
	at   time.Duration
	cost int64
}

func newReplicated(lag time.Duration, keep bool, fresh func() (algorithms.Limiter, error), apply func(algorithms.Limiter, write)) (*replicated, error) {
	primary, err := fresh()
	if err != nil {
		return nil, err
	}
	replica, err := fresh()
	if err != nil {
		return nil, err
	}
	return &replicated{lag: lag, keep: keep, fresh: fresh, apply: apply, primary: primary, replica: replica}, nil
}

// write applies w to the primary and sends it to the replica. Writes come in
// the order of their times.
func (r *replicated) write(w write) {
	r.apply(r.primary, w)
	r.sent(w)
}

// sent sends to the replica a write the caller applied to the primary itself
// (to have its decision).
func (r *replicated) sent(w write) { r.pending = append(r.pending, w) }

// catchUp applies to the replica every write it has by t: those at or before
// t − lag.
func (r *replicated) catchUp(t time.Duration) {
	for r.head < len(r.pending) && r.pending[r.head].at+r.lag <= t {
		w := r.pending[r.head]
		r.apply(r.replica, w)
		if r.keep {
			r.history = append(r.history, w)
		}
		r.head++
	}
	if r.head > 1024 && r.head*2 > len(r.pending) {
		r.pending = append(r.pending[:0], r.pending[r.head:]...)
		r.head = 0
	}
}

// failover promotes the replica at now (see replicated); it needs the
// history (keep).
func (r *replicated) failover(now time.Duration) {
	if !r.keep {
		panic("deploy: a failover of a store whose replica's history was not kept (Config.Failovers)")
	}
	r.catchUp(now)
	replica, err := r.fresh()
	if err != nil { // it made the two before
		panic(fmt.Sprintf("deploy: a store's limiter made twice cannot be made again: %v", err))
	}
	for _, w := range r.history {
		r.apply(replica, w)
	}
	r.primary, r.replica = r.replica, replica
	var late []write // still on their way at the failover: they reach the new primary
	for _, w := range r.pending[r.head:] {
		if w.at > now { // the others, applied by the old primary only, are lost
			late = append(late, w)
			r.apply(r.primary, w)
		}
	}
	r.pending, r.head = late, 0
}

// forget loses every key of both servers (a flush, which replicates).
func (r *replicated) forget() {
	for _, lim := range []algorithms.Limiter{r.primary, r.replica} {
		if f, ok := lim.(algorithms.Forgetter); ok {
			f.ForgetAll()
		}
	}
	r.pending, r.head, r.history = r.pending[:0], 0, r.history[:0]
}
