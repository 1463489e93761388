package redislua

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
)

// LiveShards is one hot limit split into shards on Redis, for real concurrent
// callers on the wall clock (ratelab bench --shards): each shard a token bucket of
// the policy's share (algorithms.ShardPolicies) under a key with the shard in its
// hash tag, so on a Redis Cluster the shards land on different slots and spread
// over the masters. A request goes to a random shard (one EVALSHA, one round trip)
// or the better of two (algorithms.PickTwoChoices: the two checked in one
// pipeline, which a cluster client sends to both masters at once, then the chosen
// one decides: three calls, two round trips). Safe for concurrent use.
type LiveShards struct {
	store  *Store
	pick   algorithms.ShardPick
	script *redis.Script
	ports  []port
	keys   []string

	calls   atomic.Int64
	allowed atomic.Int64
	errored atomic.Int64
}

// NewLiveShards returns p split into n shards on s, picked by pick, its keys under
// lane.
func NewLiveShards(s *Store, lane string, n int, pick algorithms.ShardPick, p algorithms.Policy) (*LiveShards, error) {
	p = p.WithDefaults()
	if n < 1 || int64(n) > min(p.Limit, p.Burst) {
		return nil, fmt.Errorf("%d shards of %s: want 1 to %d", n, p, min(p.Limit, p.Burst))
	}
	tb := algorithms.MustLookup(algorithms.TokenBucketName)
	l := &LiveShards{store: s, pick: pick, script: redis.NewScript(Script(tb.Redis.Script))}
	for i, sp := range algorithms.ShardPolicies(p, n) {
		l.ports = append(l.ports, portOf(tb, sp, tb.Defaults))
		l.keys = append(l.keys, s.Key(fmt.Sprintf("%s.s%d", lane, i), "hot"))
	}
	return l, nil
}

// Calls is the script calls sent so far; Allowed the decisions that allowed;
// Errors the decisions Redis failed.
func (l *LiveShards) Calls() int64   { return l.calls.Load() }
func (l *LiveShards) Allowed() int64 { return l.allowed.Load() }
func (l *LiveShards) Errors() int64  { return l.errored.Load() }

// Allow decides one request at now (the caller's clock) with the random draw.
func (l *LiveShards) Allow(ctx context.Context, now time.Duration, draw uint64) (bool, error) {
	first, second := algorithms.PickShards(draw, len(l.keys))
	chosen := first
	if l.pick == algorithms.PickTwoChoices && first != second {
		pipe := l.store.client.Pipeline()
		a := l.call(ctx, pipe, first, now, "check")
		b := l.call(ctx, pipe, second, now, "check")
		pipe.Exec(ctx)
		ra, errA := l.reply(ctx, a, first, now, "check")
		rb, errB := l.reply(ctx, b, second, now, "check")
		if err := errors.Join(errA, errB); err != nil {
			l.errored.Add(1)
			return false, err
		}
		switch {
		case ra[0] != 1 && rb[0] != 1:
			return false, nil // neither has room
		case ra[0] != 1 || (rb[0] == 1 && rb[1] > ra[1]):
			chosen = second
		}
	}
	r, err := l.reply(ctx, l.call(ctx, l.store.client, chosen, now, "allow"), chosen, now, "allow")
	if err != nil {
		l.errored.Add(1)
		return false, err
	}
	if r[0] == 1 {
		l.allowed.Add(1)
	}
	return r[0] == 1, nil
}

// call queues (or sends) shard i's script call.
func (l *LiveShards) call(ctx context.Context, c redis.Scripter, i int, now time.Duration, mode string) *redis.Cmd {
	l.calls.Add(1)
	return l.script.EvalSha(ctx, c, []string{l.keys[i]}, l.ports[i].argv("hot", now, 1, mode)...)
}

// reply is a call's reply, the call sent again with EVAL when it found no script.
func (l *LiveShards) reply(ctx context.Context, c *redis.Cmd, i int, now time.Duration, mode string) ([]int64, error) {
	r, err := c.Int64Slice()
	if redis.HasErrorPrefix(err, "NOSCRIPT") {
		l.calls.Add(1)
		r, err = l.script.Eval(ctx, l.store.client, []string{l.keys[i]}, l.ports[i].argv("hot", now, 1, mode)...).Int64Slice()
	}
	return r, err
}

// ScriptCalls is, per node that holds data (the server, or each master of a
// cluster, by address), the scripts it has run since it started: the calls of
// EVALSHA and EVAL in INFO commandstats. The difference of two readings is the
// load a benchmark put on each.
func (s *Store) ScriptCalls(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	var mu sync.Mutex // the nodes answer at once
	err := forEachNode(ctx, s.client, func(ctx context.Context, node *redis.Client) error {
		info, err := node.Info(ctx, "commandstats").Result()
		if err != nil {
			return err
		}
		var n int64
		for _, line := range strings.Split(info, "\n") {
			for _, cmd := range []string{"cmdstat_evalsha:calls=", "cmdstat_eval:calls="} {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(line), cmd); ok {
					var calls int64
					fmt.Sscanf(rest, "%d", &calls)
					n += calls
				}
			}
		}
		mu.Lock()
		out[node.Options().Addr] = n
		mu.Unlock()
		return nil
	})
	return out, err
}
