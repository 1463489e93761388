package algorithms

import (
	"fmt"
	"time"
)

// MaxTTL is the longest key expiry a limiter may be given.
const MaxTTL = 24 * time.Hour

// WithTTL returns lim with its keys expiring, as a store's keys do when the
// limiter sets their expiry (Redis PEXPIRE) each time it stores an acceptance:
// a key's state is dropped ttl after the last request it accepted (measured on
// the time the limiter is told, the now of its calls), and its next request
// finds it new — a full bucket, an empty window — however much it had spent.
// A refusal does not extend the expiry (a limiter may store nothing when it
// refuses).
//
// A TTL at least as long as the state takes to go idle by itself after an
// acceptance (a bucket's refill from empty, burst / rate; a window's period; a
// leaky bucket's drain) changes no decision: the key is idle again when it
// expires. A shorter one resets the limit early: the classic mistake of a TTL
// set to a window's length on a bucket that refills over an hour.
//
// Expiry is lazy and exact: a key is checked when a call (Allow, Check, Level)
// names it, and forgotten if its expiry is at or before the call's now; Evict
// forgets the keys expired by its now as well as the idle ones. Time going
// backwards (a call stamped before a later acceptance's) finds the key alive.
// ttl must be > 0 and at most MaxTTL; a limiter that keeps no state (the no-limit
// lane), or cannot forget, is returned as it is.
func WithTTL(lim Limiter, ttl time.Duration) (Limiter, error) {
	if ttl <= 0 || ttl > MaxTTL || ttl%Resolution != 0 {
		return nil, fmt.Errorf("ttl must be from %s to %s, a whole number of microseconds (got %s)", Resolution, MaxTTL, ttl)
	}
	f, ok := lim.(Forgetter)
	if !ok {
		return lim, nil
	}
	return &expiring{Limiter: lim, forget: f, ttl: ttl, until: map[string]time.Duration{}}, nil
}

// expiring is a limiter whose keys expire ttl after their last acceptance.
type expiring struct {
	Limiter
	forget Forgetter
	ttl    time.Duration
	until  map[string]time.Duration // key → when its state expires
}

// expire forgets key if its state expired by now.
func (e *expiring) expire(key string, now time.Duration) {
	if t, ok := e.until[key]; ok && now >= t {
		e.forget.Forget(key)
		delete(e.until, key)
	}
}

// Allow decides on key's state (new, if it expired by now); an acceptance sets
// the key to expire ttl from now.
func (e *expiring) Allow(key string, now time.Duration, cost int64) Decision {
	e.expire(key, now)
	d := e.Limiter.Allow(key, now, cost)
	if d.Allowed {
		e.until[key] = now + e.ttl
	}
	return d
}

// Check is what Allow would decide now, the key new if it expired.
func (e *expiring) Check(key string, now time.Duration, cost int64) Decision {
	e.expire(key, now)
	return e.Limiter.(Checker).Check(key, now, cost)
}

// Level is the key's level at now: a new key's if it expired.
func (e *expiring) Level(key string, now time.Duration) float64 {
	e.expire(key, now)
	return e.Limiter.Level(key, now)
}

// Evict forgets the keys expired by now, then those the limiter finds idle.
func (e *expiring) Evict(now time.Duration) int {
	n := 0
	for key, t := range e.until {
		if now >= t {
			if e.forget.Forget(key) {
				n++
			}
			delete(e.until, key)
		}
	}
	return n + e.Limiter.Evict(now)
}

// Forget drops key's state and its expiry.
func (e *expiring) Forget(key string) bool {
	delete(e.until, key)
	return e.forget.Forget(key)
}

// ForgetAll drops every key's state and expiry.
func (e *expiring) ForgetAll() int {
	clear(e.until)
	return e.forget.ForgetAll()
}

// SetMonotonic passes the timestamp fix's switch to the limiter, if it has one.
func (e *expiring) SetMonotonic(on bool) {
	if s, ok := e.Limiter.(interface{ SetMonotonic(bool) }); ok {
		s.SetMonotonic(on)
	}
}
