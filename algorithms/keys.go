package algorithms

import (
	"math/bits"
	"unsafe"
)

var (
	_ Forgetter = (*FixedWindow)(nil)
	_ Forgetter = (*SlidingLog)(nil)
	_ Forgetter = (*SlidingCounter)(nil)
	_ Forgetter = (*LeakyBucket)(nil)
	_ Leaver    = (*LeakyBucket)(nil)
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
//
// Beside the map it keeps recent, a cache of the states last found, by the
// address of the key string asked for (two ways: a pair of entries per hash): a caller that passes the same string
// for a key every time (the engine passes each key's one name) finds its state
// without hashing the name. An entry holds its string, so the memory it points
// at cannot be reused for another string while the entry lives; same address
// and length is then the same key. Any forgetting makes every entry stale at
// once (gen), and the entries fill again as keys are found in the map.
type keyed[S any] struct {
	states   map[string]*S
	keyBytes int64
	recent   []recentState[S] // a power of two in size, at most maxRecent; empty at first
	gen      uint32           // entries of another generation are stale
}

// recentState is one entry of keyed.recent.
type recentState[S any] struct {
	key string
	s   *S
	gen uint32
}

// maxRecent is the most entries keyed.recent holds (32 bytes each: 2 MiB).
// Below it the cache has two to four entries a key, so few keys collide.
const maxRecent = 1 << 16

func newKeyed[S any]() keyed[S] { return keyed[S]{states: make(map[string]*S), gen: 1} }

// Keys is the number of keys holding state.
func (k *keyed[S]) Keys() int { return len(k.states) }

// recentSlot is key's place in recent (a multiplicative hash of its address):
// the first of a pair of entries, two keys whose addresses hash alike each
// keeping one.
func (k *keyed[S]) recentSlot(key string) int {
	h := uint64(uintptr(unsafe.Pointer(unsafe.StringData(key)))) * 0x9E3779B97F4A7C15
	return int(h>>32&uint64(len(k.recent)-1)) &^ 1
}

// holds says e is a fresh entry for the very string key.
func (k *keyed[S]) holds(e *recentState[S], key string) bool {
	return e.gen == k.gen && len(e.key) == len(key) && unsafe.StringData(e.key) == unsafe.StringData(key)
}

// state returns key's state, if it has one.
func (k *keyed[S]) state(key string) (*S, bool) {
	if len(k.recent) > 0 {
		i := k.recentSlot(key)
		first, second := &k.recent[i], &k.recent[i+1]
		if k.holds(first, key) {
			return first.s, true
		}
		if k.holds(second, key) {
			return second.s, true
		}
		s, ok := k.states[key]
		if ok { // the newest first, the one it displaces second
			*second = *first
			*first = recentState[S]{key: key, s: s, gen: k.gen}
		}
		return s, ok
	}
	s, ok := k.states[key]
	return s, ok
}

// add gives key the state s and returns it.
// A key that had a state gets s in its place (and loses no bytes' count).
func (k *keyed[S]) add(key string, s *S) *S {
	if _, had := k.states[key]; had {
		k.stale() // an entry may hold the state replaced
		k.keyBytes -= int64(len(key))
	}
	k.states[key] = s
	k.keyBytes += int64(len(key))
	if n := len(k.states); 2*n > len(k.recent) && len(k.recent) < maxRecent {
		k.recent = make([]recentState[S], min(maxRecent, 2<<bits.Len(uint(n))))
	}
	return s
}

// stale makes every entry of recent stale (a key was forgotten).
func (k *keyed[S]) stale() {
	k.gen++
	if k.gen == 0 { // wrapped: an entry 2³² forgettings old would look fresh
		clear(k.recent)
		k.gen = 1
	}
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
	if evicted > 0 {
		k.stale()
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
	k.stale()
	return true
}

// ForgetAll drops every key's state, as a store flushed (or a failover to an
// empty replica) loses it, and returns how many keys it forgot.
func (k *keyed[S]) ForgetAll() int {
	n := len(k.states)
	clear(k.states)
	k.keyBytes = 0
	k.stale()
	return n
}
