package algorithms

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// CloudflareName is Cloudflare's rate limiting rules (WAF) as a lane, in
// scenario files and on the command line.
const CloudflareName Name = "cloudflare"

// cloudflareOptions are the Cloudflare lane's scenario keys.
var cloudflareOptions = []Option{
	{Key: "mitigation_timeout", Doc: `mitigation_timeout, the rule's duration: once a key's rate passes the limit, every request of it is blocked for this long, whatever its rate; default 0, "throttle": only the requests over the rate are blocked`,
		set: func(o Options) string { return setIf(o.MitigationTimeout != 0, "mitigation_timeout") }},
	{Key: "count_blocked", Doc: "blocked requests add to the key's counter too; default false: only the requests let through count (the throttle behaviour Cloudflare documents)",
		set: func(o Options) string { return setIf(o.CountBlocked, "count_blocked") }},
	{Key: "deny_status", Doc: "the HTTP status of a block, response.status_code (Cloudflare: 400 to 499); default 429",
		set: func(o Options) string { return setIf(o.DenyStatus != 0, "deny_status") }},
}

// cloudflareSeconds are the values, in seconds, Cloudflare takes for a rule's
// period and its mitigation timeout (docs: rate-limiting-rules "Availability",
// footnote 3); which of them a zone may use depends on its plan (Free: 10 s
// only; Pro: up to 1 min; Business: up to 10 min; Enterprise: up to 65,535 s for
// the period, a day for the timeout).
var cloudflareSeconds = []int64{10, 15, 20, 30, 40, 45, 60, 90, 120, 180, 240, 300, 480, 600, 900, 1200, 1800, 2400, 3600, 65535, 86400}

// cloudflareDefaultStatus is a block's status when the rule sets none.
const cloudflareDefaultStatus = 429

// CheckCloudflarePolicy refuses what a Cloudflare rule cannot be configured
// with: a period not in Cloudflare's list of values, a mitigation timeout that
// is not 0 (throttle), one of the listed values or, as Enterprise customers may
// set one through the API, a whole number of seconds up to a day, and a
// response status outside 400 to 499.
func CheckCloudflarePolicy(p Policy, o Options) error {
	list := func() string {
		s := make([]string, len(cloudflareSeconds))
		for i, v := range cloudflareSeconds {
			s[i] = fmt.Sprint(v)
		}
		return strings.Join(s, ", ")
	}
	if p.Period%time.Second != 0 || !slices.Contains(cloudflareSeconds, int64(p.Period/time.Second)) {
		return fmt.Errorf("period %s is not a period Cloudflare takes; use one of %s seconds (which ones depends on the plan: Free 10 s only, Pro up to 60, Business up to 600)", p.Period, list())
	}
	if t := o.MitigationTimeout; t < 0 || t > 24*time.Hour || t%time.Second != 0 {
		return &OptionError{"mitigation_timeout", fmt.Errorf("mitigation_timeout must be 0 (throttle) or one of %s seconds (Enterprise may give another whole number of seconds up to 86400 through the API); got %s", list(), t)}
	}
	if s := o.DenyStatus; s != 0 && (s < 400 || s > 499) {
		return &OptionError{"deny_status", fmt.Errorf("deny_status (response.status_code) must be from 400 to 499, as Cloudflare takes it (got %d)", s)}
	}
	return nil
}

// cloudflareStatus is what Cloudflare answers for d: a block is the rule's
// response.status_code (deny_status, default 429), logged as the security
// event's action "block"; a request the rule does not act on goes to the origin
// (200 here) and makes no security event: its word is empty.
func cloudflareStatus(d Decision, o Options) (int, string) {
	if d.Allowed {
		return 200, ""
	}
	if o.DenyStatus != 0 {
		return o.DenyStatus, "block"
	}
	return cloudflareDefaultStatus, "block"
}

