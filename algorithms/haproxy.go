package algorithms

import (
	"math"
	"math/bits"
	"time"
)

// HAProxyName is HAProxy's stick-table request-rate limit (http_req_rate,
// http-request track-sc0 and deny) as a lane, in scenario files and on the
// command line.
const HAProxyName Name = "haproxy"

// HAProxy is HAProxy's request-rate limit on a stick table, one entry per key:
//
//	backend st_src
//	    stick-table type ip size 1m expire 30s store http_req_rate(10s)
//	frontend fe
//	    http-request track-sc0 src table st_src
//	    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 100 }
//
// with Period the counter's period (http_req_rate(<period>)) and Limit the
// threshold N of "gt N": in a fresh period the N-th request passes and the
// N+1-th is denied. Burst is not used. Sources, haproxy/haproxy at v2.6.0 (2.6.12
// is Debian's): include/haproxy/freq_ctr.h (update_freq_ctr_period,
// read_freq_ctr_period), src/freq_ctr.c (freq_ctr_total), src/http_act.c
// (http_action_track_sc), src/stick_table.c (stktable_get_entry,
// stktable_touch_local, stktable_trash_expired, smp_fetch_sc_http_req_rate).
// Newer releases split them (update_freq_ctr_period_slow,
// _freq_ctr_total_from_values) and decide alike.
//
// State per key, the entry's http_req_rate (struct freq_ctr) and its expiry:
// curr_ctr, prev_ctr and curr_tick, the start of the current period in ms (even:
// bit 0 is the lock). The clock is HAProxy's now_ms, the run's time truncated to
// whole ms. A new entry's counter is zeroed, and its curr_tick, 0, lies more than
// two periods in the past (as it does unless now_ms is within two periods after
// its wrap: every 49.7 days, and from 2.8 also 20 s after start, commit
// 28360dc53), so its first request starts a period there.
//
// Counting (update_freq_ctr_period, once per tracked request): within the
// period, curr_ctr += 1; else the period rotates, prev_ctr = curr_ctr, curr_ctr
// = 1, curr_tick += period, and if two or more periods were missed prev_ctr = 0
// and curr_tick = now (re-anchored); curr_tick is then rounded down to even.
// Periods are aligned to each entry's first request, not to the clock.
//
// The rate (read_freq_ctr_period): remain = curr_tick + period − now; if remain
// < 0 (a period ended with no request to rotate it) the current count becomes
// the past one, counted over remain + period, or nothing after two periods; then
// if curr_ctr is 0 and past ≤ 1 the rate is past (the flapping correction), else
// ⌊(past × remain + curr × period) / period⌋: the current count plus the
// previous one weighted by the share of this period still ahead.
//
// A decision, by track_sc (HAProxyTrack): before-deny counts the request, then
// allows it iff the rate read (including it) ≤ Limit; after-deny reads the rate
// first, denies iff it is ≥ Limit, and counts only a request it allows. A
// request counts one whatever its cost (track-sc0 counts requests), so a cost
// above Limit is not refused for ever. Every tracked request refreshes the
// entry's expiry to now + expire (stktable_touch_local); an entry not tracked for
// expire (default 0: none) is gone, and the next request starts a fresh one;
// an expire longer than two periods changes no decision. With before-deny a
// client that keeps sending Limit + 2 or more requests a period, evenly, reads a
// rate over Limit at every request after its first period and is never let
// through again: its denials keep the rate up.
//
// Decision: Remaining is Limit − the rate after the decision, floored at 0;
// Limit is Limit. RetryAfter of a denial is exact to the µs: the first whole ms
// at which the same request would pass, counted as it would be there, with no
// request in between (with before-deny, a retry sent earlier is counted and
// makes it later). ResetAfter is until the rate reads 0. Level is the rate.
// HAProxy keeps stick tables in its own memory (shared with peers), never in
// Redis: the lane has no Redis port.
//
// Versions (HAProxyRelease): the rate's arithmetic is the same from 1.6 to 3.4
// (2.3 and earlier add ⌊past × remain / period⌋ to curr, the same value; 2.4's
// a7a31b26 moved it to freq_ctr_total); 2.7 (f6a42c3a) reads the thread's now_ms
// in the fast path, which changes nothing on one clock. Before 1.8 a period may
// start on an odd ms; 1.8.29, 2.0.21, 2.1.12 and 2.2.11 read the ms within the
// second, so counters of periods of a second or more never rotate (a client is
// let through Limit requests until its entry expires).
//
// Not modelled: the table's size (the oldest entries are purged when it is
// full), peers, and the wrap of now_ms (an entry created within two periods
// after it starts its first period at the wrap, not at its first request). A
// period or expire that is not whole ms is rounded up, as parse_time_err rounds
// "1500us" to 2 ms; a period of 2^31 ms or more, which HAProxy refuses ("timer
// overflow"), the lane runs (such an expire is refused).
//
// Time going backwards: HAProxy's clock (global_now_ms) only moves forward, so
// the lane reads every request at the latest time it has seen, and RetryAfter and
// ResetAfter are measured from the request's own now. Eviction forgets an entry
// that has expired or, but in the SecondClock releases, whose counter reads 0 for
// ever (more than two periods since its period started): a new one decides the
// same.
type HAProxy struct {
	policy   Policy
	periodMS int64 // http_req_rate(<period>), ms
	track    HAProxyTrack
	expireMS int64 // 0: entries never expire
	rel      HAProxyRelease
	clock    int64 // the latest now_ms seen; haproxyNoClock before the first request
	keyed[HAProxyState]
}

