package algorithms

import (
	"math"
	"slices"
	"time"
)

// KongName is Kong's rate-limiting plugin as a lane, in scenario files and on the
// command line.
const KongName Name = "kong"

// Kong is Kong's rate-limiting plugin (Kong/kong at 22246ef2, 3.11:
// kong/plugins/rate-limiting/handler.lua access, get_usage; policies/init.lua
// local, cluster and redis usage and increment; expiration.lua;
// kong/tools/timestamp.lua get_timestamps), one set of counters per key.
//
// The model. Every configured window is enforced at once: the policy's (its
// period a second, a minute, an hour or a day) and those of kong_windows. The
// clock is ngx.time(), whole seconds, here the request's time floored to the
// second; the run's origin stands for HeaderOrigin (2026-01-01T00:00:00Z), so
// the windows are UTC's: seconds, minutes :00, hours :00, days from midnight,
// months from the 1st, years from January 1st. Kong counts requests, not
// costs: every request is 1. A request reads each window's count; where
// limit − count ≤ 0 it is refused (429) and, with the local and cluster
// policies, nothing is counted; else each window's count goes up by one.
//
//   - local: the counts are the node's shared dict, incremented by a timer
//     (ngx.timer.at(0)) after the decision, into the windows of the request's
//     second. kong_increment_delay is how long after the decision that timer
//     lands: requests in between read the count without it, so concurrent
//     requests overshoot (Kong/kong#2629, #5311). A counter lives
//     expiration.lua's seconds from its first increment (shm init_ttl): a
//     month's counter 30 days, so in a 31-day month a counter made on the 1st
//     is gone on the 31st and the month starts again; a year's 365 days.
//   - cluster: the same decisions, the counts rows in the database
//     (policies/cluster.lua, postgres): a row a window, keyed by identifier,
//     period, the window's start, service and route, inserted by the first
//     increment with ttl = CURRENT_TIMESTAMP + expiration.lua's seconds (the
//     database's clock, in µs, when the increment lands), and on conflict
//     only its value goes up: the ttl is never renewed. find reads a row
//     while ttl >= now (the DAO is ttl = true). So a month's row made on the
//     1st at 00:00 is unread from the 31st at 00:00 + 1 µs. An expired row
//     stays in the table, taking the increments unread, until the clean-up
//     timer deletes the rows whose ttl < its time
//     (kong/db/strategies/postgres/connector.lua, init_worker:
//     ttl_cleanup_interval, 300 s); the next increment inserts a new row. The
//     lane's node started at the run's origin: its clean-ups run every 300 s
//     from there (one node; several would each run one).
//   - redis (3.4+, sync_rate −1): reading a window's usage is INCR (its key set
//     to expire on the first), so every request counts in every window,
//     refusals included: a client that keeps trying stays locked out of longer
//     windows. Redis keys expire as the local ones do. sync_rate > 0 is not
//     modelled; before 3.4 Redis decided as local does.
//
// Decision, as the headers say it (access): each window's remaining is
// limit − count, less the request itself when it is allowed (or is the
// window that refused it), at least 0; the window shown is the one with the
// least remaining, ties to the longer window: Remaining and Limit are its
// RateLimit-Remaining and RateLimit-Limit, ResetAfter its RateLimit-Reset, in
// whole seconds, max(1, window − (now − window start)) (a month is 30 days
// there too), and a refusal's RetryAfter is that Reset (Retry-After). Windows
// is every window's own (X-RateLimit-Remaining-<Window>; HeadersKong renders
// them, unless hide_client_headers). It comes
// after the refusing windows have turned (the reset counts from the whole
// second), and with redis a refusal may have used up a longer window.
//
// Time going backwards: a request reads the windows of its own second, earlier
// windows' counters included while they last (their expiry, and whether the
// database's clean-up has deleted a row, judged at the request's own time); increments still to land stay
// pending until a request's clock reaches them. Eviction forgets counters of
// windows before now's and expired ones, and keys left with none.
type Kong struct {
	policy Policy
	which  KongPolicy
	limits KongWindows
	delay  int64 // µs
	keyed[KongState]
	counters int64 // held in all keys, for StateBytes
}

