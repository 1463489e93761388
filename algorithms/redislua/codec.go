package redislua

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
)

// codec reads and writes one algorithm's state in Redis exactly as its script
// stores it, for the steps of the non-atomic strategies, so every strategy of an
// algorithm shares one format: the simulated lanes' (split.go) and the live
// benchmark's (live.go).
type codec[S any] interface {
	// read queues the read of key's state on c.
	read(ctx context.Context, c redis.Cmdable, key string) redis.Cmder
	// parse fills s from the read's reply; a key with no state leaves s as it is
	// (the caller puts the idle state there first).
	parse(reply redis.Cmder, s *S) error
	// write queues the blind write of s to key on c, with the key's expiry.
	write(ctx context.Context, c redis.Cmdable, key string, s S) []redis.Cmder
}

// bucketCodec is the token bucket's state: a hash, c = balance in credits, t =
// last refill in µs (scripts/token_bucket.lua).
type bucketCodec struct{}

func (bucketCodec) read(ctx context.Context, c redis.Cmdable, key string) redis.Cmder {
	return c.HMGet(ctx, key, "c", "t")
}

func (bucketCodec) parse(reply redis.Cmder, s *algorithms.TokenState) error {
	v, err := reply.(*redis.SliceCmd).Result()
	if err != nil {
		return err
	}
	if len(v) < 2 || v[0] == nil {
		return nil
	}
	if s.Credits, err = parseInt(v[0]); err == nil {
		s.Last, err = parseInt(v[1])
	}
	return err
}

func (bucketCodec) write(ctx context.Context, c redis.Cmdable, key string, s algorithms.TokenState) []redis.Cmder {
	return []redis.Cmder{c.HSet(ctx, key, "c", s.Credits, "t", s.Last), c.PExpire(ctx, key, keyTTL)}
}

// gcraCodec is GCRA's state: a string, the theoretical arrival time in scaled
// time (scripts/gcra.lua).
type gcraCodec struct{}

func (gcraCodec) read(ctx context.Context, c redis.Cmdable, key string) redis.Cmder {
	return c.Get(ctx, key)
}

func (gcraCodec) parse(reply redis.Cmder, s *algorithms.GCRAState) error {
	v, err := reply.(*redis.StringCmd).Result()
	if errors.Is(err, redis.Nil) {
		return nil
	}
	if err != nil {
		return err
	}
	s.TAT, err = parseInt(v)
	return err
}

func (gcraCodec) write(ctx context.Context, c redis.Cmdable, key string, s algorithms.GCRAState) []redis.Cmder {
	return []redis.Cmder{c.Set(ctx, key, s.TAT, 0), c.PExpire(ctx, key, keyTTL)}
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
