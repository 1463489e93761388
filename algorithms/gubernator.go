package algorithms

import (
	"math"
	"time"
)

// GubernatorName is Gubernator's token bucket's name in scenario files and on
// the command line.
const GubernatorName Name = "gubernator"

// Gubernator is one Gubernator peer's cache of TOKEN_BUCKET rate limits,
// exact to gubernator-io/gubernator v2.13.0 (commit a7295734, algorithms.go:
// tokenBucket, tokenBucketNewItem; cache.go: IsExpired). Despite its name it
// is a window of Limit hits that opens at a key's first request and lasts
// Period: an item made at CreatedAt (the request's time, in ms) expires at
// CreatedAt + Period, and the first request after that (the item is gone once
// ExpireAt < now) opens a new one, full. Nothing refills in between.
//
// A request of Hits (its cost) against an item:
//
//   - new item: Remaining = Limit − Hits, UNDER_LIMIT; Hits > Limit: OVER_LIMIT
//     and Remaining stays Limit;
//   - Remaining = 0: OVER_LIMIT, and the item's Status becomes OVER_LIMIT for
//     the rest of its window (it is what a Hits = 0 read and a GLOBAL broadcast
//     report);
//   - Remaining = Hits: Remaining = 0, the item's Status answered;
//   - Hits > Remaining: OVER_LIMIT, nothing taken (with DRAIN_OVER_LIMIT,
//     Remaining = 0);
//   - else Remaining −= Hits, the item's Status answered.
//
// A request is allowed when the answer is UNDER_LIMIT. Time is ms: a request's
// CreatedAt is its now truncated to whole ms. RetryAfter is until the item has
// expired (1 ms after ExpireAt), Forever for more hits than Limit; ResetAfter
// until ExpireAt.
//
// Not modelled: RESET_REMAINING, DURATION_IS_GREGORIAN, a Limit or Duration
// changed between requests, negative hits, the LRU's size (50,000 items by
// default), the leaky bucket. Time going backwards: a request is judged at the
// latest ms seen (a peer's clock only moves on).
type Gubernator struct {
	policy   Policy
	periodMS int64
	clock    int64 // the latest ms seen
	keyed[GubernatorItem]
}

// GubernatorItem is one key's cache item: TokenBucketItem and its CacheItem's
// ExpireAt, in ms.
type GubernatorItem struct {
	Over      bool // Status: OVER_LIMIT
	Remaining int64
	CreatedAt int64
	ExpireAt  int64
}

// gubernatorItemBytes is a TokenBucketItem's numbers (Status, Limit, Duration,
// Remaining, CreatedAt) and its ExpireAt.
const gubernatorItemBytes = 6 * 8

// NewGubernator returns a Gubernator peer's cache enforcing p (Limit hits per
// Period, its Duration).
func NewGubernator(p Policy) *Gubernator {
	p = p.WithDefaults()
	return &Gubernator{policy: p, periodMS: max(1, ceilMS(p.Period)), clock: math.MinInt64, keyed: newKeyed[GubernatorItem]()}
}

func (g *Gubernator) Algorithm() Name   { return GubernatorName }
func (g *Gubernator) Policy() Policy    { return g.policy }
func (g *Gubernator) StateBytes() int64 { return g.keyBytes + int64(g.Keys())*gubernatorItemBytes }

// PeriodMS is the Duration in ms.
func (g *Gubernator) PeriodMS() int64 { return g.periodMS }

// MS is now as the peer reads it: whole ms, never before the latest seen.
func (g *Gubernator) MS(now time.Duration) int64 {
	g.clock = max(g.clock, floorDiv(toMicros(now), 1000))
	return g.clock
}

// Item is key's item as the cache holds it at ms, false when it has none or it
// has expired (ExpireAt < ms).
func (g *Gubernator) Item(key string, ms int64) (GubernatorItem, bool) {
	it, ok := g.state(key)
	if !ok || it.ExpireAt < ms {
		return GubernatorItem{}, false
	}
	return *it, true
}

