package redislua

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
)

// Config says how a lane runs on Redis.
type Config struct {
	// Lane names the lane's keys; unique within the run.
	Lane string
	// Algorithm is an algorithm with a Redis port (algorithms.Info.Redis).
	Algorithm algorithms.Name
	Policy    algorithms.Policy
	Options   algorithms.Options
	// FailOpen allows requests when Redis fails; otherwise they are denied.
	FailOpen bool
	// Part, when not empty, makes this limiter one of the limits of a lane that
	// holds each request to several (Part names it, "l0", "l1"…), its keys named by
	// Template from the request's key. Its Redis keys are
	// {<prefix>:<lane>|<request key>}:<part>:<name> when the template names {key},
	// so one key's limits share a slot (an all-or-nothing script can touch them all)
	// and keys spread over a cluster's slots; {<prefix>:<lane>}:<part>:<name> when
	// it names no field (one key that every request shares).
	Part     string
	Template algorithms.KeyTemplate
}

// Limiter is one algorithm of one lane on Redis. It implements algorithms.Limiter,
// algorithms.BatchLimiter (one pipeline per batch) and, for the algorithms whose
// state is one value, algorithms.StepBatcher (the non-atomic strategies); it is not
// safe for concurrent use (the simulator drives it from one goroutine). The caller
// passes the clock: the virtual clock, or a skewed node's.
type Limiter struct {
	store  *Store
	cfg    Config
	script *redis.Script
	port   port
	// scriptName is the algorithm's script (RedisPort.Script); suffixes name a
	// key's Redis keys after its base name (RedisPort.KeySuffixes).
	scriptName string
	suffixes   []string
	keys       map[string][]string // a key's Redis keys, built once

	split *splitter // the non-atomic strategies' steps, made on first use

	scriptLoaded bool // script is known to be loaded (for a Set's calls)

	failures     atomic.Int64
	unavailable  atomic.Bool
	stateBytes   int64
	keyCount     int
	measured     time.Duration // when the state was last measured (virtual time)
	everMeasured bool
}

var (
	_ algorithms.BatchLimiter = (*Limiter)(nil)
	_ algorithms.StepBatcher  = (*Limiter)(nil)
	_ algorithms.Checker      = (*Limiter)(nil)
	_ algorithms.SetJoiner    = (*Limiter)(nil)
	_ algorithms.Forgetter    = (*Limiter)(nil)
)

// measureEvery is how much virtual time passes between two measures of a lane's
// state on the server: SCAN walks the whole keyspace, so not every period.
const measureEvery = 10 * time.Second

// NewLimiter returns cfg's algorithm on s.
func NewLimiter(s *Store, cfg Config) (*Limiter, error) {
	cfg.Policy = cfg.Policy.WithDefaults()
	info, err := algorithms.Get(cfg.Algorithm)
	if err != nil {
		return nil, err
	}
	if info.Redis == nil {
		return nil, fmt.Errorf("%s has no Redis port", cfg.Algorithm)
	}
	l := &Limiter{store: s, cfg: cfg, keys: map[string][]string{}, port: portOf(info, cfg.Policy, cfg.Options),
		scriptName: info.Redis.Script, suffixes: info.Redis.KeySuffixes}
	// The lane's own copy of the script (a comment names run and lane, so its SHA is
	// unique): after a SCRIPT FLUSH only this lane loads it again, between its own
	// batches, so no EVALSHA of a batch can run before an earlier one of the same
	// batch that failed with NOSCRIPT and is resent.
	l.script = redis.NewScript(Script(info.Redis.Script) + "\n-- ratelab lane " + s.Prefix + ":" + cfg.Lane + "\n")
	return l, nil
}

func (l *Limiter) Algorithm() algorithms.Name { return l.cfg.Algorithm }
func (l *Limiter) Policy() algorithms.Policy  { return l.cfg.Policy }

// Failures is the decisions made by on_error because Redis failed.
func (l *Limiter) Failures() int64 { return l.failures.Load() }

// Unavailable says the last call to Redis failed.
func (l *Limiter) Unavailable() bool { return l.unavailable.Load() }

// redisKeys are the Redis keys of key: its base name, or one per suffix of the
// algorithm's port (the sliding log's log and counters).
func (l *Limiter) redisKeys(key string) []string {
	if k, ok := l.keys[key]; ok {
		return k
	}
	base := l.store.Key(l.cfg.Lane, key)
	if l.cfg.Part != "" {
		lane := l.cfg.Lane
		if l.cfg.Template.PerKey() {
			lane += "|" + key
		}
		base = l.store.Key(lane, l.cfg.Part+":"+l.cfg.Template.Render(key))
	}
	k := []string{base}
	if len(l.suffixes) > 0 {
		k = make([]string, len(l.suffixes))
		for i, suffix := range l.suffixes {
			k[i] = base + suffix
		}
	}
	l.keys[key] = k
	return k
}

// argv is a call's arguments: now, cost, the policy's, the mode. The port sees the
// key's name (rendered by the template), as the limiter in memory does.
func (l *Limiter) argv(key string, now time.Duration, cost int64, mode string) []any {
	return l.port.argv(l.cfg.Template.Render(key), now, cost, mode)
}