// Cloudflare is one rate limiting rule of Cloudflare's WAF with the Block action,
// one counter per key (a key is a value of the rule's characteristics, in one
// data centre). Cloudflare publishes no code for it; the lane follows its docs
// (developers.cloudflare.com/waf/rate-limiting-rules/: parameters, request-rate,
// and the availability table, as in cloudflare/cloudflare-docs in 2026) and,
// for the counting, its 2017 engineering post ("How we built rate limiting
// capable of scaling to millions of domains", blog.cloudflare.com/counting-
// things-a-lot-of-different-things).
//
// The policy: requests_per_period = Limit, period = Period, one of Cloudflare's
// values (CheckCloudflarePolicy); Burst is not used. A request's cost is its
// count (1 for a request; more stands for the score of complexity-based rate
// limiting, which Cloudflare adds after the response, here at the request).
//
// The counter. Chosen: the approximate sliding window of the 2017 post, the one
// counting Cloudflare has described, and ratelab's sliding-counter exactly: two
// counts per key in fixed windows of the period aligned to the run's origin,
// and the rate prev × (period − elapsed) / period + curr. The docs say the
// action applies when the counter "exceeds" requests_per_period, the request
// that takes it there included (their example: limit 1, the second request
// sets the counter to 2 and is blocked): a request is blocked when the rate
// with its cost is above the limit. Whether today's engine still estimates the
// rate this way is not published.
//
// Mitigation. With mitigation_timeout > 0, the request that exceeds the rate
// starts a mitigation: every request of the key is blocked until then, whatever
// its rate ("regardless of the request rate"); one that exceeds the rate after
// it ends starts another. With 0, "throttle" (Enterprise for Block), only the
// requests over the rate are blocked.
//
// Blocked requests. Not said by the docs. Chosen by default: they do not count,
// which is what throttle must do to let "incoming requests when the rate is lower
// than the configured limit" through (a client steadily at twice the limit keeps
// getting half through); with mitigation it matters only after the timeout.
// count_blocked makes every request count, as the docs' example reads (the
// blocked request set the counter to 2): then a client that keeps sending keeps
// its rate over the limit and is mitigated again as soon as the timeout ends.
// With throttle and blocked requests not counted the lane decides exactly as
// sliding-counter.
//
// Decision: Remaining is the room the rate leaves (0 while mitigated); a block's
// RetryAfter is until the mitigation ends and the rate has fallen enough for the
// request, to the µs; ResetAfter until both windows have emptied and the
// mitigation ended. Not modelled: counters per data centre (a key is one
// counter), the delay of "up to a few seconds" before a count is seen,
// counting expressions and response fields, the challenge actions (and the
// counter reset when a challenge is passed), the Log action.
//
// Time going backwards, as sliding-counter: an earlier window is read as the
// start of the stored one; a request stamped before a mitigation's end is
// blocked.
type Cloudflare struct {
	sc           *SlidingCounter // the rate's arithmetic
	timeoutUS    int64
	countBlocked bool
	keyed[CloudflareState]
}

// CloudflareState is one key's counter: its two windows' counts and when its
// mitigation ends (µs from the origin; math.MinInt64 before the first).
type CloudflareState struct {
	SlidingCounterState
	Until int64
}

// cloudflareStateBytes is the two counts, the window and the mitigation's end.
const cloudflareStateBytes = 32

// NewCloudflare returns a Cloudflare rate limiting rule enforcing p, with a
// mitigation of timeout (0: throttle), counting blocked requests when
// countBlocked.
func NewCloudflare(p Policy, timeout time.Duration, countBlocked bool) *Cloudflare {
	return &Cloudflare{sc: NewSlidingCounter(p), timeoutUS: toMicros(timeout), countBlocked: countBlocked, keyed: newKeyed[CloudflareState]()}
}

func (c *Cloudflare) Algorithm() Name   { return CloudflareName }
func (c *Cloudflare) Policy() Policy    { return c.sc.policy }
func (c *Cloudflare) StateBytes() int64 { return c.keyBytes + int64(c.Keys())*cloudflareStateBytes }

// fresh is a key with no counter yet.
func (c *Cloudflare) fresh(n int64) CloudflareState {
	return CloudflareState{SlidingCounterState: SlidingCounterState{Window: floorDiv(n, c.sc.periodUS)}, Until: math.MinInt64}
}