// HAProxyState is one stick-table entry: its http_req_rate counter (struct
// freq_ctr) and when the entry expires.
type HAProxyState struct {
	Tick   int64  // curr_tick: the current period's start, ms on the counter's clock
	Curr   uint32 // curr_ctr: requests counted in the current period
	Prev   uint32 // prev_ctr: requests counted in the previous period
	Expire int64  // the ms at which the entry is gone (haproxyNever: never)
}

// haproxyStateBytes is an entry's counter (12 bytes, doc/configuration.txt: "takes
// 12 bytes") and its expiry date (4).
const haproxyStateBytes = 16

const (
	haproxyNever   = int64(math.MaxInt64)
	haproxyNoClock = int64(math.MinInt64)
	// haproxyLongAgo is a new entry's zeroed curr_tick as seen from the run's
	// clock: more than two periods before any time the run reaches.
	haproxyLongAgo = -int64(1) << 60
)

// NewHAProxy returns HAProxy's stick-table limit for p, its track-sc0 rule where
// track says, entries expiring after expire (0: never), as release rel decides.
func NewHAProxy(p Policy, track HAProxyTrack, expire time.Duration, rel HAProxyRelease) *HAProxy {
	p = p.WithDefaults()
	return &HAProxy{
		policy:   p,
		periodMS: max(1, ceilMS(p.Period)),
		track:    track,
		expireMS: ceilMS(expire),
		rel:      rel,
		clock:    haproxyNoClock,
		keyed:    newKeyed[HAProxyState](),
	}
}

func (h *HAProxy) Algorithm() Name   { return HAProxyName }
func (h *HAProxy) Policy() Policy    { return h.policy }
func (h *HAProxy) StateBytes() int64 { return h.keyBytes + int64(h.Keys())*haproxyStateBytes }

// ceilMS is d in whole ms, rounded up as HAProxy's parse_time_err rounds.
func ceilMS(d time.Duration) int64 { return ceilDiv(int64(d), int64(time.Millisecond)) }

// tick is now_ms at now: the time truncated to whole ms, never before the
// latest the lane has seen.
func (h *HAProxy) tick(now time.Duration) int64 {
	return max(floorDiv(toMicros(now), 1000), h.clock)
}

// ctrNow is the time the counters read at tick t: t, or in the SecondClock
// releases the ms within the second.
func (h *HAProxy) ctrNow(t int64) int64 {
	if h.rel.SecondClock {
		return t - floorDiv(t, 1000)*1000
	}
	return t
}

// elapsed is now − tick as the counters compare it: in the SecondClock releases
// as unsigned 32-bit ticks, so a clock that went round the second reads as far
// in the future.
func (h *HAProxy) elapsed(now, tick int64) int64 {
	if h.rel.SecondClock {
		return int64(uint32(now - tick))
	}
	return now - tick
}

// fresh is a new entry.
func (h *HAProxy) fresh() HAProxyState {
	s := HAProxyState{Tick: haproxyLongAgo, Expire: haproxyNever}
	if h.rel.SecondClock {
		s.Tick = 0
	}
	return s
}

// live is key's entry as a lookup at tick t finds it: stored, or a new one when
// it has none or it has expired.
func (h *HAProxy) live(key string, t int64) HAProxyState {
	if s, ok := h.state(key); ok && t < s.Expire {
		return *s
	}
	return h.fresh()
}

// update counts one request at tick t (update_freq_ctr_period) and refreshes
// the entry's expiry (stktable_touch_local).
func (h *HAProxy) update(s *HAProxyState, t int64) {
	if h.expireMS > 0 {
		s.Expire = t + h.expireMS
	}
	now, p := h.ctrNow(t), h.periodMS
	if h.elapsed(now, s.Tick) < p {
		s.Curr++
		return
	}
	s.Prev, s.Curr = s.Curr, 1
	tick := s.Tick + p
	if h.elapsed(now, tick) >= p { // two or more periods missed
		s.Prev, tick = 0, now
	}
	if h.rel.EvenTicks {
		tick &^= 1
	}
	s.Tick = tick
}

// read is the rate at tick t (read_freq_ctr_period, with its flapping
// correction).
func (h *HAProxy) read(s HAProxyState, t int64) int64 {
	now, p := h.ctrNow(t), h.periodMS
	remain := s.Tick + p - now
	curr, past := uint64(s.Curr), uint64(s.Prev)
	if remain < 0 {
		remain += p
		if remain < 0 {
			past = 0
		} else {
			past = curr
		}
		curr = 0
	}
	if curr == 0 && past <= 1 {
		return int64(past)
	}
	return int64(curr + mulDiv(past, uint64(remain), uint64(p)))
}

