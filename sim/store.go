package sim

import (
	"ratelab/algorithms"
)

// StateStore is where a run's limiters keep their state: the process's memory
// (Memory), or a Redis server or cluster (package session's store, on which the
// lanes with Backend OnRedis run and the others stay in memory). It is the one
// seam between the engine and the stores: a run is handed one (NewRun), asks it
// for each of its lanes' limiters when it starts (a limiter per Part), and learns
// the store's health from what it returns, every tick. Whether a lane can run on
// a store at all (a Redis Cluster's slots) is the store's to say, when it is made.
type StateStore interface {
	// Limiter builds the limiter of part for lane (its index in Config.Lanes),
	// and the health of the calls it makes: nil for a limiter in memory, which
	// cannot fail.
	Limiter(lane int, lc LaneConfig, part Part) (algorithms.Limiter, Health, error)
}

// Health is what a lane learns of its store through one of its limiters.
type Health interface {
	// Unavailable says the limiter's last call to its store failed (the UI
	// shows the lane as "redis unavailable").
	Unavailable() bool
	// Failures is how many decisions the limiter left to the lane's on_error
	// because its store failed (Metrics.StoreErrors).
	Failures() int64
}

// Memory keeps every lane's state in the process's memory: each part's
// limiter is algorithms.New's, its keys expiring after the lane's TTL if it has
// one (algorithms.WithTTL) and named by the part's template. It never fails (an
// outage of the scenario's is the lane's, see outage.go).
var Memory StateStore = memory{}

type memory struct{}

func (memory) Limiter(_ int, lc LaneConfig, part Part) (algorithms.Limiter, Health, error) {
	lim, err := algorithms.New(part.Algorithm, part.Policy, part.Options)
	if err != nil {
		return nil, nil, err
	}
	if lc.TTL > 0 {
		if lim, err = algorithms.WithTTL(lim, lc.TTL); err != nil {
			return nil, nil, err
		}
	}
	return algorithms.WithTemplate(lim, part.Template), nil, nil
}