// decide decides on *s and updates it in place.
func (c *Cloudflare) decide(s *CloudflareState, key string, n, cost int64) Decision {
	var elapsed int64
	s.SlidingCounterState, elapsed = c.sc.roll(s.SlidingCounterState, n)
	p, limit := c.sc.periodUS, c.sc.policy.Limit
	ahead := max(0, s.Window*p-n) // the stored window starts after now (a clock behind)
	d := Decision{Limit: limit}
	mitigated := c.mitigationLeft(*s, n) > 0
	switch {
	case !mitigated && c.room(s.SlidingCounterState, elapsed) >= cost:
		s.Curr += cost
		d.Allowed = true
	default:
		if !mitigated && c.timeoutUS > 0 {
			s.Until = n + c.timeoutUS // the rule trips: the action applies for the duration
		}
		if c.countBlocked {
			s.Curr += cost
		}
		if cost > limit {
			d.RetryAfter = Forever
			break
		}
		wait := int64(0) // until the rate lets the same request through
		if c.room(s.SlidingCounterState, elapsed) < cost {
			wait = ahead + c.sc.retryAfter(s.SlidingCounterState, elapsed, cost)
		}
		d.RetryAfter = jitter(max(wait, c.mitigationLeft(*s, n)), JitterFactor(key, c.sc.policy.RetryJitter))
	}
	if c.mitigationLeft(*s, n) == 0 {
		d.Remaining = c.remaining(s.SlidingCounterState, elapsed)
	}
	switch {
	case s.Curr > 0:
		d.ResetAfter = fromMicros(ahead + 2*p - elapsed)
	case s.Prev > 0:
		d.ResetAfter = fromMicros(ahead + p - elapsed)
	}
	d.ResetAfter = max(d.ResetAfter, fromMicros(c.mitigationLeft(*s, n)))
	return d
}

// room is the whole units the rate leaves below the limit, elapsed µs into s's
// window: the largest cost with prev × (period − elapsed) + (curr + cost) ×
// period ≤ limit × period (sliding-counter's test), or −1 when there is none. With blocked requests
// counted a count may grow past any bound, so the products are never formed:
// prev × (p − e) > r × p is prev > floor(r × p / (p − e)).
func (c *Cloudflare) room(s SlidingCounterState, elapsed int64) int64 {
	p, left := c.sc.periodUS, c.sc.policy.Limit-s.Curr
	if left < 0 {
		return -1
	}
	if s.Prev == 0 {
		return left
	}
	if s.Prev > floorDiv(left*p, p-elapsed) {
		return -1
	}
	// prev × (p − e) <= left × p, so the product is as small: r = left − ⌈it / p⌉
	return left - ceilDiv(s.Prev*(p-elapsed), p)
}

// remaining is the room the rate leaves, in units (a fraction), at least 0.
func (c *Cloudflare) remaining(s SlidingCounterState, elapsed int64) float64 {
	p, left := c.sc.periodUS, c.sc.policy.Limit-s.Curr
	if left <= 0 || (s.Prev > 0 && s.Prev > floorDiv(left*p, p-elapsed)) {
		return 0
	}
	return float64(left*p-s.Prev*(p-elapsed)) / float64(p)
}

// mitigationLeft is the µs from n until s's mitigation ends; 0 when none holds.
func (c *Cloudflare) mitigationLeft(s CloudflareState, n int64) int64 {
	if s.Until > n {
		return s.Until - n
	}
	return 0
}

// Allow counts the request against key's rule and blocks it when the rule acts.
func (c *Cloudflare) Allow(key string, now time.Duration, cost int64) Decision {
	n := toMicros(now)
	s, ok := c.state(key)
	if !ok {
		f := c.fresh(n)
		s = c.add(key, &f)
	}
	return c.decide(s, key, n, cost)
}

// Check is what Allow would decide, and changes nothing.
func (c *Cloudflare) Check(key string, now time.Duration, cost int64) Decision {
	n := toMicros(now)
	s := c.fresh(n)
	if st, ok := c.state(key); ok {
		s = *st
	}
	return c.decide(&s, key, n, cost)
}

// Level is the rate key's counter estimates at now.
func (c *Cloudflare) Level(key string, now time.Duration) float64 {
	s, ok := c.state(key)
	if !ok {
		return 0
	}
	r, elapsed := c.sc.roll(s.SlidingCounterState, toMicros(now))
	p := float64(c.sc.periodUS)
	return float64(r.Prev)*(p-float64(elapsed))/p + float64(r.Curr)
}

// Evict forgets keys whose two windows both lie in the past and whose
// mitigation, if any, has ended.
func (c *Cloudflare) Evict(now time.Duration) int {
	n := toMicros(now)
	w := floorDiv(n, c.sc.periodUS)
	return c.evict(func(s *CloudflareState) bool {
		return s.Until <= n && (w > s.Window+1 || (w == s.Window+1 && s.Curr == 0))
	})
}
