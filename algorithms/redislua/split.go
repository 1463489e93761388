package redislua

import (
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
	"ratelab/internal/slab"
)

// The non-atomic strategies on Redis, for the algorithms whose state is one value
// (algorithms.Info.Splittable): a decision taken apart into steps that a
// simulation runs as events on the virtual clock (read at t, write at t + round
// trip), on real connections, so concurrent deciders race on Redis itself.
//
//   - multi: read (HMGET or GET) on the node's connection, decide in Go (the
//     in-memory algorithm's own Decide, on the state read), then write it back
//     blindly with its PEXPIRE: a write that may overwrite one made in between.
//   - watch: WATCH and the read on a connection of the request's own (WATCH is
//     per connection), decide in Go, then MULTI, the write, EXEC, which Redis
//     refuses if the key changed after the WATCH; the simulator then reads again.
//
// The state is read and written by the algorithm's codec, as its script stores it.

// splitter is a Limiter's non-atomic steps: the algorithm's own decision
// (algorithms.Split.Remote) on the state read, as the integers its codec reads.
type splitter struct {
	l     *Limiter
	algo  algorithms.RemoteSteps // decides on what was read; holds no state
	codec codec
	slots slab.Slab[splitSlot]
	nodes map[int]*redis.Conn // one connection per application node (multi)
}

// splitSlot is one decision in progress.
type splitSlot struct {
	state    []int64
	conn     *redis.Conn // held from WATCH to EXEC
	watching bool        // conn has a WATCH that no EXEC has ended
	failed   bool        // Redis failed: the decision follows on_error
}

// newStepper returns the steps of the limiter's algorithm, or nil when its state
// is not one value (algorithms.Info.Split).
func newStepper(l *Limiter) *splitter {
	info, ok := algorithms.Lookup(l.cfg.Algorithm)
	if !ok || info.Split == nil {
		return nil
	}
	return &splitter{l: l, algo: info.Split.Remote(l.cfg.Policy, l.cfg.Options), codec: codec{fields: info.Split.Fields()}, nodes: map[int]*redis.Conn{}}
}

// idle is a new slot's state: key's idle state at now, what a key Redis does not
// hold has.
func (s *splitter) idle(key string, now time.Duration) splitSlot {
	st := splitSlot{state: make([]int64, s.codec.size())}
	s.algo.Idle(key, now, st.state)
	return st
}

// nodeConn is node's connection for multi's steps (the client's pool on a cluster,
// which routes each key to its node).
func (s *splitter) nodeConn(node int) redis.Cmdable {
	if s.l.store.cluster != nil {
		return s.l.store.client
	}
	c, ok := s.nodes[node]
	if !ok {
		c = s.l.store.client.(*redis.Client).Conn()
		s.nodes[node] = c
	}
	return c
}

// ReadState reads key's state into a new slot: on node's connection, or with
// watch on a connection of the slot's own after WATCH.
func (s *splitter) ReadState(node int, key string, now time.Duration, watch bool) int32 {
	ctx := s.l.store.ctx
	slot := s.slots.Put(s.idle(key, now)) // the idle state, if the key has none
	st := s.slots.At(slot)
	rkey := s.l.redisKeys(key)[0]
	conn := s.nodeConn(node)
	var pipe redis.Pipeliner
	if watch { // WATCH and the read in one round trip, on a connection of the slot's own
		c, err := s.l.store.conn(ctx, rkey)
		if err != nil {
			st.failed = true
			s.l.unavailable.Store(true)
			return slot
		}
		st.conn, st.watching = c, true
		pipe = c.Pipeline()
		pipe.Do(ctx, "WATCH", rkey)
		conn = pipe
	}
	reply := s.codec.read(ctx, conn, rkey)
	if pipe != nil {
		pipe.Exec(ctx)
	}
	st.failed = s.codec.parse(reply, st.state) != nil
	s.l.unavailable.Store(st.failed)
	return slot
}

