package algorithms

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestRecentStatesForgetAcrossStrings: the cache of states by the key string's
// address must not outlive a forgetting made through another string of the
// same key.
func TestRecentStatesForgetAcrossStrings(t *testing.T) {
	p := Policy{Limit: 1, Period: time.Hour, Burst: 1}
	for _, forget := range []struct {
		name string
		do   func(l *TokenBucket, key string)
		at   time.Duration // when the key is asked again: before a refill, but for Evict
	}{
		{"Forget", func(l *TokenBucket, key string) { l.Forget(key) }, 2 * time.Second},
		{"ForgetAll", func(l *TokenBucket, _ string) { l.ForgetAll() }, 2 * time.Second},
		{"Evict", func(l *TokenBucket, _ string) { l.Evict(2 * time.Hour) }, 2 * time.Hour},
	} {
		l := NewTokenBucket(p, true, 0)
		a := strings.Clone("user-1")
		if d := l.Allow(a, 0, 1); !d.Allowed {
			t.Fatalf("%s: step 1: Allow(0) = false, want true (a full bucket)", forget.name)
		}
		if d := l.Allow(a, time.Second, 1); d.Allowed {
			t.Fatalf("%s: step 2: Allow(1s) = true, want false (the bucket is empty)", forget.name)
		}
		forget.do(l, strings.Clone("user-1"))
		if d := l.Allow(a, forget.at, 1); !d.Allowed {
			t.Errorf("%s: step 3: Allow(%v) after forgetting = false, want true (a new key's full bucket)", forget.name, forget.at)
		}
		if d := l.Allow(a, forget.at+time.Second, 1); d.Allowed {
			t.Errorf("%s: step 4: Allow(%v) = true, want false (the state found must be the new one)", forget.name, forget.at+time.Second)
		}
	}
}

// TestRecentStatesDecideAsTheMap replays random traffic over more keys than the
// cache holds, with keys forgotten and evicted on the way, through a limiter
// asked with the same strings every time (cache hits) and one asked with a
// fresh copy every time (never a hit): every decision must be the same.
func TestRecentStatesDecideAsTheMap(t *testing.T) {
	p := Policy{Limit: 5, Period: time.Second, Burst: 5}
	for _, name := range []Name{TokenBucketName, SlidingLogName, FixedWindowName, GCRAName} {
		for seed := uint64(1); seed <= 3; seed++ {
			cached, _ := New(name, p, Options{MonotonicTimestamp: true})
			fresh, _ := New(name, p, Options{MonotonicTimestamp: true})
			keys := make([]string, maxRecent+100)
			for i := range keys {
				keys[i] = fmt.Sprintf("k%d", i)
			}
			r := rand.New(rand.NewPCG(seed, 0))
			now := time.Duration(0)
			for step := 0; step < 200_000; step++ {
				now += time.Duration(r.IntN(200)) * time.Microsecond
				i := r.IntN(len(keys))
				if r.IntN(8) == 0 {
					i = r.IntN(8) // some hot keys
				}
				switch r.IntN(5000) {
				case 0:
					cached.Evict(now)
					fresh.Evict(now)
				case 1:
					f := r.IntN(8)
					cached.(Forgetter).Forget(strings.Clone(keys[f]))
					fresh.(Forgetter).Forget(strings.Clone(keys[f]))
				}
				got, want := cached.Allow(keys[i], now, 1), fresh.Allow(strings.Clone(keys[i]), now, 1)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s seed %d step %d: Allow(%s, %v) = %+v through the cache, %+v through the map", name, seed, step, keys[i], now, got, want)
				}
			}
		}
	}
}
