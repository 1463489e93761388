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
// (ratelab bench): the same script, arguments and state format as a simulated
// lane, decided by one of the three strategies. It is safe for concurrent use, and
// counts the commands it sends, so a benchmark can report Redis calls per decision.
type Live struct {
	store    *Store
	strategy algorithms.Strategy
	lane     string
	bucket   algorithms.RemoteSteps // decides multi's and watch's reads; holds no state
	codec    codec
	script   *redis.Script
	port     port
	// MaxTries is how many times watch tries before it gives up (default 20).
	MaxTries int

	calls   atomic.Int64
	gaveUp  atomic.Int64
	errored atomic.Int64
}

// NewLive returns a token bucket enforcing p on s by strategy, its keys under lane.
// The timestamp fix is on (the clocks of one machine's goroutines agree anyway).
func NewLive(s *Store, lane string, strategy algorithms.Strategy, p algorithms.Policy) (*Live, error) {
	p = p.WithDefaults()
	tb := algorithms.MustLookup(algorithms.TokenBucketName)
	o := tb.Defaults // the timestamp fix on
	if strategy < algorithms.Atomic || strategy > algorithms.Watch {
		return nil, fmt.Errorf("unknown strategy %d", strategy)
	}
	return &Live{store: s, strategy: strategy, lane: lane, bucket: tb.Split.Remote(p, o), codec: codec{fields: tb.Split.Fields()},
		script: redis.NewScript(Script(tb.Redis.Script)), port: portOf(tb, p, o), MaxTries: 20}, nil
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
	case algorithms.Atomic:
		allowed, err = l.atomic(ctx, rkey, key, now)
	case algorithms.Multi:
		allowed, err = l.multi(ctx, rkey, key, now)
	case algorithms.Watch:
		allowed, err = l.watch(ctx, rkey, key, now)
	}
	if err != nil && !errors.Is(err, ErrGaveUp) {
		l.errored.Add(1)
	}
	return allowed, err
}

func (l *Live) atomic(ctx context.Context, rkey, key string, now time.Duration) (bool, error) {
	args := l.port.argv(key, now, 1, "allow")
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

// read reads a bucket's state (or the idle state).
func (l *Live) read(ctx context.Context, c redis.Cmdable, rkey, key string, now time.Duration) ([]int64, error) {
	st := make([]int64, l.codec.size())
	l.bucket.Idle(key, now, st)
	l.calls.Add(1)
	return st, l.codec.parse(l.codec.read(ctx, c, rkey), st)
}

func (l *Live) multi(ctx context.Context, rkey, key string, now time.Duration) (bool, error) {
	st, err := l.read(ctx, l.store.client, rkey, key, now)
	if err != nil {
		return false, err
	}
	d := l.bucket.Decide(st, key, now, 1)
	for _, c := range l.codec.write(ctx, l.store.client, rkey, st) {
		l.calls.Add(1)
		if err := c.Err(); err != nil {
			return false, err
		}
	}
	return d.Allowed, nil
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
			d := l.bucket.Decide(st, key, now, 1)
			allowed = d.Allowed
			l.calls.Add(4) // MULTI, HSET, PEXPIRE, EXEC
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				l.codec.write(ctx, p, rkey, st)
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
