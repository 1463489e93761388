package redislua

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// codec reads and writes a splittable algorithm's state in Redis exactly as its
// script stores it (algorithms.Split.Fields), for the steps of the non-atomic
// strategies, so every strategy of an algorithm shares one format: the simulated
// lanes' (split.go) and the live benchmark's (live.go). The state is integers:
// the named fields of a hash, or one integer as a plain value when fields is nil.
type codec struct{ fields []string }

// size is how many integers the state holds.
func (c codec) size() int { return max(1, len(c.fields)) }

// read queues the read of key's state on cmd.
func (c codec) read(ctx context.Context, cmd redis.Cmdable, key string) redis.Cmder {
	if c.fields == nil {
		return cmd.Get(ctx, key)
	}
	return cmd.HMGet(ctx, key, c.fields...)
}

// parse fills v from the read's reply; a key with no state leaves v as it is (the
// caller puts the idle state there first).
func (c codec) parse(reply redis.Cmder, v []int64) error {
	if c.fields == nil {
		s, err := reply.(*redis.StringCmd).Result()
		if errors.Is(err, redis.Nil) {
			return nil
		}
		if err != nil {
			return err
		}
		v[0], err = parseInt(s)
		return err
	}
	vals, err := reply.(*redis.SliceCmd).Result()
	if err != nil {
		return err
	}
	if len(vals) < len(c.fields) || vals[0] == nil {
		return nil
	}
	for i := range c.fields {
		if v[i], err = parseInt(vals[i]); err != nil {
			return err
		}
	}
	return nil
}

// write queues the blind write of v to key on cmd, with the key's expiry.
func (c codec) write(ctx context.Context, cmd redis.Cmdable, key string, v []int64) []redis.Cmder {
	if c.fields == nil {
		return []redis.Cmder{cmd.Set(ctx, key, v[0], 0), cmd.PExpire(ctx, key, keyTTL)}
	}
	pairs := make([]any, 0, 2*len(c.fields))
	for i, f := range c.fields {
		pairs = append(pairs, f, v[i])
	}
	return []redis.Cmder{cmd.HSet(ctx, key, pairs...), cmd.PExpire(ctx, key, keyTTL)}
}

// parseInt reads a stored integer (the scripts store exact decimal text).
func parseInt(v any) (int64, error) {
	switch x := v.(type) {
	case string:
		return strconv.ParseInt(x, 10, 64)
	case int64:
		return x, nil
	}
	return 0, errors.New("unexpected value in Redis")
}

// keyTTL is the PEXPIRE every key gets: a safety net for keys a run could not
// remove (a crash); a run removes its own keys when it ends.
const keyTTL = 24 * time.Hour
