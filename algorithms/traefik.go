package algorithms

import (
	"container/heap"
	"fmt"
	"math"
	"net/http"
	"time"
	"unsafe"

	"golang.org/x/time/rate"
)

// TraefikName is Traefik's rateLimit middleware as a lane, in scenario files and
// on the command line.
const TraefikName Name = "traefik"

// traefikMaxSources is the most buckets the middleware keeps (rate_limiter.go:
// maxSources); a new source past it takes the place of the one closest to
// expiring.
const traefikMaxSources = 65536

// traefikStatus is ServeHTTP's answer: the request forwarded at once, forwarded
// after sleeping its delay, or serveDelayError's 429 with the body
// http.StatusText(429).
func traefikStatus(d Decision, _ Options) (int, string) {
	switch {
	case !d.Allowed:
		return http.StatusTooManyRequests, http.StatusText(http.StatusTooManyRequests)
	case d.Delay > 0:
		return http.StatusOK, "delayed"
	}
	return http.StatusOK, "forwarded"
}

// checkTraefikPolicy refuses a limit whose average × 1s overflows Traefik's int64
// (New: config.Average*int64(time.Second)).
func checkTraefikPolicy(p Policy, _ Options) error {
	if p.Limit > math.MaxInt64/int64(time.Second) {
		return fmt.Errorf("average %d overflows Traefik's average × 1s (an int64 of nanoseconds); the largest average is %d", p.Limit, math.MaxInt64/int64(time.Second))
	}
	return nil
}

// TraefikConfig is what Traefik's New derives from average (Limit), period and
// burst: the rate in requests a second, the longest delay it waits out rather
// than refuse, and how long an unused bucket is kept, in whole seconds.
type TraefikConfig struct {
	Rate     rate.Limit
	MaxDelay time.Duration
	TTL      int64
}

// TraefikConfigOf is New's arithmetic: rate = average × 1s / period (a float64);
// maxDelay = 1s / (2 × int(rate)) for a rate of 1 or more, else 500 ms; ttl = 2 s
// for a rate of 1 or more, else 1 + int(1 / rate) s.
func TraefikConfigOf(p Policy) TraefikConfig {
	p = p.WithDefaults()
	rtl := float64(p.Limit*int64(time.Second)) / float64(p.Period)
	c := TraefikConfig{Rate: rate.Limit(rtl), MaxDelay: 500 * time.Millisecond, TTL: 1}
	if rtl >= 1 {
		c.MaxDelay = time.Second / (time.Duration(rtl) * 2)
		c.TTL++
	} else {
		c.TTL += int64(1 / rtl)
	}
	return c
}

// Traefik is Traefik's rateLimit middleware in memory (traefik/traefik at
// fd5a576d, v3.7: pkg/middlewares/ratelimiter/rate_limiter.go New, ServeHTTP,
// serveDelayError; in_memory_limiter.go Allow; ttlmap/ttlmap.go Get, Set,
// freeSpace), one golang.org/x/time/rate Limiter per source, run here as
// Traefik runs it: the library itself (v0.16.0; Traefik's v0.15.0 has the same
// rate.go) on the virtual clock, HeaderOrigin + now. Average is Limit, period
// Period, burst Burst (TraefikConfigOf).
//
// The model. A request takes one token whatever its cost (Traefik logs "ignoring
// token bucket amount > 1" and reserves 1). It reserves it: tokens = min(burst,
// tokens + rate × elapsed) − 1, possibly negative, and the wait until it is
// back to 0. A wait up to maxDelay is served after that wait (a Delay: the third
// outcome, charged at admission); a longer one is refused with 429 and the
// reservation cancelled (CancelAt), which gives the token back but keeps the
// time's credit: the bucket is as if the request had not come, but for its
// refill being counted up to now. Retry-After is the wait rounded up to the
// second, X-Retry-In the wait itself; a request maxDelay sooner is already
// served (with a delay), so RetryAfter is the product's word, not the first
// instant that accepts.
//
// Buckets expire. Every request, refused or not, sets its source's expiry to
// its time plus ttl in whole Unix seconds (ttlmap stores them so); a bucket
// found expired (expiry ≤ the request's Unix second) is dropped and a new, full
// one made. So an idle spell of more than ttl − 1 and at most ttl seconds may
// refill the bucket to the burst, faster than the rate when burst > rate ×
// (ttl − 1). The run's origin stands for HeaderOrigin, a whole Unix second,
// so seconds counted from it are Unix seconds. At most 65,536 sources are
// kept: a new one past that takes the place of the one closest to expiring
// (a heap, ties as container/heap leaves them, as Traefik's).
//
// Time going backwards: the library takes an earlier time as it comes (no
// refill, and it stores it); the expiry is set from it, earlier too.
// Eviction forgets nothing: the map is bounded and drops expired buckets
// only when a request finds them (Get) or room is needed, and dropping one
// sooner would change which bucket room is made from. The Redis mode (v3.4,
// Lua on the gateways' own clocks) is TraefikRedis, a lane of its own.
type Traefik struct {
	policy Policy
	cfg    TraefikConfig
	burst  int
	m      traefikMap
}

