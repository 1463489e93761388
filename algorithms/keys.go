package algorithms

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
// A key is found through a directory (keyDirectory) that gives each key held a
// slot; the states are kept by slot. A limiter has a directory of its own, or
// shares one with others (ShareKeys): the instances of one deployment, asked
// about the same keys, then find a key's slot in one small table, warm in the
// cache, instead of each in a table of its own.
type keyed[S any] struct {
	dir      *keyDirectory
	bySlot   []*S // a key's state by its slot; nil: none
	count    int  // states held
	keyBytes int64
}

func newKeyed[S any]() keyed[S] { return keyed[S]{dir: newKeyDirectory()} }

// Keys is the number of keys holding state.
func (k *keyed[S]) Keys() int { return k.count }

// state returns key's state, if it has one.
func (k *keyed[S]) state(key string) (*S, bool) {
	if slot, ok := k.held(key); ok {
		return k.bySlot[slot], true
	}
	return nil, false
}

// held is the slot of key's state, if it has one.
func (k *keyed[S]) held(key string) (int, bool) {
	slot, ok := k.dir.find(key)
	if !ok || int(slot) >= len(k.bySlot) || k.bySlot[slot] == nil {
		return 0, false
	}
	return int(slot), true
}

// add gives key the state s and returns it.
// A key that had a state gets s in its place (and loses no bytes' count).
func (k *keyed[S]) add(key string, s *S) *S {
	if slot, ok := k.held(key); ok {
		k.bySlot[slot] = s
		return s
	}
	slot := int(k.dir.hold(key))
	if slot >= len(k.bySlot) {
		k.bySlot = append(k.bySlot, make([]*S, slot+1-len(k.bySlot))...)
	}
	k.count++
	k.keyBytes += int64(len(key))
	k.bySlot[slot] = s
	return s
}

// evict forgets every key whose state idle says is back to a new key's, and
// returns how many it forgot.
func (k *keyed[S]) evict(idle func(*S) bool) int {
	evicted := 0
	for slot, s := range k.bySlot {
		if s != nil && idle(s) {
			k.drop(slot)
			evicted++
		}
	}
	return evicted
}

// drop forgets the state at slot, which holds one.
func (k *keyed[S]) drop(slot int) {
	k.bySlot[slot] = nil
	k.count--
	k.keyBytes -= int64(len(k.dir.names[slot]))
	k.dir.release(int32(slot))
}

// Forget drops key's state, as a store does when the key expires: the key's next
// request finds it new (a full bucket, an empty window). It says whether the key
// had state.
func (k *keyed[S]) Forget(key string) bool {
	slot, ok := k.held(key)
	if ok {
		k.drop(slot)
	}
	return ok
}

// ForgetAll drops every key's state, as a store flushed (or a failover to an
// empty replica) loses it, and returns how many keys it forgot.
func (k *keyed[S]) ForgetAll() int {
	n := k.count
	for slot, s := range k.bySlot {
		if s != nil {
			k.drop(slot)
		}
	}
	return n
}

// keyDir and useKeyDir let ShareKeys reach a limiter's keyed.
func (k *keyed[S]) keyDir() *keyDirectory { return k.dir }

func (k *keyed[S]) useKeyDir(d *keyDirectory) bool {
	if k.count > 0 {
		return false
	}
	k.dir, k.bySlot = d, nil
	return true
}

// keyDirUser is a limiter whose keys live in a keyed (every limiter in this
// package but those with a store of their own).
type keyDirUser interface {
	keyDir() *keyDirectory
	useKeyDir(*keyDirectory) bool
}

// ShareKeys makes each of lims that holds no state yet find its keys through
// first's directory, and says whether every one does. It changes no decision:
// a directory only tells where a key's state is. A deployment's instances share
// one: a key's slot is then found in one table, warm in the cache, however many
// instances there are, and each instance keeps a slot's pointer (8 bytes) for
// every key one of them holds. Limiters wrapped by another (a TTL, a template)
// or kept in a store cannot share, and say so (false). Limiters sharing a
// directory are used from one goroutine at a time, as one limiter is.
func ShareKeys(first Limiter, lims ...Limiter) bool {
	f, ok := first.(keyDirUser)
	if !ok {
		return false
	}
	all := true
	for _, lim := range lims {
		u, ok := lim.(keyDirUser)
		shares := ok && (u.keyDir() == f.keyDir() || u.useKeyDir(f.keyDir()))
		all = all && shares
	}
	return all
}
