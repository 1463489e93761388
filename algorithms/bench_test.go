package algorithms

import (
	"fmt"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// BenchmarkDecide measures one decision per op for every algorithm on two key
// shapes: one hot key, and 10,000 keys in turn (state for all of them live). Time
// advances 100 µs per decision, so buckets refill and windows turn over as they
// would under load. The peer, "x/time/rate AllowN", is golang.org/x/time/rate
// called directly, one rate.Limiter per key in a map, in the same run; the
// "x-time-rate" lane is the same library behind the Limiter interface (it also
// reads the tokens left, for the decision's Remaining).
func BenchmarkDecide(b *testing.B) {
	p := Policy{Limit: 1000, Period: time.Second, Burst: 100}
	shapes := []struct {
		name string
		keys int
	}{{"hot-key", 1}, {"10k-keys", 10_000}}
	for _, name := range append(nameStrings(Names()), "x/time/rate AllowN") {
		for _, shape := range shapes {
			keys := make([]string, shape.keys)
			for i := range keys {
				keys[i] = fmt.Sprintf("user-%d", i)
			}
			b.Run(name+"/"+shape.name, func(b *testing.B) {
				decide := newDecider(name, p)
				for i, key := range keys { // create every key's state first
					decide(key, time.Duration(i))
				}
				b.ReportAllocs()
				b.ResetTimer()
				now := time.Second
				for i := 0; i < b.N; i++ {
					now += 100 * time.Microsecond
					decide(keys[i%len(keys)], now)
				}
			})
		}
	}
}

// newDecider returns a function making one decision with the named algorithm.
func newDecider(name string, p Policy) func(key string, now time.Duration) bool {
	if name == "x/time/rate AllowN" {
		limiters := map[string]*rate.Limiter{}
		limit := rate.Limit(p.Rate())
		return func(key string, now time.Duration) bool {
			lim, ok := limiters[key]
			if !ok {
				lim = rate.NewLimiter(limit, int(p.Burst))
				limiters[key] = lim
			}
			return lim.AllowN(xOrigin.Add(now), 1)
		}
	}
	o := Options{MonotonicTimestamp: true}
	lim, err := New(Name(name), admitted(Name(name), p, o), o) // a product lane's own period where it takes only some
	if err != nil {
		panic(err)
	}
	return func(key string, now time.Duration) bool { return lim.Allow(key, now, 1).Allowed }
}
