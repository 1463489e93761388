package algorithms

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

// forget drops key's state.
func (k *keyed[S]) forget(key string) {
	if _, ok := k.states[key]; ok {
		delete(k.states, key)
		k.keyBytes -= int64(len(key))
	}
}