// traefikEntry is one source's bucket in the map: its limiter, its expiry in
// whole seconds from the origin, its place in the expiry heap.
type traefikEntry struct {
	key    string
	lim    *rate.Limiter
	expiry int64
	index  int
}

// traefikMap is ttlmap.Map: entries by source and a min-heap of their expiries.
type traefikMap struct {
	items    map[string]*traefikEntry
	expiries traefikHeap
	keyBytes int64
}

type traefikHeap []*traefikEntry

func (h traefikHeap) Len() int           { return len(h) }
func (h traefikHeap) Less(i, j int) bool { return h[i].expiry < h[j].expiry }
func (h traefikHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *traefikHeap) Push(x any) {
	e := x.(*traefikEntry)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *traefikHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	e.index = -1
	*h = old[:len(old)-1]
	return e
}

// get is ttlmap.Get at second sec: the live entry, an expired one removed.
func (m *traefikMap) get(key string, sec int64) (*traefikEntry, bool) {
	e, ok := m.items[key]
	if !ok {
		return nil, false
	}
	if e.expiry <= sec {
		heap.Remove(&m.expiries, e.index)
		m.delete(e)
		return nil, false
	}
	return e, true
}

// set is ttlmap.Set: the entry's new expiry, or a new entry, room made first
// by dropping the one closest to expiring.
func (m *traefikMap) set(key string, lim *rate.Limiter, expiry int64) {
	if e, ok := m.items[key]; ok {
		e.lim, e.expiry = lim, expiry
		heap.Fix(&m.expiries, e.index)
		return
	}
	if len(m.items) >= traefikMaxSources {
		m.delete(heap.Pop(&m.expiries).(*traefikEntry))
	}
	e := &traefikEntry{key: key, lim: lim, expiry: expiry}
	m.items[key] = e
	m.keyBytes += int64(len(key))
	heap.Push(&m.expiries, e)
}

func (m *traefikMap) delete(e *traefikEntry) {
	delete(m.items, e.key)
	m.keyBytes -= int64(len(e.key))
}

// traefikEntryBytes is what an entry holds beyond its key: a rate.Limiter, an
// expiry and a heap index.
const traefikEntryBytes = int64(unsafe.Sizeof(rate.Limiter{})) + 16

// NewTraefik returns Traefik's rateLimit middleware enforcing p.
func NewTraefik(p Policy) *Traefik {
	p = p.WithDefaults()
	return &Traefik{policy: p, cfg: TraefikConfigOf(p), burst: int(p.Burst), m: traefikMap{items: map[string]*traefikEntry{}}}
}

func (tr *Traefik) Algorithm() Name   { return TraefikName }
func (tr *Traefik) Policy() Policy    { return tr.policy }
func (tr *Traefik) Keys() int         { return len(tr.m.items) }
func (tr *Traefik) StateBytes() int64 { return tr.m.keyBytes + int64(tr.Keys())*traefikEntryBytes }

// Config is what Traefik derives from the policy.
func (tr *Traefik) Config() TraefikConfig { return tr.cfg }

// at is n µs as the time Traefik's clock reads, and its whole second from the
// origin.
func traefikAt(n int64) (time.Time, int64) {
	return HeaderOrigin.Add(fromMicros(n)), floorDiv(n, int64(time.Second/Resolution))
}