// mulDiv is ⌊a × b / c⌋ without overflow, for a quotient below 2^64.
func mulDiv(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	q, _ := bits.Div64(hi, lo, c)
	return q
}

// decide makes the decision on s at tick t, counting the request into s as the
// track_sc rule does, and returns whether it passed and the rate after it.
func (h *HAProxy) decide(s *HAProxyState, t int64) (bool, int64) {
	if h.track == TrackAfterDeny {
		if h.read(*s, t) >= h.policy.Limit {
			return false, h.read(*s, t)
		}
		h.update(s, t)
		return true, h.read(*s, t)
	}
	h.update(s, t)
	rate := h.read(*s, t)
	return rate <= h.policy.Limit, rate
}

// passes says the same request would pass at tick t on s (nothing written).
func (h *HAProxy) passes(s HAProxyState, t int64) bool {
	if t >= s.Expire {
		s = h.fresh()
	}
	ok, _ := h.decide(&s, t)
	return ok
}

// decision composes the Decision of a request at now (tick t) whose decision
// left s, as decide returned it.
func (h *HAProxy) decision(key string, s HAProxyState, now time.Duration, t int64, allowed bool, rate int64) Decision {
	return h.decisionUnder(key, s, now, t, allowed, rate, h.policy.Limit)
}

// decisionUnder is decision with the retry solved for this table's rate held
// to bound (the policy's limit less what other tables read).
func (h *HAProxy) decisionUnder(key string, s HAProxyState, now time.Duration, t int64, allowed bool, rate, bound int64) Decision {
	limit := h.policy.Limit
	d := Decision{Allowed: allowed, Limit: limit, Remaining: float64(max(0, limit-rate))}
	n := toMicros(now)
	if !allowed {
		if u := h.firstPassUnder(s, t, bound); u == haproxyNever {
			d.RetryAfter = Forever
		} else {
			d.RetryAfter = jitter(u*1000-n, JitterFactor(key, h.policy.RetryJitter))
		}
	}
	if z := h.zeroAt(s, t); z == haproxyNever {
		d.ResetAfter = Forever
	} else if z > t {
		d.ResetAfter = fromMicros(z*1000 - n)
	}
	return d
}

// Allow decides on a request of key at now as HAProxy's rules do; cost is not
// read (a request counts one).
func (h *HAProxy) Allow(key string, now time.Duration, _ int64) Decision {
	t := h.tick(now)
	h.clock = t
	s := h.live(key, t)
	allowed, rate := h.decide(&s, t)
	if st, ok := h.state(key); ok {
		*st = s
	} else {
		h.add(key, &s)
	}
	return h.decision(key, s, now, t, allowed, rate)
}

// Check is what Allow would decide, and changes nothing.
func (h *HAProxy) Check(key string, now time.Duration, _ int64) Decision {
	t := h.tick(now)
	s := h.live(key, t)
	allowed, rate := h.decide(&s, t)
	return h.decision(key, s, now, t, allowed, rate)
}

// Level is key's rate at now, as sc_http_req_rate reads it.
func (h *HAProxy) Level(key string, now time.Duration) float64 {
	t := h.tick(now)
	return float64(h.read(h.live(key, t), t))
}

// Evict forgets entries that have expired at now, and (but in the SecondClock
// releases) those whose counter reads 0 for ever: more than two periods after
// their period started, where a new entry's first request decides the same.
func (h *HAProxy) Evict(now time.Duration) int {
	t := h.tick(now)
	return h.evict(func(s *HAProxyState) bool {
		return t >= s.Expire || (!h.rel.SecondClock && t > s.Tick+2*h.periodMS)
	})
}

// haproxyStatus is HAProxy's answer to d: 200 from the server for a request
// that passes, logged with termination state "----"; deny_status (default 403)
// for a denial, logged "PR--" (P: the proxy blocked it, R: while reading the
// request; doc/configuration.txt, "Session state at disconnection").
func haproxyStatus(d Decision, o Options) (int, string) {
	if d.Allowed {
		return 200, "----"
	}
	if o.DenyStatus != 0 {
		return o.DenyStatus, "PR--"
	}
	return haproxyDefaultDenyStatus, "PR--"
}

// Entry is key's stick-table entry as a lookup at now finds it (show table):
// false when it has none or it has expired. It changes nothing.
func (h *HAProxy) Entry(key string, now time.Duration) (HAProxyState, bool) {
	s, ok := h.state(key)
	if !ok || h.tick(now) >= s.Expire {
		return HAProxyState{}, false
	}
	return *s, true
}

// PeriodMS is the counter's period in ms, as HAProxy parses it from Period.
func (h *HAProxy) PeriodMS() int64 { return h.periodMS }
