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

// AllowSum decides a request on key at now as HAProxy does when its deny rule
// reads the sum of this table's rate and others: the rates that the other
// servers' tables, as their peers pushed them here, read for key (the "one
// table per server, sum the rates" pattern: each server tracks its requests
// in a table of its own, which its peers receive and nobody else writes, and
// the rule adds the tables' sc/table_http_req_rate with the add converter).
// The request is tracked in this table as Allow tracks it (before-deny:
// counted, then passes iff the sum including it ≤ Limit; after-deny: passes
// iff the sum read first < Limit, counted only then). Remaining is Limit less
// the sum; RetryAfter is when this table alone would let it through under
// Limit less the others' rates now — an estimate: theirs fall meanwhile, and
// the other servers count what they are sent.
func (h *HAProxy) AllowSum(key string, now time.Duration, others int64) Decision {
	t := h.tick(now)
	h.clock = t
	s := h.live(key, t)
	limit := h.policy.Limit
	var allowed bool
	var rate int64
	if h.track == TrackAfterDeny {
		rate = h.read(s, t)
		if allowed = rate+others < limit; allowed {
			h.update(&s, t)
			rate = h.read(s, t)
		}
	} else {
		h.update(&s, t)
		rate = h.read(s, t)
		allowed = rate+others <= limit
	}
	if st, ok := h.state(key); ok {
		*st = s
	} else {
		h.add(key, &s)
	}
	return h.decisionUnder(key, s, now, t, allowed, rate+others, limit-others)
}
