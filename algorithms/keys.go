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
	_ Forgetter = (*Nginx)(nil)
)

// keyed is a limiter's per-key state: one S per key, created on first use, and the
// bytes of the key names, which StateBytes counts as a Redis port would store them.
// Every limiter embeds one, so Keys is defined here once.
//
// A key is found through a directory (keyDirectory) that gives each key held a
// slot, and its state is kept in place by slot, in pages of pageSize slots that
// never move: a state found stays where it is (a pointer to it holds) until the
// key is forgotten, when its place is zeroed. A page is made for the first
// state held in it and let go with the last, so memory follows the keys held.
// A limiter has a directory of its own, or shares one with others (ShareKeys):
// the instances of one deployment, asked about the same keys, then find a key's
// slot in one small table, warm in the cache, instead of each in a table of its
// own, and its state in one read.
type keyed[S any] struct {
	dir      *keyDirectory
	pages    []*statePage[S] // by slot / pageSize; nil: no state in it
	count    int             // states held
	keyBytes int64
}

// pageSize is the slots a page holds: few enough that a page holding one key
// costs little more than its state.
const pageSize = 16

// statePage holds the states of pageSize slots, in slot order, and how many
// of them are held.
type statePage[S any] struct {
	states [pageSize]heldState[S]
	held   int
}

// heldState is a slot's state, and whether the limiter holds one there.
type heldState[S any] struct {
	s    S
	held bool
}

func newKeyed[S any]() keyed[S] { return keyed[S]{dir: newKeyDirectory()} }

// Keys is the number of keys holding state.
func (k *keyed[S]) Keys() int { return k.count }

// at is slot's place, nil when its page holds nothing yet.
func (k *keyed[S]) at(slot int32) *heldState[S] {
	p := int(slot / pageSize)
	if p >= len(k.pages) || k.pages[p] == nil {
		return nil
	}
	return &k.pages[p].states[slot%pageSize]
}

// state returns key's state, if it has one.
func (k *keyed[S]) state(key string) (*S, bool) {
	if h, _ := k.held(key); h != nil {
		return &h.s, true
	}
	return nil, false
}

// held is the place and slot of key's state, if it has one (else nil).
func (k *keyed[S]) held(key string) (*heldState[S], int32) {
	slot, ok := k.dir.find(key)
	if !ok {
		return nil, 0
	}
	if h := k.at(slot); h != nil && h.held {
		return h, slot
	}
	return nil, 0
}

// add gives key the state *s (a copy) and returns where it is kept.
// A key that had a state gets *s in its place (and loses no bytes' count).
func (k *keyed[S]) add(key string, s *S) *S {
	if h, _ := k.held(key); h != nil {
		h.s = *s
		return &h.s
	}
	slot := k.dir.hold(key)
	p := int(slot / pageSize)
	if p >= len(k.pages) {
		k.pages = append(k.pages, make([]*statePage[S], p+1-len(k.pages))...)
	}
	if k.pages[p] == nil {
		k.pages[p] = new(statePage[S])
	}
	k.pages[p].held++
	h := &k.pages[p].states[slot%pageSize]
	h.s, h.held = *s, true
	k.count++
	k.keyBytes += int64(len(key))
	return &h.s
}

// evict forgets every key whose state idle says is back to a new key's, and
// returns how many it forgot.
func (k *keyed[S]) evict(idle func(*S) bool) int {
	evicted := 0
	k.each(func(h *heldState[S], slot int32) {
		if idle(&h.s) {
			k.drop(h, slot)
			evicted++
		}
	})
	return evicted
}

// each calls f with every state held and its slot, in slot order.
func (k *keyed[S]) each(f func(h *heldState[S], slot int32)) {
	for p, page := range k.pages {
		if page == nil {
			continue
		}
		for i := range page.states {
			if page.states[i].held {
				f(&page.states[i], int32(p*pageSize+i))
			}
		}
	}
}

// drop forgets the state h, at slot: its place is zeroed, and its page let go
// when it was the page's last.
func (k *keyed[S]) drop(h *heldState[S], slot int32) {
	*h = heldState[S]{}
	p := slot / pageSize
	if k.pages[p].held--; k.pages[p].held == 0 {
		k.pages[p] = nil
	}
	k.count--
	k.keyBytes -= int64(len(k.dir.names[slot]))
	k.dir.release(slot)
}

// Forget drops key's state, as a store does when the key expires: the key's next
// request finds it new (a full bucket, an empty window). It says whether the key
// had state.
func (k *keyed[S]) Forget(key string) bool {
	h, slot := k.held(key)
	if h != nil {
		k.drop(h, slot)
	}
	return h != nil
}

// ForgetAll drops every key's state, as a store flushed (or a failover to an
// empty replica) loses it, and returns how many keys it forgot.
func (k *keyed[S]) ForgetAll() int {
	n := k.count
	k.each(k.drop)
	return n
}

// keyDir and useKeyDir let ShareKeys reach a limiter's keyed.
func (k *keyed[S]) keyDir() *keyDirectory { return k.dir }

func (k *keyed[S]) useKeyDir(d *keyDirectory) bool {
	if k.count > 0 {
		return false
	}
	k.dir, k.pages, d.shared = d, nil, true
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
// instances there are. A shared directory keeps every key its limiters have
// held (see keyDirectory), so a limiter sharing it may be dropped without
// forgetting its keys. Limiters wrapped by another (a TTL, a template)
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
