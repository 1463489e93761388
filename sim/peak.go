package sim

import "time"

// The peak window: for each key, its admissions (accepted requests at the moment
// they go ahead, after any queue delay or reservation) in a sliding window of the
// key's policy period, and the largest total ever held in one window. Memory is the
// admissions of one period, which the policy bounds for every lane that limits
// correctly (and shows the over-grant for one that does not).
//
// The admissions of all keys live in one arena of packed 8-byte entries (time and
// cost in one word), each key owning a power-of-two ring in it; with the counters
// in keyStats, a decision touches one cache line of statistics per key, which is
// what keeps a replay over many keys fast.

// packedAdmission is an admission's time in µs (high 42 bits: 50 days) and cost
// (low 22 bits). A larger cost is stored as several entries at the same time.
type packedAdmission uint64

const (
	costBits = 22
	maxCost  = 1<<costBits - 1
	// maxPackedAt is the first time an entry cannot hold: its µs wrap around.
	maxPackedAt = time.Duration(1<<(64-costBits)) * time.Microsecond
)

func pack(at time.Duration, cost int64) packedAdmission {
	return packedAdmission(uint64(at/time.Microsecond)<<costBits | uint64(cost))
}

func (a packedAdmission) at() time.Duration { return time.Duration(a>>costBits) * time.Microsecond }
func (a packedAdmission) cost() int64       { return int64(a & maxCost) }

// peakSpan is where a key's peak window was: its first and last admission.
type peakSpan struct{ first, last time.Duration }

// addToWindow records cost admitted at `at` (>= 0) for key k, whose policy period
// is period, and updates its peak; previous is the key's latest admission before
// this one, when seen. Admissions come in time order per key; one that does not
// (reserved work overtaken) is placed in order. Only an admission at the very µs
// of the key's latest (the ring's newest entry) can merge into it, and one at or
// after it goes at the ring's end: either way the ring is read only when it must.
func (r *recorder) addToWindow(k int32, at time.Duration, cost int64, period, previous time.Duration, seen bool) {
	ks := &r.keys[k]
	sameInstant := seen && previous.Truncate(time.Microsecond) == at
	// an entry's time wraps past 2^42 µs (see pack): past it, the ring's own order
	inOrder := (!seen || at >= previous) && at < maxPackedAt
	if !sameInstant || !r.merge(ks, at, cost) {
		for cost > maxCost {
			r.push(ks, pack(at, maxCost), inOrder)
			cost -= maxCost
		}
		r.push(ks, pack(at, cost), inOrder)
	}
	newest := r.entry(ks, ks.n-1).at() // (not ks.last: an entry's time wraps past 2^42 µs, and the window must be read in the ring's own times)
	for r.entry(ks, 0).at() <= newest-period {
		ks.sum -= r.entry(ks, 0).cost()
		ks.head = (ks.head + 1) & (ks.ringCap - 1)
		ks.n--
	}
	if ks.sum > ks.peak {
		ks.peak = ks.sum
		r.peaks[k] = peakSpan{r.entry(ks, 0).at(), newest}
		r.peaked(k, ks.peak)
	}
}

// merge adds cost to ks's newest entry when it was admitted at the same instant
// and the sum fits an entry, and says whether it did: the window's sums, and so
// its peak, are the same, and a burst of millions admitted at one instant (a lane
// with no limit) takes an entry, not millions.
func (r *recorder) merge(ks *keyStats, at time.Duration, cost int64) bool {
	if ks.n == 0 {
		return false
	}
	last := ks.ringOff + (ks.head+ks.n-1)&(ks.ringCap-1)
	if a := r.arena[last]; a.at() != at || a.cost()+cost > maxCost {
		return false
	}
	r.arena[last] = pack(at, r.arena[last].cost()+cost)
	ks.sum += cost
	return true
}

// entry is the i-th admission of ks's ring from the oldest.
func (r *recorder) entry(ks *keyStats, i int32) packedAdmission {
	return r.arena[ks.ringOff+(ks.head+i)&(ks.ringCap-1)]
}

// push appends a to ks's ring, keeping it in time order (inOrder: a is not
// earlier than the ring's newest entry, so it goes at the end unread); a full
// ring moves to a new one twice its size at the end of the arena (the old one is
// abandoned).
func (r *recorder) push(ks *keyStats, a packedAdmission, inOrder bool) {
	if ks.n == ks.ringCap {
		size := max(8, 2*ks.ringCap)
		off := int32(len(r.arena))
		r.arena = append(r.arena, make([]packedAdmission, size)...)
		for i := int32(0); i < ks.n; i++ {
			r.arena[off+i] = r.entry(ks, i)
		}
		ks.ringOff, ks.ringCap, ks.head = off, size, 0
	}
	slot := func(i int32) int32 { return ks.ringOff + (ks.head+i)&(ks.ringCap-1) }
	i := ks.n
	r.arena[slot(i)] = a
	for ; !inOrder && i > 0 && r.arena[slot(i-1)].at() > a.at(); i-- {
		r.arena[slot(i-1)], r.arena[slot(i)] = r.arena[slot(i)], r.arena[slot(i-1)]
	}
	ks.n++
	ks.sum += a.cost()
}
