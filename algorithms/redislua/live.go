package redislua

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
)

// Live is a token bucket on Redis for real concurrent callers on the wall clock
// (ratelab bench): the same script and state as a simulated lane, decided by one of
// the three strategies. It is safe for concurrent use, and counts the commands it
// sends, so a benchmark can report Redis calls per decision.
type Live struct {
	store    *Store
	strategy string
	lane     string
	bucket   *algorithms.TokenBucket // decides multi's and watch's reads; holds no state
	script   *redis.Script
	args     []any
	ttl      time.Duration
	// MaxTries is how many times watch tries before it gives up (default 20).
	MaxTries int

	calls   atomic.Int64
	gaveUp  atomic.Int64
	errored atomic.Int64
}

// Strategies are the ways Live can decide: lua (one EVALSHA, atomic), multi (HMGET,
// compute, HSET, PEXPIRE: three commands, not atomic) and watch (WATCH, HMGET,
// MULTI/HSET/PEXPIRE/EXEC, again while another writer wins).
var Strategies = []string{"lua", "multi", "watch"}

// NewLive returns a token bucket enforcing p on s by strategy, its keys under lane.
// The timestamp fix is on (the clocks of one machine's goroutines agree anyway).
func NewLive(s *Store, lane, strategy string, p algorithms.Policy) (*Live, error) {
	p = p.WithDefaults()
	c := algorithms.CreditsOf(p, 0)
	l := &Live{store: s, strategy: strategy, lane: lane, bucket: algorithms.NewTokenBucket(p, true, 0),
		script: redis.NewScript(Script("token_bucket")), ttl: time.Hour, MaxTries: 20,
		args: []any{c.Unit, c.PerMicro, c.Capacity, c.Floor, c.FillUS, 1, time.Hour.Milliseconds(), "allow"}}
	switch strategy {
	case "lua", "multi", "watch":
		return l, nil
	}
	return nil, fmt.Errorf("unknown strategy %q; use lua, multi or watch", strategy)
}

// Calls is the commands sent so far; GaveUp the watch decisions that lost every
// try; Errors the decisions Redis failed.
func (l *Live) Calls() int64  { return l.calls.Load() }
func (l *Live) GaveUp() int64 { return l.gaveUp.Load() }
func (l *Live) Errors() int64 { return l.errored.Load() }

// ErrGaveUp is a watch decision that lost the race MaxTries times.
var ErrGaveUp = errors.New("gave up after losing every WATCH race")

// Allow decides one request for key at now (from the caller's clock).
func (l *Live) Allow(ctx context.Context, key string, now time.Duration) (bool, error) {
	rkey := l.store.Key(l.lane, key)
	var allowed bool
	var err error
	switch l.strategy {
	case "lua":
		allowed, err = l.lua(ctx, rkey, now)
	case "multi":
		allowed, err = l.multi(ctx, rkey, key, now)
	case "watch":
		allowed, err = l.watch(ctx, rkey, key, now)
	}
	if err != nil && !errors.Is(err, ErrGaveUp) {
		l.errored.Add(1)
	}
	return allowed, err
}

func (l *Live) lua(ctx context.Context, rkey string, now time.Duration) (bool, error) {
	args := append([]any{algorithms.Micros(now), 0, 1}, l.args...)
	l.calls.Add(1)
	r, err := l.script.EvalSha(ctx, l.store.client, []string{rkey}, args...).Int64Slice()
	if redis.HasErrorPrefix(err, "NOSCRIPT") { // not run: send the script itself
		l.calls.Add(1)
		r, err = l.script.Eval(ctx, l.store.client, []string{rkey}, args...).Int64Slice()
	}
	if err != nil {
		return false, err
	}
	return r[0] == 1, nil
}

// read reads a bucket's state (or the idle state) with HMGET.
func (l *Live) read(ctx context.Context, c redis.Cmdable, rkey, key string, now time.Duration) (algorithms.TokenState, error) {
	st := l.bucket.Read(key, now)
	l.calls.Add(1)
	v, err := c.HMGet(ctx, rkey, "c", "t").Result()
	if err != nil {
		return st, err
	}
	return st, parseBucket(v, &st)
}

func (l *Live) multi(ctx context.Context, rkey, key string, now time.Duration) (bool, error) {
	st, err := l.read(ctx, l.store.client, rkey, key, now)
	if err != nil {
		return false, err
	}
	d, next := l.bucket.Decide(st, key, now, 1)
	l.calls.Add(2)
	if err := l.store.client.HSet(ctx, rkey, "c", next.Credits, "t", next.Last).Err(); err != nil {
		return false, err
	}
	return d.Allowed, l.store.client.PExpire(ctx, rkey, l.ttl).Err()
}

func (l *Live) watch(ctx context.Context, rkey, key string, now time.Duration) (bool, error) {
	for try := 0; try < l.MaxTries; try++ {
		var allowed bool
		l.calls.Add(1) // WATCH (go-redis sends UNWATCH only when the function fails)
		err := l.store.client.Watch(ctx, func(tx *redis.Tx) error {
			st, err := l.read(ctx, tx, rkey, key, now)
			if err != nil {
				return err
			}
			d, next := l.bucket.Decide(st, key, now, 1)
			allowed = d.Allowed
			l.calls.Add(4) // MULTI, HSET, PEXPIRE, EXEC
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.HSet(ctx, rkey, "c", next.Credits, "t", next.Last)
				p.PExpire(ctx, rkey, l.ttl)
				return nil
			})
			return err
		}, rkey)
		if err == nil {
			return allowed, nil
		}
		if !errors.Is(err, redis.TxFailedErr) {
			return false, err
		}
	}
	l.gaveUp.Add(1)
	return false, ErrGaveUp
}