// KongState is one key's counters per window, and its increments still to land.
type KongState struct {
	Counters [6][]KongCounter
	Pending  []KongPending
}

// KongCounter is one window's count: the window's start (Unix seconds), the
// count, and the first instant it is no longer read (µs from the origin;
// math.MaxInt64: never).
type KongCounter struct {
	Start, Count, GoneUS int64
}

// KongPending is an allowed request's increment not landed yet: when it lands
// (µs) and the second it counts in.
type KongPending struct {
	LandUS, Second int64
}

// KongCounterBytes is a counter's cost beyond its key: Kong's key also names
// the route, service, window start and period (ratelimit:<route>:<service>:
// <identifier>:<period_date>:<period>), two UUIDs and a number, and holds a number.
const KongCounterBytes = 2*36 + 13 + 6 + 8

// NewKong returns Kong's rate-limiting plugin enforcing p and the windows and
// policy of o; p and o must pass checkKongPolicy.
func NewKong(p Policy, o Options) *Kong {
	p = p.WithDefaults()
	limits, _ := kongLimits(p, o)
	return &Kong{policy: p, which: o.KongPolicy, limits: limits, delay: toMicros(o.KongIncrementDelay), keyed: newKeyed[KongState]()}
}

func (k *Kong) Algorithm() Name { return KongName }
func (k *Kong) Policy() Policy  { return k.policy }

// StateBytes counts each key's name and a counter per window held (Kong's key
// for it names the route, service, window and period besides, and holds a
// number).
func (k *Kong) StateBytes() int64 { return k.keyBytes + k.counters*KongCounterBytes }

// Limits are the windows the lane enforces.
func (k *Kong) Limits() KongWindows { return k.limits }

// kongWindowStart is get_timestamps' start of window w holding Unix second
// unix.
func kongWindowStart(w int, unix int64) int64 {
	if w < KongMonth {
		return floorDiv(unix, kongExpiration[w]) * kongExpiration[w]
	}
	t := time.Unix(unix, 0).UTC()
	month := t.Month()
	if w == KongYear {
		month = time.January
	}
	return time.Date(t.Year(), month, 1, 0, 0, 0, 0, time.UTC).Unix()
}

// kongClock is n µs as Kong reads it: the Unix second (ngx.time()).
func kongClock(n int64) (unix int64) {
	return HeaderOrigin.Unix() + floorDiv(n, int64(time.Second/Resolution))
}

// kongCleanupUS is how often the database's expired rows are deleted
// (ttl_cleanup_interval, 300 s), in µs.
const kongCleanupUS = 300 * int64(time.Second/Resolution)

// gone is the first instant at which a counter made at n µs for window w is
// no longer read: the shared dict drops a key once its expiry, whole
// milliseconds of ngx.now(), is reached (ngx_http_lua_shdict: expires <= now);
// Redis once its clock is past the key's millisecond; the database once
// CURRENT_TIMESTAMP, in µs, is past the row's ttl (ttl >= now is read).
func (k *Kong) gone(w int, n int64) int64 {
	life := kongExpiration[w] * int64(time.Second/Resolution)
	switch k.which {
	case KongRedis:
		return (floorDiv(n, 1000)+1)*1000 + life
	case KongCluster:
		return n + life + 1
	}
	return floorDiv(n, 1000)*1000 + life
}

// live says c is still read at n µs.
func (k *Kong) live(c KongCounter, n int64) bool { return n < c.GoneUS }

// held says c is still kept at n µs: while it is read; and the database's
// expired row until the clean-up after its ttl deletes it (ttl < the
// clean-up's time: at the first clean-up at or after GoneUS).
func (k *Kong) held(c KongCounter, n int64) bool {
	if k.which == KongCluster && c.GoneUS != math.MaxInt64 {
		return n < ceilDiv(c.GoneUS, kongCleanupUS)*kongCleanupUS
	}
	return k.live(c, n)
}

// count is s's count for window w starting at start, at n µs: 0 when no
// counter of it is read.
func (k *Kong) count(s *KongState, w int, start, n int64) int64 {
	for _, c := range s.Counters[w] {
		if c.Start == start && k.live(c, n) {
			return c.Count
		}
	}
	return 0
}

