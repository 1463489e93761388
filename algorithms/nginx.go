package algorithms

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// NginxName is nginx's limit_req (ngx_http_limit_req_module) as a lane, in
// scenario files and on the command line.
const NginxName Name = "nginx"

// nginxOptions are the nginx lane's scenario keys: the parameters of its
// limit_req directive and the location's limit_req_dry_run and limit_req_status.
var nginxOptions = []Option{
	{Key: "nodelay", Doc: "limit_req's nodelay: the requests within the burst go at once; default false: every request of the excess waits excess ÷ rate",
		set: func(o Options) string { return setIf(o.Nodelay, "nodelay") }},
	{Key: "delay", Doc: "limit_req's delay=N (nginx 1.15.7+), in requests: an excess up to N goes at once, beyond it requests wait; default 0 (every excess request waits); at most nginx's burst, the policy's burst less one",
		set: func(o Options) string { return setIf(o.Delay != 0, "delay") }},
	{Key: "dry_run", Doc: "limit_req_dry_run on: every request passes at once and is charged as it would have been (delays charged, refusals not); the request CSV's product_status says what nginx logs",
		set: func(o Options) string { return setIf(o.DryRun, "dry_run") }},
	{Key: "deny_status", Doc: "the HTTP status of a refusal (limit_req_status, 400 to 599); default the product's (nginx: 503)",
		set: func(o Options) string { return setIf(o.DenyStatus != 0, "deny_status") }},
}

const (
	// nginxExpireMS is how long ngx_http_limit_req_expire leaves an idle node
	// alone: 60 s.
	nginxExpireMS = 60_000
	// nginxBehindMS is how far behind the stored time a lookup's clock may be
	// before nginx takes it as 1 ms after it (a clock set back) rather than 0.
	nginxBehindMS = 60_000
	// nginxDenyStatus is limit_req_status's default, 503 Service Unavailable.
	nginxDenyStatus = 503
	// nginxPassStatus is the status a passed request stands for: nginx hands it
	// on, and the application answers (the request CSV's outcome says how).
	nginxPassStatus = 200
)

// nginxRate is the policy as limit_req_zone's rate in milli-requests per second
// (ctx->rate = rate × 1000 / scale, an integer): a period of 1s is rate=Nr/s, 1m
// is rate=Nr/m. nginx writes no other period.
func nginxRate(p Policy) (int64, error) {
	switch p.Period {
	case time.Second:
		return p.Limit * 1000, nil
	case time.Minute:
		return p.Limit * 1000 / 60, nil
	}
	fix := `write period = "1s" (rate=Nr/s) or "1m" (rate=Nr/m)`
	for _, per := range []struct {
		d    time.Duration
		text string
	}{{time.Second, "1s"}, {time.Minute, "1m"}} {
		if p.Limit > math.MaxInt64/int64(per.d) {
			break
		}
		if n := p.Limit * int64(per.d); n%int64(p.Period) == 0 {
			fix = fmt.Sprintf("write limit = %d, period = %q: the same rate as nginx writes it", n/int64(p.Period), per.text)
			break
		}
	}
	return 0, fmt.Errorf("nginx's limit_req_zone takes a rate per second or per minute only (rate=Nr/s or rate=Nr/m), not %d per %s; %s", p.Limit, p.Period, fix)
}

// CheckNginxPolicy says whether nginx can enforce p with o: its period must be
// 1s or 1m (nginxRate), and delay=N at most nginx's burst (the policy's burst
// less one), or no request would ever wait. nginx itself takes a larger delay
// as nodelay; a lane says so instead. A delay error is an *OptionError.
func CheckNginxPolicy(p Policy, o Options) error {
	p = p.WithDefaults()
	if _, err := nginxRate(p); err != nil {
		return err
	}
	if burst := p.Burst - 1; o.Delay > burst {
		return &OptionError{"delay", fmt.Errorf("delay = %d is more than nginx's burst, %d (the policy's burst %d less the request served at once): no request would ever wait; write nodelay = true, or a delay up to %d, or raise the burst", o.Delay, burst, p.Burst, burst)}
	}
	return nil
}

// nginxStatus is what nginx answers and logs for d ($limit_req_status): a
// refusal is limit_req_status (deny_status, default 503) and REJECTED; a pass is
// handed on (200 here) as PASSED, DELAYED (it waited), or in dry run
// DELAYED_DRY_RUN or REJECTED_DRY_RUN.
func nginxStatus(d Decision, o Options) (int, string) {
	switch {
	case !d.Allowed:
		if o.DenyStatus != 0 {
			return o.DenyStatus, "REJECTED"
		}
		return nginxDenyStatus, "REJECTED"
	case d.Shadow == ShadowRefused:
		return nginxPassStatus, "REJECTED_DRY_RUN"
	case d.Shadow == ShadowDelayed:
		return nginxPassStatus, "DELAYED_DRY_RUN"
	case d.Delay > 0:
		return nginxPassStatus, "DELAYED"
	}
	return nginxPassStatus, "PASSED"
}

