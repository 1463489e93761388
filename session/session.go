// Package session turns a compiled scenario into a running simulation: every lane
// in memory, or the lanes that say so on the Redis the options name, under a key
// prefix of the run's own. The command line's run, the UI (its runs, restarts and
// exports) and the tests all start runs here, so the Redis wiring is written once.
package session

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"

	"ratelab/algorithms"
	"ratelab/algorithms/redislua"
	"ratelab/sim"
)

// Options say where the lanes on Redis keep their state.
type Options struct {
	// RedisURL is the Redis of the lanes with backend = "redis"; REDIS_URL when
	// empty.
	RedisURL string
	// MustReach makes a Redis that does not answer an error at Start; otherwise
	// its lanes start unavailable (deciding by their on_error) and recover when it
	// answers, as the UI wants.
	MustReach bool
	// Context, when not nil, stops the run when it is done (Ctrl-C, a UI that
	// closes an export): AdvanceTo returns a *sim.Stopped within a few thousand
	// events, and every Redis call in flight ends at once. Close still removes
	// the run's keys.
	Context context.Context
}

// ErrUsage marks an error in what was asked for (a lane on Redis and no URL, a URL
// that is not one): the command line's exit code 2, not a failure at run time.
var ErrUsage = errors.New("usage error")

type usageError struct{ error }

func (usageError) Is(target error) bool { return target == ErrUsage }
func (u usageError) Unwrap() error      { return u.error }

// Session is a running simulation and what it holds open: the Redis store of its
// Redis lanes. Close it when done.
type Session struct {
	*sim.Run
	store    *redislua.Store
	limiters []*redislua.Limiter
}

// Start starts a run of cfg at virtual time zero; cfg itself is not changed.
func Start(cfg *sim.Config, o Options) (*Session, error) {
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if !onRedis(cfg) {
		r, err := sim.NewRun(cfg)
		if err != nil {
			return nil, err
		}
		r.Bound(ctx, 0)
		return &Session{Run: r}, nil
	}
	addr := RedisURL(o.RedisURL)
	if addr == "" {
		return nil, usageError{fmt.Errorf("scenario %q has lanes on Redis: give --redis redis://127.0.0.1:6379 (or set REDIS_URL)", cfg.Name)}
	}
	if IsCluster(addr) {
		for _, l := range cfg.Lanes {
			if l.Backend != sim.OnRedis {
				continue
			}
			if err := l.ClusterProblem(); err != nil {
				return nil, usageError{fmt.Errorf("scenario %q: lane %q cannot run on a Redis Cluster: %w", cfg.Name, l.Name, err)}
			}
		}
	}
	var store *redislua.Store
	var err error
	if o.MustReach {
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
	s := &Session{store: store}
	withRedis := *cfg
	withRedis.NewLimiter = func(i int, lane sim.LaneConfig, part sim.Part) (algorithms.Limiter, error) {
		if lane.Backend != sim.OnRedis {
			return sim.MemoryLimiter(i, lane, part)
		}
		c := redislua.Config{
			Lane: fmt.Sprintf("%d.%d", i, part.Tier), Algorithm: part.Algorithm, Policy: part.Policy, Options: part.Options,
			FailOpen: lane.OnError == sim.FailOpen, Template: part.Template,
		}
		if part.Shard >= 0 { // the shard in the hash tag: shards spread over a cluster's slots
			c.Lane += fmt.Sprintf(".s%d", part.Shard)
		}
		if part.Limit >= 0 {
			c.Part = fmt.Sprintf("l%d", part.Limit)
		}
		l, err := redislua.NewLimiter(store, c)
		if err == nil {
			s.limiters = append(s.limiters, l)
		}
		return l, err
	}
	if s.Run, err = sim.NewRun(&withRedis); err != nil {
		s.Close()
		return nil, err
	}
	s.Run.Bound(ctx, 0)
	return s, nil
}

// Close stops the run, releases the lanes' connections, removes the run's keys
// from Redis (only those under its prefix, within a bounded time, also after the
// run was interrupted) and disconnects. An error says the keys could not be
// removed, and that they expire by themselves.
func (s *Session) Close() error {
	if s.Run != nil {
		s.Run.Close()
	}
	for _, l := range s.limiters {
		l.Close()
	}
	if s.store != nil {
		return s.store.Close()
	}
	return nil
}

// onRedis says whether any lane runs on Redis.
func onRedis(cfg *sim.Config) bool {
	for _, l := range cfg.Lanes {
		if l.Backend == sim.OnRedis {
			return true
		}
	}
	return false
}

// RedisURL is the URL given, or REDIS_URL when it is empty.
func RedisURL(given string) string {
	if given != "" {
		return given
	}
	return os.Getenv("REDIS_URL")
}

// IsCluster says a Redis URL names a Redis Cluster (?cluster=true).
func IsCluster(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Query().Get("cluster") == "true"
}

// RedisHost is the host and port of a Redis URL, for display: never the password.
func RedisHost(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return "(the --redis URL)"
}
