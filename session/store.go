package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"

	"ratelab/algorithms"
	"ratelab/algorithms/redislua"
	"ratelab/sim"
)

// redisStore is the run's sim.StateStore when lanes run on Redis: the lanes
// with Backend OnRedis keep their state on one server or cluster, under a key
// prefix of the run's own (redislua.Store), and the others in memory
// (sim.Memory). Whether a lane can run on it at all is decided here, once, when
// it opens (see clusterProblem). Close removes the run's keys.
type redisStore struct {
	store    *redislua.Store
	limiters []*redislua.Limiter
}

// openRedis opens the Redis at addr for cfg's lanes on Redis: refusing, as a
// usage error, a lane a Redis Cluster cannot run, and a URL that is not one.
// With mustReach, a Redis that does not answer is an error; otherwise the lanes
// start unavailable (deciding by their on_error) and recover when it answers.
func openRedis(ctx context.Context, cfg *sim.Config, addr string, mustReach bool) (*redisStore, error) {
	if isCluster(addr) {
		for _, l := range cfg.Lanes {
			if l.Backend != sim.OnRedis {
				continue
			}
			if err := clusterProblem(l); err != nil {
				return nil, usageError{fmt.Errorf("scenario %q: lane %q cannot run on a Redis Cluster: %w", cfg.Name, l.Name, err)}
			}
		}
	}
	var store *redislua.Store
	var err error
	if mustReach {
		store, err = redislua.Open(ctx, addr)
	} else {
		store, err = redislua.Connect(ctx, addr)
	}
	if errors.Is(err, redislua.ErrURL) {
		return nil, usageError{fmt.Errorf("--redis: %w", err)}
	}
	if err != nil {
		return nil, err
	}
	return &redisStore{store: store}, nil
}

// Limiter builds one part of lane i's limiters: on Redis, under the keys of the
// lane, its tier and its shard or limit (the shard in the hash tag, so a
// cluster spreads shards over its slots); in memory for a lane that is not on
// Redis. Its health is the Redis limiter's own.
func (s *redisStore) Limiter(i int, lane sim.LaneConfig, part sim.Part) (algorithms.Limiter, sim.Health, error) {
	if lane.Backend != sim.OnRedis {
		return sim.Memory.Limiter(i, lane, part)
	}
	if lane.Balanced() { // the scenario compiler keeps such a lane in memory
		return nil, nil, fmt.Errorf("lane %q: instances keep the limit in each instance's own memory; on Redis the lane shares one store: run it in memory", lane.Name)
	}
	if lane.TTL > 0 { // the scenario compiler keeps such a lane in memory
		return nil, nil, fmt.Errorf("lane %q: a ttl is kept on the virtual clock, in memory only (Redis expires keys on its own wall clock, which a simulated run outpaces); run the lane in memory", lane.Name)
	}
	c := redislua.Config{
		Lane: fmt.Sprintf("%d.%d", i, part.Tier), Algorithm: part.Algorithm, Policy: part.Policy, Options: part.Options,
		FailOpen: lane.OnError == sim.FailOpen, Template: part.Template,
	}
	if part.Shard >= 0 {
		c.Lane += fmt.Sprintf(".s%d", part.Shard)
	}
	if part.Limit >= 0 {
		c.Part = fmt.Sprintf("l%d", part.Limit)
	}
	l, err := redislua.NewLimiter(s.store, c)
	if err != nil {
		return nil, nil, err
	}
	s.limiters = append(s.limiters, l)
	return l, l, nil
}

// close releases the limiters' connections, removes the run's keys (within a
// bounded time, also after the run was interrupted) and disconnects.
func (s *redisStore) close() error {
	for _, l := range s.limiters {
		l.Close()
	}
	return s.store.Close()
}

// isCluster says a Redis URL names a Redis Cluster (?cluster=true).
func isCluster(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Query().Get("cluster") == "true"
}

// clusterProblem says why a lane cannot run on a Redis Cluster, or nil. An
// all-or-nothing lane decides in one script over every limit's keys, and a
// cluster runs a script only on keys of one slot: a limit whose key names {key}
// has a slot per request key (shared by that key's other such limits), one that
// names no field a slot of the lane's, so the two kinds cannot meet in one script.
func clusterProblem(l sim.LaneConfig) error {
	if !l.MultiLimit() || l.Combine != algorithms.AllOrNothing {
		return nil
	}
	var perKey, shared *sim.LimitConfig
	for i := range l.Limits {
		if l.Limits[i].Template.PerKey() {
			perKey = cmp.Or(perKey, &l.Limits[i])
		} else {
			shared = cmp.Or(shared, &l.Limits[i])
		}
	}
	if perKey == nil || shared == nil {
		return nil
	}
	return fmt.Errorf(`combine = "all-or-nothing" runs one script over every limit's keys, which a Redis Cluster allows only within one slot; but limit %q (key %q) has a key per request key, each in a slot of its own, and limit %q (key %q) is one key for all, in another: give every limit a key that names {key} (so each request key's limits share a slot), or use combine = "check-then-consume" or "in-order", which need no shared slot`, perKey.Name, perKey.Template, shared.Name, shared.Template)
}
