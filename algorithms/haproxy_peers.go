package algorithms

import "time"

// Receive is a peer's push of key's entry s, sent at sentAt and read here at
// now, as peers.c's peer_treat_updatemsg applies it (haproxy/haproxy at
// 50872daa): the entry is overwritten, counter and all, the last writer
// winning; its period's start is rebuilt from the sender's age of it
// (now − curr_tick on the sender's clock), so it lies the transit later on
// this one; and it expires this table's expire after now (a push carries no
// expiry of its own).
func (h *HAProxy) Receive(key string, s HAProxyState, sentAt, now time.Duration) {
	t := h.tick(now)
	h.clock = t
	age := floorDiv(toMicros(sentAt), 1000) - s.Tick
	n := HAProxyState{Tick: t - age, Curr: s.Curr, Prev: s.Prev, Expire: haproxyNever}
	if h.rel.EvenTicks {
		n.Tick &^= 1
	}
	if h.expireMS > 0 {
		n.Expire = t + h.expireMS
	}
	if st, ok := h.state(key); ok {
		*st = n
		return
	}
	h.add(key, &n)
}
