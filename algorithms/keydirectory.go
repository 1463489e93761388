package algorithms

import (
	"math/bits"
	"unsafe"
)

// keyDirectory gives every key held by one of its limiters a slot, from 0, so
// that a state found by slot is the key's. A limiter's own directory takes a
// slot back once the key's state is forgotten, for the next new key: its size
// follows the keys held, not every key ever seen (a long log's clients come
// and go). A directory shared (ShareKeys) keeps every key its limiters have
// held: they come and go without forgetting (a deployment's instances, scaled
// in or restarted), and their keys are their run's.
//
// Beside the map it keeps recent, a cache of the slots last found, by the address
// of the key string asked for (two ways: a pair of entries per hash): a caller
// that passes the same string for a key every time (the engine passes each key's
// one name) finds its slot without hashing the name. An entry holds its string,
// so the memory it points at cannot be reused for another string while the entry
// lives; same address and length is then the same key. A slot taken back makes
// every entry stale at once (gen), and the entries fill again as keys are found
// in the map.
type keyDirectory struct {
	slots  map[string]int32
	names  []string      // by slot ("" when free)
	free   []int32       // slots taken back
	recent []recentEntry // a power of two in size, at most maxRecent; empty at first
	gen    uint32        // entries of another generation are stale
	shared bool          // by several limiters: no slot is taken back
}

// recentEntry is one entry of keyDirectory.recent.
type recentEntry struct {
	key  string
	slot int32
	gen  uint32
}

// maxRecent is the most entries keyDirectory.recent holds (24 bytes each: 1.5
// MiB). Below it the cache has two to four entries a key, so few keys collide.
const maxRecent = 1 << 16

func newKeyDirectory() *keyDirectory { return &keyDirectory{slots: map[string]int32{}, gen: 1} }

// recentSlot is key's place in recent (a multiplicative hash of its address):
// the first of a pair of entries, two keys whose addresses hash alike each
// keeping one.
func (d *keyDirectory) recentSlot(key string) int {
	h := uint64(uintptr(unsafe.Pointer(unsafe.StringData(key)))) * 0x9E3779B97F4A7C15
	return int(h>>32&uint64(len(d.recent)-1)) &^ 1
}

// holds says e is a fresh entry for the very string key.
func (d *keyDirectory) holds(e *recentEntry, key string) bool {
	return e.gen == d.gen && len(e.key) == len(key) && unsafe.StringData(e.key) == unsafe.StringData(key)
}

// find returns key's slot, if the directory has one for it.
func (d *keyDirectory) find(key string) (int32, bool) {
	if len(d.recent) == 0 {
		slot, ok := d.slots[key]
		return slot, ok
	}
	i := d.recentSlot(key)
	first, second := &d.recent[i], &d.recent[i+1]
	if d.holds(first, key) {
		return first.slot, true
	}
	if d.holds(second, key) {
		return second.slot, true
	}
	slot, ok := d.slots[key]
	if ok { // the newest first, the one it displaces second
		*second = *first
		*first = recentEntry{key: key, slot: slot, gen: d.gen}
	}
	return slot, ok
}

// hold returns key's slot for a limiter that now holds state for it, giving
// the key a slot when it has none.
func (d *keyDirectory) hold(key string) int32 {
	slot, ok := d.find(key)
	if !ok {
		if n := len(d.free); n > 0 {
			slot, d.free = d.free[n-1], d.free[:n-1]
			d.names[slot] = key
		} else {
			slot = int32(len(d.names))
			d.names = append(d.names, key)
		}
		d.slots[key] = slot
		if n := len(d.slots); 2*n > len(d.recent) && len(d.recent) < maxRecent {
			d.recent = make([]recentEntry, min(maxRecent, 2<<bits.Len(uint(n))))
		}
	}
	return slot
}

// release says the limiter holds state for slot's key no more: the slot is
// free for the next new key (a shared directory keeps it).
func (d *keyDirectory) release(slot int32) {
	if d.shared {
		return
	}
	delete(d.slots, d.names[slot])
	d.names[slot] = ""
	d.free = append(d.free, slot)
	d.gen++
	if d.gen == 0 { // wrapped: an entry 2³² releases old would look fresh
		clear(d.recent)
		d.gen = 1
	}
}