// incr adds one to window w's counter for the window holding unix, landing at
// n µs: to the counter of that window still held (the database's expired row
// too, unread, its ttl kept), else to a new one made then (an expired one is
// replaced).
func (k *Kong) incr(s *KongState, w int, unix, n int64) {
	start := kongWindowStart(w, unix)
	for i, c := range s.Counters[w] {
		if c.Start != start {
			continue
		}
		if k.held(c, n) {
			s.Counters[w][i].Count++
		} else {
			s.Counters[w][i] = KongCounter{Start: start, Count: 1, GoneUS: k.gone(w, n)}
		}
		return
	}
	s.Counters[w] = append(s.Counters[w], KongCounter{Start: start, Count: 1, GoneUS: k.gone(w, n)})
	k.counters++
}

// land applies s's pending increments due by n µs, in the order they land.
func (k *Kong) land(s *KongState, n int64) {
	due := 0
	for due < len(s.Pending) && s.Pending[due].LandUS <= n {
		p := s.Pending[due]
		for w, limit := range k.limits {
			if limit != 0 {
				k.incr(s, w, p.Second, p.LandUS)
			}
		}
		due++
	}
	s.Pending = s.Pending[due:]
}

// decide is access on s (its due increments landed) at n µs, s updated in
// place (Check passes a copy).
func (k *Kong) decide(s *KongState, key string, n int64) Decision {
	unix := kongClock(n)
	var used KongWindows
	for w, limit := range k.limits {
		if limit == 0 {
			continue
		}
		used[w] = k.count(s, w, kongWindowStart(w, unix), n)
		if k.which == KongRedis {
			k.incr(s, w, unix, n) // INCR, then usage = the value before it
		}
	}
	d := KongAnswer(k.limits, used, unix, JitterFactor(key, k.policy.RetryJitter))
	if d.Allowed && k.which != KongRedis {
		land := n + k.delay
		i, _ := slices.BinarySearchFunc(s.Pending, land, func(p KongPending, t int64) int { return compareInt(p.LandUS, t+1) })
		s.Pending = slices.Insert(s.Pending, i, KongPending{LandUS: land, Second: unix})
		if k.delay == 0 {
			k.land(s, n)
		}
	}
	return d
}

// KongAnswer is the plugin's answer (handler.lua: access) at Unix second unix
// to a request for which each configured window (limits[w] > 0) read usage
// used[w]: refused when any window has no room left (limit − usage ≤ 0), each
// window's headers, and a refusal's Retry-After, jittered by jitterBy (see
// JitterFactor). It counts nothing: where the usage comes from and what is
// incremented is the policy's.
func KongAnswer(limits, used KongWindows, unix int64, jitterBy float64) Decision {
	var remaining KongWindows
	stop := false
	for w, limit := range limits {
		if limit == 0 {
			continue
		}
		remaining[w] = limit - used[w]
		stop = stop || remaining[w] <= 0
	}
	// each window's headers: "if stop == nil or stop == k" the request itself
	// is taken off; the window that refused shows 0 either way
	d := Decision{Allowed: !stop, Windows: make([]Decision, 0, len(limits))}
	chosen := -1
	for w, limit := range limits {
		if limit == 0 {
			continue
		}
		r := remaining[w]
		if !stop {
			r--
		}
		win := Decision{Allowed: !stop, Remaining: float64(max(0, r)), Limit: limit, ResetAfter: kongReset(w, unix)}
		d.Windows = append(d.Windows, win)
		if chosen < 0 || win.Remaining <= d.Remaining { // the least shown; ties to the longer window, later in the order
			chosen, d.Remaining, d.Limit, d.ResetAfter = w, win.Remaining, win.Limit, win.ResetAfter
		}
	}
	if stop {
		d.RetryAfter = jitter(toMicros(d.ResetAfter), jitterBy)
	}
	return d
}

// KongClock is the Unix second Kong reads at now (ngx.time()).
func KongClock(now time.Duration) int64 { return kongClock(toMicros(now)) }

// KongWindowStart is the start (Unix second) of window w holding Unix second
// unix (timestamp.lua: get_timestamps).
func KongWindowStart(w int, unix int64) int64 { return kongWindowStart(w, unix) }

