package main

import (
	"context"
	"fmt"
	"os"

	"ratelab/algorithms"
	"ratelab/algorithms/redislua"
	"ratelab/sim"
)

// liveRun is a sim.Run plus what it holds open: the Redis store of its Redis lanes.
type liveRun struct {
	*sim.Run
	store    *redislua.Store
	limiters []*redislua.Limiter
}

// Close releases the lanes' connections, removes the run's keys from Redis (only
// those under its prefix) and disconnects.
func (r *liveRun) Close() error {
	for _, l := range r.limiters {
		l.Close()
	}
	if r.store != nil {
		return r.store.Close()
	}
	return nil
}

// redisLanes says whether any lane runs on Redis.
func redisLanes(cfg *sim.Config) bool {
	for _, l := range cfg.Lanes {
		if l.Backend == "redis" {
			return true
		}
	}
	return false
}

// redisAddress is --redis, or REDIS_URL when the flag is empty.
func redisAddress(flag string) string {
	if flag != "" {
		return flag
	}
	return os.Getenv("REDIS_URL")
}

// newRun starts cfg. Lanes with backend = "redis" run on the Redis at redisURL
// (or REDIS_URL), under a prefix of the run's own; a Redis that does not answer is a
// runtime error when mustReach, else its lanes start unavailable (and decide by
// on_error) until it does. cfg itself is not changed.
func newRun(cfg *sim.Config, redisURL string, mustReach bool) (*liveRun, error) {
	if !redisLanes(cfg) {
		r, err := sim.NewRun(cfg)
		return &liveRun{Run: r}, err
	}
	url := redisAddress(redisURL)
	if url == "" {
		return nil, usagef("scenario %q has lanes on Redis: give --redis redis://127.0.0.1:6379 (or set REDIS_URL)", cfg.Name)
	}
	var store *redislua.Store
	var err error
	if mustReach {
		store, err = redislua.Open(context.Background(), url)
	} else {
		store, err = redislua.Connect(url)
	}
	if err == redislua.ErrURL {
		return nil, usageError{fmt.Errorf("--redis: %w", err)}
	}
	if err != nil {
		return nil, err
	}
	live := &liveRun{store: store}
	withRedis := *cfg
	withRedis.NewLimiter = func(i int, lane sim.LaneConfig, tier int, p algorithms.Policy) (algorithms.Limiter, error) {
		if lane.Backend != "redis" {
			return sim.MemoryLimiter(i, lane, tier, p)
		}
		l, err := redislua.NewLimiter(store, redislua.Config{
			Lane: fmt.Sprintf("%d.%d", i, tier), Algorithm: lane.Algorithm, Policy: p, Options: lane.Options,
			FailOpen: lane.OnError == "open",
		})
		if err == nil {
			live.limiters = append(live.limiters, l)
		}
		return l, err
	}
	live.Run, err = sim.NewRun(&withRedis)
	if err != nil {
		live.Close()
		return nil, err
	}
	return live, nil
}
