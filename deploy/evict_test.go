package deploy

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// Evicting changes no decision: a deployment evicted every 200 ms decides as
// the same one never evicted, over random requests to random instances and
// keys, and holds less (local, share, central without a replica: their idle
// buckets go); once every bucket is full again it holds nothing.
func TestEvictChangesNoDecision(t *testing.T) {
	for _, proto := range []Protocol{Local, Share, Central} {
		t.Run(proto.String(), func(t *testing.T) {
			cfg := Config{Protocol: proto, Instances: 3, Latency: time.Millisecond, New: tokenBucket(5, time.Second, 5)}
			evicted, kept := mustNew(t, cfg), mustNew(t, cfg)
			r := rand.New(rand.NewPCG(5, uint64(proto)))
			now, next := time.Duration(0), 200*time.Millisecond
			less := false
			for i := range 20_000 {
				now += time.Duration(r.IntN(2000)) * time.Microsecond
				if now >= next {
					evicted.Evict(now)
					next += 200 * time.Millisecond
					less = less || evicted.State().Keys < kept.State().Keys
				}
				inst, key := r.IntN(3), fmt.Sprintf("k%d", r.IntN(200))
				got, gotWait := evicted.Decide(inst, key, now, 1)
				want, wantWait := kept.Decide(inst, key, now, 1)
				if got.Allowed != want.Allowed || got.Remaining != want.Remaining || got.RetryAfter != want.RetryAfter || gotWait != wantWait {
					t.Fatalf("request %d (instance %d, %s at %s): evicted decides %+v after %s, kept %+v after %s", i, inst, key, now, got, gotWait, want, wantWait)
				}
			}
			if !less {
				t.Errorf("eviction never held fewer keys than none (%d held)", kept.State().Keys)
			}
			evicted.Evict(now + time.Minute)
			if s := evicted.State(); s != (State{}) {
				t.Errorf("a minute after the last request, every bucket full: %+v still held", s)
			}
		})
	}
}