// Nginx is one limit_req zone of nginx (ngx_http_limit_req_module.c at nginx
// 3f6f7824, 1.31.4+, the same decision since 1.17.6 and the same file as 1.22.1:
// ngx_http_limit_req_lookup, _account, _handler, _expire, and the parsing of
// limit_req_zone and limit_req), one node per key, exact to its integers.
//
// The policy as nginx writes it: Limit per 1s is rate=Limit r/s, per 1m is
// rate=Limit r/m, held as rate_m = Limit × 1000 / 60 milli-requests per second
// (1r/m is 16: a request drains in 62.5 s, not 60); any other period is refused
// (CheckNginxPolicy). The policy's Burst, the most accepted at one instant, is
// nginx's burst=Burst−1: nginx counts the excess beyond the request being
// served. burst_m = (Burst − 1) × 1000, delay_m = delay × 1000.
//
// The clock is nginx's millisecond clock: now in whole milliseconds, rounded
// down. The state per key is excess (milli-requests) and last (ms). A request
// for a key with no node gets excess e = 0 and passes, storing e and last = now.
// Otherwise ms = now − last (< −60 s: 1, a clock set back; < 0: 0, another
// worker's later time), e = excess − ⌊rate_m × ms / 1000⌋ + 1000, and 0 if
// negative. When e > burst_m the request is refused and nothing is written (a
// refusal is not counted); else excess = e and, when ms ≠ 0, last = now. An
// accepted request waits (e − delay_m) × 1000 / rate_m ms (integer) when e >
// delay_m, never with nodelay: its Delay runs until the millisecond clock reads
// now + that, when nginx's timer fires. Several requests in one millisecond each
// add a whole 1000, so without a burst one key passes at most 1,000 requests a
// second, whatever the rate.
//
// Cost: nginx charges every request 1. A request of cost c is taken as c
// requests in the same millisecond, all or none: it passes when the c-th would
// (e + (c − 1) × 1000 ≤ burst_m), which is charged, and waits as the first
// would (its turn to start, as the leaky bucket's queue has it). A cost above
// the policy's Burst is never accepted (RetryAfter Forever).
//
// Dry run (limit_req_dry_run): every request passes at once. A request nginx
// would delay is charged as usual and its Decision has Shadow = ShadowDelayed
// (DELAYED_DRY_RUN); one it would refuse is not charged and has Shadow =
// ShadowRefused (REJECTED_DRY_RUN).
//
// Decision: Limit is the policy's Burst; Remaining the whole requests of room
// left, ⌊(burst_m − e) / 1000⌋ (when refused, the requests that would pass now,
// ⌊(burst_m − e₁) / 1000⌋ + 1 for a single request's e₁ ≤ burst_m, else 0:
// room for fewer than the cost); RetryAfter of a refusal the
// earliest microsecond (on the millisecond clock) at which the same request
// passes; ResetAfter the time until Level is 0. Level is the requests in
// nginx's bucket: the excess plus the one it is counted beyond, draining at the
// rate (excess + 1000 − drained, floored at 0, in requests), so the engine's
// level from a decision (Limit − Remaining) and Level agree, as the leaky
// bucket's do; the excess nginx logs is this less one.
//
// Nodes leave as nginx's own expiry removes them: each time a new key gets a
// node, the least recently looked-up nodes (refused lookups count) are deleted,
// at most two, while the oldest has been idle at least 60 s (|now − last|) and
// excess − ⌊rate_m × idle / 1000⌋ ≤ 0. That is observable: a deleted node
// answers as a new key (e = 0) where the node would have answered e up to 999
// (at 1r/m, idle 60 s: excess 0 − 960 + 1000 = 40, refused without a burst), so
// whether a key's request 60 to 62.5 s after the last passes depends on other
// keys arriving. Not modelled: a zone too small for its keys (nginx then
// deletes the oldest node at once), and one event-loop iteration's requests
// sharing a cached time (each request here reads its own millisecond). Evict
// forgets nothing: removing a node early would change which nodes nginx's
// expiry reaches next.
//
// Several limit_req on one request: NginxRequest (and a multi-limit lane with
// combine = "all-or-nothing", whose Set it is) decides as the handler does.
//
// No Redis port: nginx keeps limit_req state in each server's shared memory
// zone, never in Redis; the lane stays in memory under --redis. nginx sends no
// rate-limit headers (Info.NoHeaders).
type Nginx struct {
	policy  Policy
	rate    int64 // rate_m: milli-requests per second
	burst   int64 // burst_m
	delay   int64 // delay_m
	nodelay bool
	dryRun  bool
	keyed[NginxState]
	newest, oldest *NginxState // the zone's queue of nodes, by last lookup
}

