package algorithms

// When a refused request to HAProxy's lane would pass, and when its rate reads 0:
// solved from the counter's arithmetic (haproxy.go), for RetryAfter and ResetAfter.

// firstPassUnder is the first tick from t at which a request would pass on s, with
// none in between; haproxyNever if none ever would. Each piece of time it
// solves is one the rate falls through: the rest of the current period, the
// next (as the period rotates), then nothing counted (after two periods or
// expiry). A SecondClock counter's clock comes round every second, so one
// second of ticks says all there is.
// The rate is held to limit (the policy's, or less what other tables read),
// but in the SecondClock releases, which count the policy's.
func (h *HAProxy) firstPassUnder(s HAProxyState, t, limit int64) int64 {
	if h.rel.SecondClock {
		for u := t; u < t+1000 && u < s.Expire; u++ {
			if h.passes(s, u) {
				return u
			}
		}
		return max(t, s.Expire)
	}
	p, k := h.periodMS, s.Tick
	c, q := int64(s.Curr), int64(s.Prev)
	// n is the current count the deny reads at a later tick of this period
	n := c
	if h.track == TrackBeforeDeny {
		n++
	}
	first := min(s.Expire, k+2*p) // from here the rate reads 1 (counted) or 0
	if h.track == TrackAfterDeny {
		first = min(s.Expire, k+2*p+1) // a read at k + 2p still weighs the past fully
	}
	// weighed is the first tick u in [lo, hi) with count + ⌊w × (end − u) / p⌋
	// ≤ bound: w × (end − u) ≤ (bound − count + 1) × p − 1.
	weighed := func(lo, hi, count, w, end, bound int64) int64 {
		lo = max(lo, t)
		if lo >= hi || count > bound {
			return haproxyNever
		}
		u := lo
		if w > 0 {
			u = max(lo, end-floorDiv((bound-count+1)*p-1, w))
		}
		if u >= hi {
			return haproxyNever
		}
		return u
	}
	// the rest of the current period: n + ⌊q × (k + p − u) / p⌋
	if u := weighed(k, min(k+p, first), n, q, k+p, limit-h.afterDenyMargin()); u != haproxyNever {
		return u
	}
	// the next period
	if h.track == TrackBeforeDeny {
		// the request rotates it: curr 1, prev c, the period from (k + p) rounded
		k2 := k + p
		if h.rel.EvenTicks {
			k2 &^= 1
		}
		if u := weighed(k+p, first, 1, c, k2+p, limit); u != haproxyNever {
			return u
		}
	} else if c <= 1 { // read unrotated: the flapping correction reads c
		if c < limit {
			return max(t, k+p)
		}
	} else if u := weighed(k+p, first, 0, c, k+2*p, limit-1); u != haproxyNever {
		return u
	}
	return max(t, first)
}

// afterDenyMargin is 1 with after-deny, whose deny matches a rate ≥ Limit, so a
// request passes on a rate ≤ Limit − 1; 0 with before-deny.
func (h *HAProxy) afterDenyMargin() int64 {
	if h.track == TrackAfterDeny {
		return 1
	}
	return 0
}

// zeroAt is the first tick from t at which s's rate reads 0, with no request in
// between; haproxyNever if it never does.
func (h *HAProxy) zeroAt(s HAProxyState, t int64) int64 {
	if h.rel.SecondClock {
		for u := t; u < t+1000 && u < s.Expire; u++ {
			if h.read(s, u) == 0 {
				return u
			}
		}
		return max(t, s.Expire)
	}
	if h.read(s, t) == 0 {
		return t
	}
	k, p, c := s.Tick, h.periodMS, int64(s.Curr)
	at := k + 2*p + 1 // the flapping correction holds a count of 1 through k + 2p
	if c >= 2 {
		// ⌊c × (k + 2p − u) / p⌋ = 0 once c × (k + 2p − u) ≤ p − 1
		at = k + 2*p - (p-1)/c
	}
	return max(t, min(at, s.Expire))
}