// Put makes it key's item (a GLOBAL broadcast received, UpdatePeerGlobals).
func (g *Gubernator) Put(key string, it GubernatorItem) {
	if s, ok := g.state(key); ok {
		*s = it
		return
	}
	g.add(key, &it)
}

// Apply is tokenBucket on key's item for a request of hits made at createdAt
// (ms), the cache read at ms (an item expired then is gone), with
// DRAIN_OVER_LIMIT when drain: whether it is UNDER_LIMIT, and its Remaining
// and ResetTime. hits = 0 reads the status and changes nothing but a new item.
func (g *Gubernator) Apply(key string, ms, createdAt, hits int64, drain bool) (under bool, remaining, resetAt int64) {
	limit := g.policy.Limit
	it, ok := g.state(key)
	if !ok || it.ExpireAt < ms {
		n := GubernatorItem{Remaining: limit - hits, CreatedAt: createdAt, ExpireAt: createdAt + g.periodMS}
		under = true
		if hits > limit {
			under, n.Remaining = false, limit
		}
		if ok {
			*it = n
		} else {
			g.add(key, &n)
		}
		return under, n.Remaining, n.ExpireAt
	}
	under, remaining, resetAt = !it.Over, it.Remaining, it.ExpireAt
	switch {
	case hits == 0:
	case it.Remaining == 0 && hits > 0:
		it.Over, under = true, false
	case it.Remaining == hits:
		it.Remaining, remaining = 0, 0
	case hits > it.Remaining:
		under = false
		if drain {
			it.Remaining, remaining = 0, 0
		}
	default:
		it.Remaining -= hits
		remaining = it.Remaining
	}
	return under, remaining, resetAt
}

// Allow decides a request of cost hits at now, as a peer that owns the key
// does (no DRAIN_OVER_LIMIT).
func (g *Gubernator) Allow(key string, now time.Duration, cost int64) Decision {
	ms := g.MS(now)
	under, remaining, reset := g.Apply(key, ms, ms, cost, false)
	return g.costly(g.Answer(now, under, remaining, reset), cost)
}

// costly is d for a request of cost: one of more hits than Limit is refused in
// every window, Forever.
func (g *Gubernator) costly(d Decision, cost int64) Decision {
	if !d.Allowed && cost > g.policy.Limit {
		d.RetryAfter = Forever
	}
	return d
}

// Check is what Allow would decide, and changes nothing.
func (g *Gubernator) Check(key string, now time.Duration, cost int64) Decision {
	ms := max(g.clock, floorDiv(toMicros(now), 1000))
	it, ok := g.state(key)
	var keep GubernatorItem
	if ok {
		keep = *it
	}
	under, remaining, reset := g.Apply(key, ms, ms, cost, false)
	if ok {
		*it = keep
	} else {
		g.Forget(key)
	}
	return g.costly(g.Answer(now, under, remaining, reset), cost)
}

// Answer is the Decision of an answer (UNDER_LIMIT or not, Remaining,
// ResetTime) given at now.
func (g *Gubernator) Answer(now time.Duration, under bool, remaining, resetAt int64) Decision {
	d := Decision{Allowed: under, Remaining: float64(remaining), Limit: g.policy.Limit}
	until := time.Duration(resetAt)*time.Millisecond - now
	d.ResetAfter = max(0, until)
	if !under {
		d.RetryAfter = max(0, until+time.Millisecond) // the item is gone once ExpireAt < now
	}
	return d
}

// Level is the hits key's window has taken at now, Limit − Remaining (0 for
// a key without an item).
func (g *Gubernator) Level(key string, now time.Duration) float64 {
	it, ok := g.Item(key, floorDiv(toMicros(now), 1000))
	if !ok {
		return 0
	}
	return float64(g.policy.Limit - it.Remaining)
}

// Evict forgets the items expired at now: a new request opens a new window
// either way.
func (g *Gubernator) Evict(now time.Duration) int {
	ms := floorDiv(toMicros(now), 1000)
	return g.evict(func(it *GubernatorItem) bool { return it.ExpireAt < ms })
}
