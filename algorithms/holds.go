package algorithms

// Holder is a limiter that says whether it holds state for a key now: what a
// caller that keeps something per key beside the limiter (serve's count of the
// keys a lane holds) asks after Evict, to let go of the keys the limiter let
// go of. Holds changes nothing, and agrees with Keys: the keys it holds number
// Keys(). Every limiter in this package is one, and so are its wrappers (a TTL).
type Holder interface {
	Holds(key string) bool
}

var (
	_ Holder = (*TokenBucket)(nil)
	_ Holder = (*Traefik)(nil)
	_ Holder = (*Unlimited)(nil)
	_ Holder = (*expiring)(nil)
)

// Holds says the limiter holds a state for key (every limiter that embeds keyed).
func (k *keyed[S]) Holds(key string) bool {
	h, _ := k.held(key)
	return h != nil
}

// Holds says key has a bucket in the map (expired or not: the map drops one
// only when a request finds it, or room is needed).
func (tr *Traefik) Holds(key string) bool {
	_, ok := tr.m.items[key]
	return ok
}

// Holds is false: the no-limit lane keeps no state.
func (u *Unlimited) Holds(string) bool { return false }

// Holds is the wrapped limiter's answer; a key whose TTL has passed is still
// held until a request, an eviction or a forget finds it expired.
func (e *expiring) Holds(key string) bool {
	h, ok := e.Limiter.(Holder)
	return ok && h.Holds(key)
}