// KongLimits are the windows a Kong lane of policy p and options o enforces.
func KongLimits(p Policy, o Options) (KongWindows, error) { return kongLimits(p, o) }

// kongReset is window w's RateLimit-Reset at Unix second unix: max(1, its length
// − the seconds since it began), a month 30 days long.
func kongReset(w int, unix int64) time.Duration {
	return time.Duration(max(1, kongExpiration[w]-(unix-kongWindowStart(w, unix)))) * time.Second
}

// kongWindowQuotas are the windows a Kong lane enforces, in the order its
// decisions' Windows answer them (second to year): each named as the
// plugin's headers name it, its limit per its length (a month 30 days, a year
// 365, as expiration.lua has them).
func kongWindowQuotas(p Policy, o Options) []Quota {
	limits, err := kongLimits(p, o)
	if err != nil {
		return nil
	}
	var qs []Quota
	for w, limit := range limits {
		if limit != 0 {
			qs = append(qs, Quota{Name: KongWindowNames[w], Policy: Policy{Limit: limit, Period: time.Duration(kongExpiration[w]) * time.Second}})
		}
	}
	return qs
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Allow is access for key at now (the cost is not Kong's: every request is 1).
func (k *Kong) Allow(key string, now time.Duration, _ int64) Decision {
	n := toMicros(now)
	s, ok := k.state(key)
	if !ok {
		s = k.add(key, &KongState{})
	}
	k.land(s, n)
	return k.decide(s, key, n)
}

// Check is what Allow would decide, and changes nothing.
func (k *Kong) Check(key string, now time.Duration, _ int64) Decision {
	n := toMicros(now)
	s := &KongState{}
	if st, ok := k.state(key); ok {
		s = st.clone()
	}
	counters := k.counters
	k.land(s, n)
	d := k.decide(s, key, n)
	k.counters = counters
	return d
}

// clone is a copy of s sharing nothing with it.
func (s *KongState) clone() *KongState {
	c := &KongState{Pending: slices.Clone(s.Pending)}
	for w := range s.Counters {
		c.Counters[w] = slices.Clone(s.Counters[w])
	}
	return c
}

// Level is the requests counted in the policy's window at now (landed
// increments only).
func (k *Kong) Level(key string, now time.Duration) float64 {
	st, ok := k.state(key)
	if !ok {
		return 0
	}
	n := toMicros(now)
	s := st.clone()
	counters := k.counters
	k.land(s, n)
	k.counters = counters
	w, _ := KongWindowOf(k.policy.Period)
	return float64(k.count(s, w, kongWindowStart(w, kongClock(n)), n))
}

// Forget drops key's counters and the increments still to land for it, as a
// store that loses the key: its next request counts from zero. It says whether
// the key had any.
func (k *Kong) Forget(key string) bool {
	if s, ok := k.state(key); ok {
		for _, c := range s.Counters {
			k.counters -= int64(len(c))
		}
	}
	return k.keyed.Forget(key)
}

// ForgetAll drops every key's counters and pending increments, as a store
// flushed loses them, and returns how many keys had some.
func (k *Kong) ForgetAll() int {
	k.counters = 0
	return k.keyed.ForgetAll()
}

// Evict lands the increments due by now, then forgets counters of windows
// before now's and those no longer held (expired; the database's once
// cleaned up), and keys left with no counter and no increment to land.
func (k *Kong) Evict(now time.Duration) int {
	n := toMicros(now)
	unix := kongClock(n)
	return k.evict(func(s *KongState) bool {
		k.land(s, n) // no later request comes before now: they would land first
		for w := range s.Counters {
			start := kongWindowStart(w, unix)
			kept := s.Counters[w][:0]
			for _, c := range s.Counters[w] {
				if c.Start >= start && k.held(c, n) {
					kept = append(kept, c)
				}
			}
			k.counters -= int64(len(s.Counters[w]) - len(kept))
			s.Counters[w] = kept
		}
		return len(s.Pending) == 0 && slices.IndexFunc(s.Counters[:], func(c []KongCounter) bool { return len(c) > 0 }) < 0
	})
}