// Steps takes multi's reads and blind writes in one pipeline, in order: Redis runs
// them one after another, so each read sees what the writes before it left, as
// with a round trip each. A read fills its Slot; a write stores its slot's state
// and frees it.
func (s *splitter) Steps(steps []algorithms.Step) {
	ctx := s.l.store.ctx
	reads := make([]redis.Cmder, len(steps))
	var writes []redis.Cmder
	pipelined(ctx, s.l.store.client, len(steps), func(pipe redis.Pipeliner, i int) {
		st := &steps[i]
		rkey := s.l.redisKeys(st.Key)[0]
		if st.Write {
			if slot := s.slots.At(st.Slot); !slot.failed {
				writes = append(writes, s.codec.write(ctx, pipe, rkey, slot.state)...)
			}
			return
		}
		st.Slot = s.slots.Put(s.idle(st.Key, st.Now))
		reads[i] = s.codec.read(ctx, pipe, rkey)
	})
	failed := false
	for i, st := range steps {
		if st.Write {
			s.DropState(st.Slot)
			continue
		}
		if slot := s.slots.At(st.Slot); s.codec.parse(reads[i], slot.state) != nil {
			slot.failed, failed = true, true
		}
	}
	for _, w := range writes {
		if w.Err() != nil {
			s.l.failures.Add(1)
			failed = true
			break
		}
	}
	s.l.unavailable.Store(failed)
}

// DecideOn decides on the slot's state, which becomes the state to write.
func (s *splitter) DecideOn(slot int32, key string, now time.Duration, cost int64) algorithms.Decision {
	st := s.slots.At(slot)
	if st.failed {
		return s.l.failure()
	}
	return s.algo.Decide(st.state, key, now, cost)
}

// WriteState writes the slot's state blindly (then PEXPIRE) on node's connection,
// and frees the slot.
func (s *splitter) WriteState(slot int32, node int, key string) {
	if st := s.slots.At(slot); !st.failed {
		var err error
		for _, c := range s.codec.write(s.l.store.ctx, s.nodeConn(node), s.l.redisKeys(key)[0], st.state) {
			if err == nil {
				err = c.Err()
			}
		}
		if err != nil {
			s.l.failures.Add(1)
		}
		s.l.unavailable.Store(err != nil)
	}
	s.DropState(slot)
}

// CommitState writes the slot's state in MULTI/EXEC on the connection that
// WATCHed the key, and says whether Redis accepted it (false: someone wrote the
// key after the read). It frees the slot either way.
func (s *splitter) CommitState(slot int32, key string) bool {
	ctx := s.l.store.ctx
	st := s.slots.At(slot)
	if st.failed || st.conn == nil {
		s.DropState(slot)
		return true // a failed read decides by on_error; there is nothing to commit
	}
	_, err := st.conn.TxPipelined(ctx, func(p redis.Pipeliner) error {
		s.codec.write(ctx, p, s.l.redisKeys(key)[0], st.state)
		return nil
	})
	if err == nil || errors.Is(err, redis.TxFailedErr) {
		st.watching = false // EXEC ended the WATCH either way
	}
	s.DropState(slot)
	switch {
	case err == nil:
		return true
	case errors.Is(err, redis.TxFailedErr):
		return false
	}
	s.l.failures.Add(1)
	s.l.unavailable.Store(true)
	return true
}

// DropState frees the slot, releasing its connection (UNWATCH first if no EXEC
// ended the WATCH).
func (s *splitter) DropState(slot int32) {
	st := s.slots.At(slot)
	if st.conn != nil {
		if st.watching {
			st.conn.Do(s.l.store.ctx, "UNWATCH")
		}
		st.conn.Close()
		st.conn = nil
	}
	s.slots.Release(slot)
}

// setMonotonic switches the token bucket's max(now, ts) fix of the steps' decisions.
func (s *splitter) setMonotonic(on bool) { s.algo.SetMonotonic(on) }

// close releases the nodes' connections.
func (s *splitter) close() {
	for _, c := range s.nodes {
		c.Close()
	}
}