// NginxState is one node of a zone: Excess in milli-requests and Last on
// nginx's millisecond clock. Boot says Last is nginx's 0, long before the run:
// the node an earlier limit of a request that a later one refused was given
// (ngx_http_limit_req_lookup's last = 0), which counts as drained.
type NginxState struct {
	Excess, Last int64
	Boot         bool
	key          string
	newer, older *NginxState
}

// nginxStateBytes is a node's numbers: excess and last.
const nginxStateBytes = 16

// NewNginx returns a limit_req zone enforcing p with o's nodelay, delay and
// dry_run. p and o must have passed CheckNginxPolicy and Options.Check.
func NewNginx(p Policy, o Options) *Nginx {
	p = p.WithDefaults()
	rate, _ := nginxRate(p)
	return &Nginx{policy: p, rate: rate, burst: (p.Burst - 1) * 1000, delay: o.Delay * 1000,
		nodelay: o.Nodelay, dryRun: o.DryRun, keyed: newKeyed[NginxState]()}
}

func (l *Nginx) Algorithm() Name   { return NginxName }
func (l *Nginx) Policy() Policy    { return l.policy }
func (l *Nginx) StateBytes() int64 { return l.keyBytes + int64(l.Keys())*nginxStateBytes }

// Evict forgets nothing (see Nginx): nginx's expiry, which Allow runs, is what
// removes nodes.
func (l *Nginx) Evict(time.Duration) int { return 0 }

// msOf is n µs on nginx's millisecond clock.
func msOf(n int64) int64 { return floorDiv(n, 1000) }

// drained is ⌊rate_m × ms / 1000⌋ for ms ≥ 0, saturating.
func (l *Nginx) drained(ms int64) int64 {
	hi, lo := bits.Mul64(uint64(l.rate), uint64(ms))
	if hi >= 1000 {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, 1000)
	return int64(min(q, math.MaxInt64))
}

// lookup is ngx_http_limit_req_lookup's e for node s at now (ms), before the
// burst check, and its ms (≠ 0: account stores now).
func (l *Nginx) lookup(s *NginxState, now int64) (e, ms int64) {
	if s.Boot {
		return 0, 1
	}
	ms = now - s.Last
	switch {
	case ms < -nginxBehindMS:
		ms = 1
	case ms < 0:
		ms = 0
	}
	if d := l.drained(ms); d < s.Excess+1000 {
		e = s.Excess - d + 1000
	}
	return e, ms
}

// excessFor is the e of a request of cost at now for key's node s (nil: none
// yet), and its ms: a new node's first request has e = 0.
func (l *Nginx) excessFor(s *NginxState, now, cost int64) (e, ms int64) {
	ms = 1
	if s != nil {
		e, ms = l.lookup(s, now)
	}
	return e + (cost-1)*1000, ms
}

// waitMS is account's delay for e, in ms.
func (l *Nginx) waitMS(e int64) int64 {
	if l.nodelay || e <= l.delay {
		return 0
	}
	return (e - l.delay) * 1000 / l.rate
}

// decide is what a request of cost for key at n µs gets, in dry run or not, and,
// when write, does what nginx does for it: a lookup moves the node to the
// queue's newest end; a new key's node is made (after expiring old ones); an
// accepted request is charged.
func (l *Nginx) decide(key string, n, cost int64, write, dryRun bool) Decision {
	now := msOf(n)
	s, ok := l.state(key)
	if !ok {
		s = nil
	} else if write {
		l.touch(s)
	}
	e, ms := l.excessFor(s, now, cost)
	first := e - (cost-1)*1000 // the e of the first of cost requests
	d := Decision{Limit: l.policy.Burst}
	if e > l.burst {
		if first <= l.burst { // room for fewer
			d.Remaining = float64((l.burst-first)/1000 + 1)
		}
		if s != nil {
			d.ResetAfter = l.resetAfter(s.Excess, s.Last, s.Boot, n)
		}
		if dryRun {
			d.Allowed, d.Shadow = true, ShadowRefused
			return d
		}
		d.RetryAfter = l.retryAfter(s, key, n, cost)
		return d
	}
	last, boot := now, false
	if s != nil && ms == 0 {
		last, boot = s.Last, s.Boot
	}
	if write {
		if s == nil {
			l.expire(now)
			s = l.allocate(key, now)
		}
		s.Excess, s.Last, s.Boot = e, last, boot
	}
	d.Allowed = true
	d.Remaining = float64((l.burst - e) / 1000)
	d.ResetAfter = l.resetAfter(e, last, boot, n)
	if wait := l.waitMS(first); wait > 0 {
		if dryRun {
			d.Shadow = ShadowDelayed
		} else {
			d.Delay = fromMicros((now+wait)*1000 - n)
		}
	}
	return d
}

