package algorithms

var (
	_ Forgetter = (*FixedWindow)(nil)
	_ Forgetter = (*SlidingLog)(nil)
	_ Forgetter = (*SlidingCounter)(nil)
	_ Forgetter = (*LeakyBucket)(nil)
	_ Forgetter = (*TokenBucket)(nil)
	_ Forgetter = (*GCRA)(nil)
	_ Forgetter = (*XTimeRate)(nil)
	_ Forgetter = (*Guava)(nil)
	_ Forgetter = (*EnvoyLocal)(nil)
	_ Forgetter = (*Spring)(nil)
	_ Forgetter = (*Traefik)(nil)
	_ Forgetter = (*Kong)(nil)
)

// keyed is a limiter's per-key state: one S per key, created on first use, and the
// bytes of the key names, which StateBytes counts as a Redis port would store them.
// Every limiter embeds one, so Keys is defined here once.
type keyed[S any] struct {
	states   map[string]*S
	keyBytes int64
}

func newKeyed[S any]() keyed[S] { return keyed[S]{states: make(map[string]*S)} }

// Keys is the number of keys holding state.
func (k *keyed[S]) Keys() int { return len(k.states) }

// state returns key's state, if it has one.
func (k *keyed[S]) state(key string) (*S, bool) {
	s, ok := k.states[key]
	return s, ok
}

// add gives key the state s and returns it.
func (k *keyed[S]) add(key string, s *S) *S {
	k.states[key] = s
	k.keyBytes += int64(len(key))
	return s
}

// evict forgets every key whose state idle says is back to a new key's, and
// returns how many it forgot.
func (k *keyed[S]) evict(idle func(*S) bool) int {
	evicted := 0
	for key, s := range k.states {
		if idle(s) {
			delete(k.states, key)
			k.keyBytes -= int64(len(key))
			evicted++
		}
	}
	return evicted
}

// Forget drops key's state, as a store does when the key expires: the key's next
// request finds it new (a full bucket, an empty window). It says whether the key
// had state.
func (k *keyed[S]) Forget(key string) bool {
	if _, ok := k.states[key]; !ok {
		return false
	}
	delete(k.states, key)
	k.keyBytes -= int64(len(key))
	return true
}

// ForgetAll drops every key's state, as a store flushed (or a failover to an
// empty replica) loses it, and returns how many keys it forgot.
func (k *keyed[S]) ForgetAll() int {
	n := len(k.states)
	clear(k.states)
	k.keyBytes = 0
	return n
}
