package algorithms

import "time"

// Checker is a limiter that can say what it would decide without deciding: Check
// returns exactly the Decision Allow(key, now, cost) would return at that moment,
// and changes no state (not even a refill's timestamp or an expired entry). Every
// limiter in this package is one. A check followed later by Allow is two steps,
// not one: another request can come between them.
type Checker interface {
	Check(key string, now time.Duration, cost int64) Decision
}

var (
	_ Checker = (*FixedWindow)(nil)
	_ Checker = (*SlidingLog)(nil)
	_ Checker = (*SlidingCounter)(nil)
	_ Checker = (*LeakyBucket)(nil)
	_ Checker = (*TokenBucket)(nil)
	_ Checker = (*GCRA)(nil)
	_ Checker = (*XTimeRate)(nil)
	_ Checker = (*Guava)(nil)
	_ Checker = (*EnvoyLocal)(nil)
	_ Checker = (*Nginx)(nil)
	_ Checker = (*EnvoyGlobal)(nil)
	_ Checker = (*Cloudflare)(nil)
	_ Checker = (*APIGateway)(nil)
	_ Checker = (*Spring)(nil)
	_ Checker = (*Traefik)(nil)
	_ Checker = (*Kong)(nil)
	_ Checker = (*Unlimited)(nil)
	_ Checker = (*HAProxy)(nil)
)

// Room is how many units the limiter that made d for a request of cost had room
// for at that moment: what was left after it took cost when allowed, plus cost;
// what was left when denied. Tokens are fractional, so room is too; a balance in
// debt (reservations) counts as none.
func Room(d Decision, cost int64) float64 {
	room := d.Remaining
	if d.Allowed {
		room += float64(cost)
	}
	return max(0, room)
}