// Allow is in_memory_limiter.go's Allow and ServeHTTP's verdict on it.
func (tr *Traefik) Allow(key string, now time.Duration, _ int64) Decision {
	n := toMicros(now)
	t, sec := traefikAt(n)
	var lim *rate.Limiter
	if e, ok := tr.m.get(key, sec); ok {
		lim = e.lim
	} else {
		lim = rate.NewLimiter(tr.cfg.Rate, tr.burst)
	}
	tr.m.set(key, lim, sec+tr.cfg.TTL)
	r := lim.ReserveN(t, 1) // OK: 1 <= burst
	delay := r.DelayFrom(t)
	if delay > tr.cfg.MaxDelay {
		r.CancelAt(t)
	}
	return tr.decision(key, delay, lim.TokensAt(t))
}

// Check is what Allow would decide, worked out as reserveN and CancelAt do it,
// and changes nothing.
func (tr *Traefik) Check(key string, now time.Duration, _ int64) Decision {
	n := toMicros(now)
	t, sec := traefikAt(n)
	tokens := float64(tr.burst)
	if e, ok := tr.m.items[key]; ok && e.expiry > sec {
		tokens = e.lim.TokensAt(t)
	}
	tokens-- // reserveN: tokens -= n
	var delay time.Duration
	if tokens < 0 {
		delay = traefikWait(-tokens, tr.cfg.Rate)
	}
	if delay > tr.cfg.MaxDelay {
		tokens = math.Min(float64(tr.burst), tokens+1) // CancelAt: advance (nothing) + the token
	}
	return tr.decision(key, delay, tokens)
}

// traefikWait is rate's durationFromTokens: the wait for tokens, truncated to
// the nanosecond.
func traefikWait(tokens float64, limit rate.Limit) time.Duration {
	d := tokens / float64(limit) * float64(time.Second)
	if d > float64(math.MaxInt64) {
		return rate.InfDuration
	}
	return time.Duration(d)
}

// traefikVerdict is ServeHTTP's verdict, in memory and in the Redis mode, on
// a request of key that would wait delay, the bucket holding tokens after it
// (or after its cancellation): served after delay up to maxDelay, else refused
// with that wait as its retry-after (and key's jitter). The caller sets
// ResetAfter, each mode with its own arithmetic.
func traefikVerdict(p Policy, maxDelay time.Duration, key string, delay time.Duration, tokens float64) Decision {
	d := Decision{Limit: p.Burst, Remaining: tokens}
	if delay > maxDelay {
		d.RetryAfter = delay
		if f := JitterFactor(key, p.RetryJitter); f > 0 {
			d.RetryAfter = jitter(ceilDiv(int64(delay), int64(Resolution)), f)
		}
	} else {
		d.Allowed, d.Delay = true, delay
	}
	return d
}

// decision is ServeHTTP's verdict on a reservation that waits delay, the bucket
// holding tokens after it (or after its cancellation).
func (tr *Traefik) decision(key string, delay time.Duration, tokens float64) Decision {
	d := traefikVerdict(tr.policy, tr.cfg.MaxDelay, key, delay, tokens)
	if missing := float64(tr.burst) - tokens; missing > 0 {
		d.ResetAfter = fromMicros(int64(math.Ceil(missing / float64(tr.cfg.Rate) * 1e6)))
	}
	return d
}

// Level is the tokens in key's bucket at now (negative while reserved ahead);
// a full bucket's for a source with none, or an expired one.
func (tr *Traefik) Level(key string, now time.Duration) float64 {
	t, sec := traefikAt(toMicros(now))
	if e, ok := tr.m.items[key]; ok && e.expiry > sec {
		return e.lim.TokensAt(t)
	}
	return float64(tr.burst)
}

// Evict forgets nothing (see Traefik): the map holds at most 65,536 buckets.
func (tr *Traefik) Evict(time.Duration) int { return 0 }

// Forget drops key's bucket, as a gateway restarted loses its map: the
// source's next request gets a new, full one. It says whether it had one.
func (tr *Traefik) Forget(key string) bool {
	e, ok := tr.m.items[key]
	if !ok {
		return false
	}
	heap.Remove(&tr.m.expiries, e.index)
	tr.m.delete(e)
	return true
}

// ForgetAll drops every bucket and returns how many there were.
func (tr *Traefik) ForgetAll() int {
	n := len(tr.m.items)
	tr.m = traefikMap{items: map[string]*traefikEntry{}}
	return n
}