// retryAfter is how long until a request of cost refused at n would pass,
// nothing else happening: the first millisecond at which enough has drained,
// from its first microsecond.
func (l *Nginx) retryAfter(s *NginxState, key string, n, cost int64) time.Duration {
	if s == nil || s.Boot || (cost-1)*1000 > l.burst {
		return Forever // a new or drained node refuses only a cost above the burst
	}
	need := s.Excess + cost*1000 - l.burst // milli-requests to drain; > 0
	ms := ceilDiv(need*1000, l.rate)
	return jitter((s.Last+ms)*1000-n, JitterFactor(key, l.policy.RetryJitter))
}

// resetAfter is how long from n until a node of excess and last has drained
// to Level 0 (excess + 1000 drained).
func (l *Nginx) resetAfter(excess, last int64, boot bool, n int64) time.Duration {
	if boot {
		return 0
	}
	ms := ceilDiv((excess+1000)*1000, l.rate)
	return fromMicros(max(0, (last+ms)*1000-n))
}

// Allow decides as nginx does for a location with this one limit_req.
func (l *Nginx) Allow(key string, now time.Duration, cost int64) Decision {
	return l.decide(key, toMicros(now), cost, true, l.dryRun)
}

// Check is what Allow would decide, and changes nothing (not even the queue).
func (l *Nginx) Check(key string, now time.Duration, cost int64) Decision {
	return l.decide(key, toMicros(now), cost, false, l.dryRun)
}

// Level is the requests in key's bucket at now (see Nginx).
func (l *Nginx) Level(key string, now time.Duration) float64 {
	s, ok := l.state(key)
	if !ok || s.Boot {
		return 0
	}
	_, ms := l.lookup(s, msOf(toMicros(now)))
	return float64(max(0, s.Excess+1000-l.drained(ms))) / 1000
}

// touch moves s to the newest end of the queue, as every lookup does.
func (l *Nginx) touch(s *NginxState) {
	if l.newest == s {
		return
	}
	l.unlink(s)
	l.push(s)
}

// push puts s at the newest end of the queue.
func (l *Nginx) push(s *NginxState) {
	s.older, s.newer = l.newest, nil
	if l.newest != nil {
		l.newest.newer = s
	}
	l.newest = s
	if l.oldest == nil {
		l.oldest = s
	}
}

// unlink takes s out of the queue.
func (l *Nginx) unlink(s *NginxState) {
	if s.newer != nil {
		s.newer.older = s.older
	} else {
		l.newest = s.older
	}
	if s.older != nil {
		s.older.newer = s.newer
	} else {
		l.oldest = s.newer
	}
	s.newer, s.older = nil, nil
}

// allocate makes key's node at now, the newest.
func (l *Nginx) allocate(key string, now int64) *NginxState {
	s := l.add(key, &NginxState{Last: now, key: key})
	l.push(s)
	return s
}

// expire is ngx_http_limit_req_expire(ctx, 1), run before a new node is made:
// it deletes the oldest node, then the next, while the oldest has been idle at
// least 60 s and has drained (excess − ⌊rate_m × idle / 1000⌋ ≤ 0; the idle
// time is |now − last|), two at most.
func (l *Nginx) expire(now int64) {
	for range 2 {
		s := l.oldest
		if s == nil {
			return
		}
		if !s.Boot {
			idle := now - s.Last
			if idle < 0 {
				idle = -idle
			}
			if idle < nginxExpireMS || s.Excess-l.drained(idle) > 0 {
				return
			}
		}
		l.unlink(s)
		l.keyed.Forget(s.key)
	}
}

// Forget deletes key's node, from the zone's queue too: a node forgotten but
// left in the queue would later be expired in place of the key's next one
// (forgetting a live node and leaving it queued).
func (l *Nginx) Forget(key string) bool {
	s, ok := l.state(key)
	if !ok {
		return false
	}
	l.unlink(s)
	return l.keyed.Forget(key)
}

// ForgetAll deletes every node and empties the zone's queue.
func (l *Nginx) ForgetAll() int {
	l.newest, l.oldest = nil, nil
	return l.keyed.ForgetAll()
}