// decision decodes a reply to a call for key.
func (l *Limiter) decision(key string, r []int64) algorithms.Decision {
	return l.port.decision(l.cfg.Template.Render(key), r)
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
	ctx := l.store.ctx
	cmds := make([]*redis.Cmd, len(reqs))
	send := func(which []int) {
		pipelined(ctx, l.store.client, len(which), func(pipe redis.Pipeliner, j int) {
			r := reqs[which[j]]
			cmds[which[j]] = l.script.EvalSha(ctx, pipe, l.redisKeys(r.Key), l.argv(r.Key, r.Now, r.Cost, "allow")...)
		})
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
		out[i] = l.decision(reqs[i].Key, r)
	}
	l.unavailable.Store(failed)
}

// failure is the decision when Redis did not answer: allowed or denied by on_error,
// and counted.
func (l *Limiter) failure() algorithms.Decision {
	l.failures.Add(1)
	if l.cfg.FailOpen {
		return algorithms.Decision{Allowed: true, Limit: l.cfg.Policy.Burst, OnError: true}
	}
	return algorithms.Decision{Limit: l.cfg.Policy.Burst, RetryAfter: l.cfg.Policy.Period / time.Duration(l.cfg.Policy.Limit), OnError: true}
}

// Check is what Allow would decide, asked of the script in its 'check' mode, which
// writes nothing: one round trip. When Redis fails it is the lane's on_error
// decision, counted.
func (l *Limiter) Check(key string, now time.Duration, cost int64) algorithms.Decision {
	out := make([]algorithms.Decision, 1)
	l.do([]algorithms.Call{{Mode: algorithms.ModeCheck, Req: algorithms.Request{Key: key, Now: now, Cost: cost}}}, out)
	return out[0]
}

// Level is key's level at now, read by the script without changing anything; 0
// when Redis fails.
func (l *Limiter) Level(key string, now time.Duration) float64 {
	ctx := l.store.ctx
	r, err := l.script.Run(ctx, l.store.client, l.redisKeys(key), l.argv(key, now, 0, "level")...).Int64Slice()
	if err != nil {
		l.unavailable.Store(true)
		return 0
	}
	return l.port.level(r)
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
	ctx := l.store.ctx
	pattern := l.pattern()
	var bytes, count atomic.Int64 // the nodes are measured at once
	err := forEachNode(ctx, l.store.client, func(ctx context.Context, node *redis.Client) error {
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

// pattern matches the Redis keys of this limiter, and of no other lane or part
// (SCAN's pattern).
func (l *Limiter) pattern() string {
	if l.cfg.Part != "" {
		return "{" + l.store.Prefix + ":" + l.cfg.Lane + "[|}]*:" + l.cfg.Part + ":*"
	}
	return "{" + l.store.Prefix + ":" + l.cfg.Lane + "}:*"
}

// Forget deletes key's Redis keys (UNLINK): its next request finds it new, as
// after the key expired. It says whether Redis had any of them; false too when
// Redis fails (the lane is then shown unavailable).
func (l *Limiter) Forget(key string) bool {
	keys := l.redisKeys(key)
	n, err := l.store.client.Unlink(l.store.ctx, keys[0]).Result()
	for _, k := range keys[1:] { // one slot each on a cluster: a command each
		m, e := l.store.client.Unlink(l.store.ctx, k).Result()
		n, err = n+m, cmp.Or(err, e)
	}
	l.unavailable.Store(err != nil)
	return n > 0
}

// ForgetAll deletes every Redis key of this limiter — a SCAN on its pattern on
// every node, then UNLINK of each key it found (pipelined), never a key outside
// the run's prefix and the limiter's lane — as a flushed store or a failover to
// an empty replica loses them. It returns how many keys Redis removed; when
// Redis fails the lane is shown unavailable, and what was not removed stays.
func (l *Limiter) ForgetAll() int {
	own := "{" + l.store.Prefix + ":" + l.cfg.Lane
	n, err := unlinkMatching(l.store.ctx, l.store.client, l.pattern(), func(key string) bool { return strings.HasPrefix(key, own) })
	l.unavailable.Store(err != nil)
	return n
}

// SetMonotonic switches a token bucket's max(now, ts) fix from the next call on
// (a live control), for its script and for the non-atomic steps alike.
func (l *Limiter) SetMonotonic(on bool) {
	l.port.setMonotonic(on)
	l.cfg.Options.MonotonicTimestamp = on
	if l.split != nil {
		l.split.setMonotonic(on)
	}
}

// Close releases the connections the non-atomic steps hold.
func (l *Limiter) Close() {
	if l.split != nil {
		l.split.close()
	}
}

// steps are the limiter's non-atomic steps, made on first use; nil when the
// algorithm's state is not one value.
func (l *Limiter) steps() *splitter {
	if l.split == nil {
		l.split = newStepper(l)
	}
	return l.split
}

// The non-atomic steps (see split.go).

func (l *Limiter) ReadState(node int, key string, now time.Duration, watch bool) int32 {
	return l.steps().ReadState(node, key, now, watch)
}
func (l *Limiter) DecideOn(slot int32, key string, now time.Duration, cost int64) algorithms.Decision {
	return l.steps().DecideOn(slot, key, now, cost)
}
func (l *Limiter) WriteState(slot int32, node int, key string) { l.steps().WriteState(slot, node, key) }
func (l *Limiter) CommitState(slot int32, key string) bool     { return l.steps().CommitState(slot, key) }
func (l *Limiter) DropState(slot int32)                        { l.steps().DropState(slot) }
func (l *Limiter) Steps(steps []algorithms.Step)               { l.steps().Steps(steps) }

// String names the limiter for messages.
func (l *Limiter) String() string {
	return string(l.cfg.Algorithm) + " on Redis " + l.store.Addr + " (lane " + strconv.Quote(l.cfg.Lane) + ")"
}
