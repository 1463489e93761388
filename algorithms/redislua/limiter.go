package redislua

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
)

// Config says how a lane runs on Redis.
type Config struct {
	// Lane names the lane's keys; unique within the run.
	Lane string
	// Algorithm is one of algorithms.Names but x-time-rate.
	Algorithm string
	Policy    algorithms.Policy
	Options   algorithms.Options
	// ServerClock decides with Redis TIME (since Origin, in whole seconds)
	// instead of the caller's now. A simulation passes its true virtual time
	// instead, so it stays deterministic.
	ServerClock bool
	Origin      int64
	// FailOpen allows requests when Redis fails; otherwise they are denied.
	FailOpen bool
	// TTL is the PEXPIRE of every key: idle state disappears after it.
	TTL time.Duration
}

// Limiter is one algorithm of one lane on Redis. It implements algorithms.Limiter
// and algorithms.BatchLimiter (one pipeline per batch); it is not safe for
// concurrent use (the simulator drives it from one goroutine).
type Limiter struct {
	store   *Store
	cfg     Config
	script  *redis.Script
	credits algorithms.Credits
	args    []any // the policy's arguments, after clock, origin and cost
	mode    int   // index of the mode argument
	decode  func(l *Limiter, key string, r []int64) algorithms.Decision
	level   func(l *Limiter, r []int64) float64
	keys    map[string][]string // a key's Redis keys, built once

	split *stepper // the non-atomic strategies' steps, made on first use

	failures     atomic.Int64
	unavailable  atomic.Bool
	stateBytes   int64
	keyCount     int
	measured     time.Duration // when the state was last measured (virtual time)
	everMeasured bool
}

// measureEvery is how much virtual time passes between two measures of a lane's
// state on the server: SCAN walks the whole keyspace, so not every period.
const measureEvery = 10 * time.Second

// NewLimiter returns cfg's algorithm on s.
func NewLimiter(s *Store, cfg Config) (*Limiter, error) {
	p := cfg.Policy.WithDefaults()
	cfg.Policy = p
	if cfg.TTL <= 0 {
		cfg.TTL = 24 * time.Hour
	}
	l := &Limiter{store: s, cfg: cfg, keys: map[string][]string{}}
	c := algorithms.CreditsOf(p, cfg.Options.MaxReserved)
	l.credits = c
	ttl := cfg.TTL.Milliseconds()
	bit := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	units := func(l *Limiter, r []int64) float64 { return l.credits.Units(r[1]) }
	plain := func(l *Limiter, r []int64) float64 { return float64(r[1]) }
	switch cfg.Algorithm {
	case "token-bucket":
		l.args = []any{c.Unit, c.PerMicro, c.Capacity, c.Floor, c.FillUS, bit(cfg.Options.MonotonicTimestamp), ttl}
		l.decode, l.level = decodeBucket(p.Burst, units), units
	case "gcra":
		l.args = []any{c.Unit, c.PerMicro, c.Capacity, ttl}
		l.decode, l.level = decodeBucket(p.Burst, units), units
	case "leaky-bucket":
		l.args = []any{c.Unit, c.PerMicro, c.Capacity, c.FillUS, bit(cfg.Options.Mode == algorithms.LeakyQueue), ttl}
		l.decode, l.level = decodeBucket(p.Burst, units), units
	case "fixed-window":
		l.args = []any{p.Limit, c.PeriodUS, cfg.Options.Rollover, 0, ttl} // the offset is per key
		l.decode, l.level = decodeFixedWindow, plain
	case "sliding-log":
		l.args = []any{p.Limit, c.PeriodUS, ttl}
		l.decode, l.level = decodeBucket(p.Limit, plain), plain
	case "sliding-counter":
		l.args = []any{p.Limit, c.PeriodUS, ttl}
		l.decode, l.level = decodeSlidingCounter, func(l *Limiter, r []int64) float64 { return float64(r[1]) / float64(c.PeriodUS) }
	default:
		return nil, fmt.Errorf("%s has no Redis port", cfg.Algorithm)
	}
	// The lane's own copy of the script (a comment names run and lane, so its SHA is
	// unique): after a SCRIPT FLUSH only this lane loads it again, between its own
	// batches, so no EVALSHA of a batch can run before an earlier one of the same
	// batch that failed with NOSCRIPT and is resent.
	name := map[string]string{
		"token-bucket": "token_bucket", "gcra": "gcra", "leaky-bucket": "leaky_bucket",
		"fixed-window": "fixed_window", "sliding-log": "sliding_log", "sliding-counter": "sliding_counter",
	}[cfg.Algorithm]
	l.script = redis.NewScript(Script(name) + "\n-- ratelab lane " + s.Prefix + ":" + cfg.Lane + "\n")
	return l, nil
}

