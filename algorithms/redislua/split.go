package redislua

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
)

// The non-atomic strategies, for the token bucket and GCRA: a decision taken apart
// into steps that a simulation runs as events on the virtual clock (read at t,
// write at t + round trip), on real connections, so concurrent deciders race on
// Redis itself.
//
//   - multi: HMGET on the node's connection, compute in Go (the in-memory
//     algorithm's own Decide, on the state read), then HSET and PEXPIRE, blind:
//     three round trips, and a write that may overwrite one made in between.
//   - watch: WATCH and HMGET on a connection of the request's own (WATCH is per
//     connection), compute in Go, then MULTI, HSET, PEXPIRE, EXEC, which Redis
//     refuses if the key changed after the WATCH; the simulator then reads again.
//
// The state is stored as the scripts store it (token bucket: a hash, c = credits,
// t = µs; GCRA: a string, the scaled tat), so every strategy shares one format.

// splitSlot is one decision in progress.
type splitSlot struct {
	bucket   algorithms.TokenState
	gcra     algorithms.GCRAState
	conn     *redis.Conn // held from WATCH to EXEC
	watching bool        // conn has a WATCH that no EXEC has ended
	failed   bool        // Redis failed: the decision follows on_error
}

// stepper is the in-memory algorithm the steps decide with; it never holds state.
type stepper struct {
	bucket *algorithms.TokenBucket
	gcra   *algorithms.GCRA
	slots  []splitSlot
	free   []int32
	nodes  map[int]*redis.Conn // one connection per application node (multi)
}

func (l *Limiter) steps() *stepper {
	if l.split == nil {
		l.split = &stepper{nodes: map[int]*redis.Conn{}}
		switch l.cfg.Algorithm {
		case "token-bucket":
			l.split.bucket = algorithms.NewTokenBucket(l.cfg.Policy, l.cfg.Options.MonotonicTimestamp, l.cfg.Options.MaxReserved)
		case "gcra":
			l.split.gcra = algorithms.NewGCRA(l.cfg.Policy)
		}
	}
	return l.split
}

// nodeConn is node's connection for multi's steps (the client's pool on a cluster,
// which routes each key to its node).
func (l *Limiter) nodeConn(node int) redis.Cmdable {
	if l.store.cluster != nil {
		return l.store.client
	}
	s := l.steps()
	c, ok := s.nodes[node]
	if !ok {
		c = l.store.client.(*redis.Client).Conn()
		s.nodes[node] = c
	}
	return c
}

// ReadState reads key's state into a new slot: on node's connection, or with
// watch on a connection of the slot's own after WATCH.
func (l *Limiter) ReadState(node int, key string, now time.Duration, watch bool) int32 {
	ctx := context.Background()
	s := l.steps()
	slot := s.newSlot()
	st := &s.slots[slot]
	rkey := l.redisKeys(key)[0]
	var conn redis.Cmdable = l.nodeConn(node)
	var pipe redis.Pipeliner
	if watch { // WATCH and the read in one round trip, on a connection of the slot's own
		c, err := l.store.conn(ctx, rkey)
		if err != nil {
			st.failed = true
			return slot
		}
		st.conn, st.watching = c, true
		pipe = c.Pipeline()
		pipe.Do(ctx, "WATCH", rkey)
		conn = pipe
	}
	var reply redis.Cmder
	if s.bucket != nil {
		st.bucket = s.bucket.Read(key, now) // the idle state, if the key has none
		reply = conn.HMGet(ctx, rkey, "c", "t")
	} else {
		st.gcra = s.gcra.Read(key, now)
		reply = conn.Get(ctx, rkey)
	}
	if pipe != nil {
		pipe.Exec(ctx)
	}
	err := st.fill(reply)
	if err != nil {
		st.failed = true
	}
	l.unavailable.Store(st.failed)
	return slot
}

// newSlot takes a free slot, reset.
func (s *stepper) newSlot() int32 {
	var slot int32
	if n := len(s.free); n > 0 {
		slot, s.free = s.free[n-1], s.free[:n-1]
	} else {
		s.slots = append(s.slots, splitSlot{})
		slot = int32(len(s.slots) - 1)
	}
	s.slots[slot] = splitSlot{}
	return slot
}

// Steps takes multi's reads and blind writes in one pipeline, in order: Redis runs
// them one after another, so each read sees what the writes before it left, as
// with a round trip each. A read fills its Slot; a write stores its slot's state
// and frees it.
func (l *Limiter) Steps(steps []algorithms.Step) {
	ctx := context.Background()
	s := l.steps()
	pipe := l.store.client.Pipeline()
	reads := make([]redis.Cmder, len(steps))
	var writes []redis.Cmder
	for i := range steps {
		st := &steps[i]
		rkey := l.redisKeys(st.Key)[0]
		if st.Write {
			slot := &s.slots[st.Slot]
			if slot.failed {
				continue
			}
			if s.bucket != nil {
				writes = append(writes, pipe.HSet(ctx, rkey, "c", slot.bucket.Credits, "t", slot.bucket.Last))
			} else {
				writes = append(writes, pipe.Set(ctx, rkey, slot.gcra.TAT, 0))
			}
			writes = append(writes, pipe.PExpire(ctx, rkey, l.cfg.TTL))
			continue
		}
		st.Slot = s.newSlot()
		if s.bucket != nil {
			s.slots[st.Slot].bucket = s.bucket.Read(st.Key, st.Now)
			reads[i] = pipe.HMGet(ctx, rkey, "c", "t")
		} else {
			s.slots[st.Slot].gcra = s.gcra.Read(st.Key, st.Now)
			reads[i] = pipe.Get(ctx, rkey)
		}
	}
	pipe.Exec(ctx)
	failed := false
	for i, st := range steps {
		if st.Write {
			l.DropState(st.Slot)
			continue
		}
		slot := &s.slots[st.Slot]
		err := slot.fill(reads[i])
		if err != nil {
			slot.failed, failed = true, true
		}
	}
	for _, w := range writes {
		if w.Err() != nil {
			l.failures.Add(1)
			failed = true
			break
		}
	}
	l.unavailable.Store(failed)
}

