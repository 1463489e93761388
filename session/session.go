// Package session turns a compiled scenario into a running simulation: it hands
// the run its store (sim.StateStore: sim.Memory, or the Redis the options name,
// the lanes that say so keeping their state there under a key prefix of the
// run's own), and Drive is the one loop that advances a run and feeds its sinks.
// The command line's run and report, the UI (its runs, restarts and exports)
// and the tests all start and drive runs here, so the Redis wiring and the loop
// are written once.
package session

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"

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

// Session is a running simulation and the store its lanes keep their state in.
// Close it when done.
type Session struct {
	*sim.Run
	redis *redisStore // nil when every lane is in memory
}

// Start starts a run of cfg at virtual time zero; cfg itself is not changed. The
// run's store is memory when no lane is on Redis, else the Redis o names (see
// openRedis); a lane on Redis with no Redis named is a usage error.
func Start(cfg *sim.Config, o Options) (*Session, error) {
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	s := &Session{}
	var store sim.StateStore = sim.Memory
	if onRedis(cfg) {
		addr := RedisURL(o.RedisURL)
		if addr == "" {
			return nil, usageError{fmt.Errorf("scenario %q has lanes on Redis: give --redis redis://127.0.0.1:6379 (or set REDIS_URL)", cfg.Name)}
		}
		var err error
		if s.redis, err = openRedis(ctx, cfg, addr, o.MustReach); err != nil {
			return nil, err
		}
		store = s.redis
	}
	r, err := sim.NewRun(cfg, store)
	if err != nil {
		s.Close()
		return nil, err
	}
	r.Bound(ctx, 0)
	s.Run = r
	return s, nil
}

// Close stops the run, and for a run on Redis releases the lanes' connections,
// removes the run's keys from Redis (only those under its prefix, within a
// bounded time, also after the run was interrupted) and disconnects. An error
// says the keys could not be removed, and that they expire by themselves.
func (s *Session) Close() error {
	if s.Run != nil {
		s.Run.Close()
	}
	if s.redis != nil {
		return s.redis.close()
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

// RedisHost is the host and port of a Redis URL, for display: never the password.
func RedisHost(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return "(the --redis URL)"
}
