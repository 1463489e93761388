package algorithms

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// Every algorithm, plain and behind a TTL, says it holds a key exactly when
// its state counts it: after random decisions, evictions and forgets, the
// keys it says it holds number Keys(), and a key never asked about is not
// held.
func TestHoldsAgreesWithKeys(t *testing.T) {
	for _, name := range Names() {
		p := Policy{Limit: 5, Period: time.Second, Burst: 5}
		if _, err := New(name, p, Options{}); err != nil {
			p.Period = time.Minute // Cloudflare's periods are its plans'
		}
		for _, ttl := range []time.Duration{0, 3 * p.Period} {
			lim, err := New(name, p, Options{})
			if err == nil && ttl > 0 {
				lim, err = WithTTL(lim, ttl)
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			h, ok := lim.(Holder)
			if !ok {
				t.Fatalf("%s (ttl %s): not a Holder", name, ttl)
			}
			keys := make([]string, 50)
			for i := range keys {
				keys[i] = fmt.Sprintf("k%d", i)
			}
			r := rand.New(rand.NewPCG(3, uint64(len(name))))
			now, held := time.Duration(0), 0
			for step := range 5_000 {
				now += time.Duration(r.IntN(400)) * p.Period / 1000
				key := keys[r.IntN(len(keys))]
				switch r.IntN(100) {
				case 0:
					lim.Evict(now)
				case 1:
					if f, ok := lim.(Forgetter); ok {
						f.Forget(key)
					}
				default:
					lim.Allow(key, now, 1)
				}
				if step%97 != 0 {
					continue
				}
				n := 0
				for _, k := range keys {
					if h.Holds(k) {
						n++
					}
				}
				if n != lim.Keys() {
					t.Fatalf("%s (ttl %s) step %d: holds %d keys, Keys() says %d", name, ttl, step, n, lim.Keys())
				}
				held = max(held, n)
				if h.Holds("never-asked") {
					t.Fatalf("%s (ttl %s): holds a key never asked about", name, ttl)
				}
			}
			if held == 0 && name != UnlimitedName {
				t.Errorf("%s (ttl %s): never held a key: the check compared nothing", name, ttl)
			}
		}
	}
}