func (l *Limiter) Algorithm() string         { return l.cfg.Algorithm }
func (l *Limiter) Policy() algorithms.Policy { return l.cfg.Policy }

// Failures is the decisions made by on_error because Redis failed.
func (l *Limiter) Failures() int64 { return l.failures.Load() }

// Unavailable says the last call to Redis failed.
func (l *Limiter) Unavailable() bool { return l.unavailable.Load() }

// redisKeys are the Redis keys of key: one, or the log and its counters.
func (l *Limiter) redisKeys(key string) []string {
	if k, ok := l.keys[key]; ok {
		return k
	}
	base := l.store.Key(l.cfg.Lane, key)
	k := []string{base}
	if l.cfg.Algorithm == "sliding-log" {
		k = []string{base + ":log", base + ":meta"}
	}
	l.keys[key] = k
	return k
}

// argv is a call's arguments: clock, origin, cost, the policy's, the mode.
func (l *Limiter) argv(key string, now time.Duration, cost int64, mode string) []any {
	clock := any(algorithms.Micros(now))
	if l.cfg.ServerClock {
		clock = "server"
	}
	args := make([]any, 0, 4+len(l.args))
	args = append(args, clock, l.cfg.Origin, cost)
	args = append(args, l.args...)
	if l.cfg.Algorithm == "fixed-window" && l.cfg.Options.RandomStart {
		args[6] = algorithms.WindowOffset(key, l.cfg.Policy.Period)
	}
	return append(args, mode)
}

// Allow decides one request: one round trip.
func (l *Limiter) Allow(key string, now time.Duration, cost int64) algorithms.Decision {
	out := make([]algorithms.Decision, 1)
	l.AllowBatch([]algorithms.Request{{Key: key, Now: now, Cost: cost}}, out)
	return out[0]
}

// AllowBatch decides reqs in order in one pipeline; Redis runs the scripts one after
// another, so each sees the state the one before left, as with one call each.
func (l *Limiter) AllowBatch(reqs []algorithms.Request, out []algorithms.Decision) {
	ctx := context.Background()
	cmds := make([]*redis.Cmd, len(reqs))
	send := func(which []int) error {
		pipe := l.store.client.Pipeline()
		for _, i := range which {
			r := reqs[i]
			cmds[i] = l.script.EvalSha(ctx, pipe, l.redisKeys(r.Key), l.argv(r.Key, r.Now, r.Cost, "allow")...)
		}
		_, err := pipe.Exec(ctx)
		return err
	}
	all := make([]int, len(reqs))
	for i := range all {
		all[i] = i
	}
	send(all)
	// NOSCRIPT means the script did not run: load it and send those again. Any
	// other error may have spent tokens and is not replayed.
	var again []int
	for i, c := range cmds {
		if redis.HasErrorPrefix(c.Err(), "NOSCRIPT") {
			again = append(again, i)
		}
	}
	if len(again) > 0 {
		if err := l.script.Load(ctx, l.store.client).Err(); err == nil {
			send(again)
		}
	}
	failed := false
	for i, c := range cmds {
		r, err := c.Int64Slice()
		if err != nil {
			out[i] = l.failure()
			failed = true
			continue
		}
		out[i] = l.decode(l, reqs[i].Key, r)
	}
	l.unavailable.Store(failed)
}

// failure is the decision when Redis did not answer: allowed or denied by on_error,
// and counted.
func (l *Limiter) failure() algorithms.Decision {
	l.failures.Add(1)
	if l.cfg.FailOpen {
		return algorithms.Decision{Allowed: true, Limit: l.cfg.Policy.Burst}
	}
	return algorithms.Decision{Limit: l.cfg.Policy.Burst, RetryAfter: l.cfg.Policy.Period / time.Duration(l.cfg.Policy.Limit)}
}