// DecideOn decides on the slot's state, which becomes the state to write.
func (l *Limiter) DecideOn(slot int32, key string, now time.Duration, cost int64) algorithms.Decision {
	s := l.steps()
	st := &s.slots[slot]
	if st.failed {
		return l.failure()
	}
	var d algorithms.Decision
	if s.bucket != nil {
		d, st.bucket = s.bucket.Decide(st.bucket, key, now, cost)
	} else {
		d, st.gcra = s.gcra.Decide(st.gcra, key, now, cost)
	}
	return d
}

// WriteState writes the slot's state blindly (HSET, then PEXPIRE) on node's
// connection, and frees the slot.
func (l *Limiter) WriteState(slot int32, node int, key string) {
	ctx := context.Background()
	s := l.steps()
	st := &s.slots[slot]
	if !st.failed {
		conn := l.nodeConn(node)
		rkey := l.redisKeys(key)[0]
		var err error
		if s.bucket != nil {
			err = conn.HSet(ctx, rkey, "c", st.bucket.Credits, "t", st.bucket.Last).Err()
		} else {
			err = conn.Set(ctx, rkey, st.gcra.TAT, 0).Err()
		}
		if err == nil {
			err = conn.PExpire(ctx, rkey, l.cfg.TTL).Err()
		}
		if err != nil {
			l.failures.Add(1)
		}
		l.unavailable.Store(err != nil)
	}
	l.DropState(slot)
}

// CommitState writes the slot's state in MULTI/EXEC on the connection that
// WATCHed the key, and says whether Redis accepted it (false: someone wrote the
// key after the read). It frees the slot either way.
func (l *Limiter) CommitState(slot int32, key string) bool {
	ctx := context.Background()
	s := l.steps()
	st := &s.slots[slot]
	if st.failed || st.conn == nil {
		l.DropState(slot)
		return true // a failed read decides by on_error; there is nothing to commit
	}
	rkey := l.redisKeys(key)[0]
	_, err := st.conn.TxPipelined(ctx, func(p redis.Pipeliner) error {
		if s.bucket != nil {
			p.HSet(ctx, rkey, "c", st.bucket.Credits, "t", st.bucket.Last)
		} else {
			p.Set(ctx, rkey, st.gcra.TAT, 0)
		}
		p.PExpire(ctx, rkey, l.cfg.TTL)
		return nil
	})
	if err == nil || errors.Is(err, redis.TxFailedErr) {
		st.watching = false // EXEC ended the WATCH either way
	}
	l.DropState(slot)
	switch {
	case err == nil:
		return true
	case errors.Is(err, redis.TxFailedErr):
		return false
	}
	l.failures.Add(1)
	l.unavailable.Store(true)
	return true
}

// DropState frees the slot, releasing its connection (UNWATCH first if no EXEC
// ended the WATCH).
func (l *Limiter) DropState(slot int32) {
	s := l.steps()
	st := &s.slots[slot]
	if st.conn != nil {
		if st.watching {
			st.conn.Do(context.Background(), "UNWATCH")
		}
		st.conn.Close()
		st.conn = nil
	}
	s.free = append(s.free, slot)
}

// closeSteps releases the nodes' connections.
func (l *Limiter) closeSteps() {
	if l.split != nil {
		for _, c := range l.split.nodes {
			c.Close()
		}
	}
}

// fill sets the slot's state from the reply to its read (HMGET of a bucket, GET of
// a tat); a key with no state keeps the idle state already in the slot.
func (st *splitSlot) fill(reply redis.Cmder) error {
	switch c := reply.(type) {
	case *redis.SliceCmd:
		v, err := c.Result()
		if err != nil {
			return err
		}
		return parseBucket(v, &st.bucket)
	case *redis.StringCmd:
		v, err := c.Result()
		if errors.Is(err, redis.Nil) {
			return nil
		}
		if err != nil {
			return err
		}
		st.gcra.TAT, err = parseInt(v)
		return err
	}
	return nil
}

// parseBucket reads the reply to HMGET c t into s; a key with no state leaves s.
func parseBucket(v []any, s *algorithms.TokenState) error {
	if len(v) < 2 || v[0] == nil {
		return nil
	}
	var err error
	if s.Credits, err = parseInt(v[0]); err == nil {
		s.Last, err = parseInt(v[1])
	}
	return err
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