// decodeBucket composes a decision as the buckets (and the sliding log) do:
// {allowed, remaining, retry_us (−1: never), reset_us, delay_us}.
func decodeBucket(limit int64, remaining func(*Limiter, []int64) float64) func(*Limiter, string, []int64) algorithms.Decision {
	return func(l *Limiter, key string, r []int64) algorithms.Decision {
		d := algorithms.Decision{Allowed: r[0] == 1, Limit: limit, Remaining: remaining(l, r),
			ResetAfter: algorithms.MicrosDuration(r[3]), Delay: algorithms.MicrosDuration(r[4])}
		l.retryAfter(&d, key, r[2])
		return d
	}
}

func decodeFixedWindow(l *Limiter, key string, r []int64) algorithms.Decision {
	d := algorithms.Decision{Allowed: r[0] == 1, Limit: r[5], Remaining: float64(r[1]), ResetAfter: algorithms.MicrosDuration(r[3])}
	l.retryAfter(&d, key, r[2])
	return d
}

func decodeSlidingCounter(l *Limiter, key string, r []int64) algorithms.Decision {
	p, limit := l.credits.PeriodUS, l.cfg.Policy.Limit
	d := algorithms.Decision{Allowed: r[0] == 1, Limit: limit, Remaining: float64(limit*p-r[1]) / float64(p), ResetAfter: algorithms.MicrosDuration(r[3])}
	l.retryAfter(&d, key, r[2])
	return d
}

// retryAfter sets a denial's retry-after from the script's µs, with the key's jitter.
func (l *Limiter) retryAfter(d *algorithms.Decision, key string, us int64) {
	switch {
	case d.Allowed:
	case us < 0:
		d.RetryAfter = algorithms.Forever
	default:
		d.RetryAfter = algorithms.Jitter(us, algorithms.JitterFactor(key, l.cfg.Policy.RetryJitter))
	}
}

// Level is key's level at now, read by the script without changing anything; 0
// when Redis fails.
func (l *Limiter) Level(key string, now time.Duration) float64 {
	ctx := context.Background()
	r, err := l.script.Run(ctx, l.store.client, l.redisKeys(key), l.argv(key, now, 0, "level")...).Int64Slice()
	if err != nil {
		l.unavailable.Store(true)
		return 0
	}
	return l.level(l, r)
}

// Keys is the number of Redis keys the lane held when last measured (see Evict).
func (l *Limiter) Keys() int { return l.keyCount }

// StateBytes is what Redis reported (MEMORY USAGE) for the lane's keys when last
// measured: the real cost on the server, not the Go limiters' logical count.
func (l *Limiter) StateBytes() int64 { return l.stateBytes }

// Evict forgets nothing (PEXPIRE does that on the server); at most every
// measureEvery of virtual time it measures the lane's keys: SCAN on its prefix and
// MEMORY USAGE of each, pipelined.
func (l *Limiter) Evict(now time.Duration) int {
	if l.everMeasured && now-l.measured < measureEvery {
		return 0
	}
	l.measured, l.everMeasured = now, true
	ctx := context.Background()
	pattern := "{" + l.store.Prefix + ":" + l.cfg.Lane + "}:*"
	var bytes, count atomic.Int64 // the nodes are measured at once
	err := l.store.forEachNode(ctx, func(ctx context.Context, node *redis.Client) error {
		iter := node.Scan(ctx, 0, pattern, 1000).Iterator()
		var batch []string
		measure := func() error {
			pipe := node.Pipeline()
			cmds := make([]*redis.IntCmd, len(batch))
			for i, k := range batch {
				cmds[i] = pipe.MemoryUsage(ctx, k, 0)
			}
			pipe.Exec(ctx)
			for _, c := range cmds {
				if n, err := c.Result(); err == nil {
					bytes.Add(n)
					count.Add(1)
				}
			}
			batch = batch[:0]
			return nil
		}
		for iter.Next(ctx) {
			batch = append(batch, iter.Val())
			if len(batch) == 500 {
				measure()
			}
		}
		measure()
		return iter.Err()
	})
	if err == nil {
		l.stateBytes, l.keyCount = bytes.Load(), int(count.Load())
	}
	return 0
}

// Close releases the connections the non-atomic steps hold.
func (l *Limiter) Close() { l.closeSteps() }

// String names the limiter for messages.
func (l *Limiter) String() string {
	return l.cfg.Algorithm + " on Redis " + l.store.Addr + " (lane " + strconv.Quote(l.cfg.Lane) + ")"
}

var _ algorithms.BatchLimiter = (*Limiter)(nil)
