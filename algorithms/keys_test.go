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

// TestSharedKeysDecideAsApart replays random traffic through instances of a
// limiter sharing one key directory (ShareKeys) and through the same instances
// each with its own, with keys forgotten, evicted and flushed on the way and
// more keys than the directory's cache holds: every decision, count of keys
// and state size must be the same. A key one instance drops keeps its slot
// while another holds it; a slot no one holds goes to the next new key.
func TestSharedKeysDecideAsApart(t *testing.T) {
	const instances = 4
	compared := 0
	for _, name := range Names() {
		// a policy the algorithm takes (Cloudflare's periods are its plans')
		p := Policy{Limit: 5, Period: time.Second, Burst: 5}
		if _, err := New(name, p, Options{MonotonicTimestamp: true}); err != nil {
			p.Period = time.Minute
		}
		mk := func() Limiter {
			lim, err := New(name, p, Options{MonotonicTimestamp: true})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return lim
		}
		shared, apart := make([]Limiter, instances), make([]Limiter, instances)
		for i := range shared {
			shared[i], apart[i] = mk(), mk()
		}
		if !ShareKeys(shared[0], shared[1:]...) {
			if _, ok := shared[0].(keyDirUser); ok {
				t.Errorf("%s: ShareKeys refused fresh limiters", name)
			}
			continue // kept apart (a store of its own): nothing to compare
		}
		keys := make([]string, 300)
		for i := range keys {
			keys[i] = fmt.Sprintf("k%d", i)
		}
		r := rand.New(rand.NewPCG(7, uint64(len(name))))
		now := time.Duration(0)
		for step := 0; step < 40_000; step++ {
			now += time.Duration(r.IntN(3000)) * p.Period / 1000
			in := r.IntN(instances)
			key := keys[r.IntN(len(keys))]
			switch r.IntN(1000) {
			case 0:
				if shared[in].Evict(now) != apart[in].Evict(now) {
					t.Fatalf("%s step %d: instance %d evicted unlike apart", name, step, in)
				}
			case 1:
				if f, ok := shared[in].(Forgetter); ok && f.Forget(key) != apart[in].(Forgetter).Forget(key) {
					t.Fatalf("%s step %d: instance %d forgot %s unlike apart", name, step, in, key)
				}
			case 2:
				if f, ok := shared[in].(Forgetter); ok && f.ForgetAll() != apart[in].(Forgetter).ForgetAll() {
					t.Fatalf("%s step %d: instance %d flushed unlike apart", name, step, in)
				}
			}
			got, want := shared[in].Allow(key, now, 1), apart[in].Allow(strings.Clone(key), now, 1)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s step %d: instance %d Allow(%s, %v) = %+v sharing keys, %+v apart", name, step, in, key, now, got, want)
			}
			if shared[in].Keys() != apart[in].Keys() || shared[in].StateBytes() != apart[in].StateBytes() {
				t.Fatalf("%s step %d: instance %d holds %d keys (%d bytes) sharing, %d (%d) apart", name, step, in,
					shared[in].Keys(), shared[in].StateBytes(), apart[in].Keys(), apart[in].StateBytes())
			}
		}
		compared++
	}
	if compared < len(Names())-2 {
		t.Errorf("%d algorithms of %d compared sharing keys", compared, len(Names()))
	}
}

// TestShareKeysOnlyFresh: a limiter holding state keeps its own directory;
// the fresh ones given with it share.
func TestShareKeysOnlyFresh(t *testing.T) {
	p := Policy{Limit: 5, Period: time.Second, Burst: 5}
	a, busy, fresh := NewTokenBucket(p, true, 0), NewTokenBucket(p, true, 0), NewTokenBucket(p, true, 0)
	busy.Allow("k", 0, 1)
	if ShareKeys(a, busy, fresh) {
		t.Fatal("ShareKeys took a limiter holding state")
	}
	if busy.keyDir() == a.keyDir() || fresh.keyDir() != a.keyDir() {
		t.Fatal("want the busy limiter apart and the fresh one sharing")
	}
	if !ShareKeys(a, fresh, NewTokenBucket(p, true, 0)) {
		t.Fatal("ShareKeys refused fresh token buckets")
	}
}

// TestKeyDirectoryFollowsKeysHeld: a limiter's own directory takes a
// forgotten key's slot back, so that new keys every day do not grow it; a
// shared one keeps its keys, so that an instance dropped without forgetting
// (a deployment scaled in) leaves no slot counted as held.
func TestKeyDirectoryFollowsKeysHeld(t *testing.T) {
	p := Policy{Limit: 5, Period: time.Second, Burst: 5}
	own := NewTokenBucket(p, true, 0)
	for i := range 10_000 {
		key := fmt.Sprintf("client-%d", i)
		own.Allow(key, time.Duration(i)*time.Millisecond, 1)
		if i%2 == 1 {
			own.Forget(key)
			own.Forget(fmt.Sprintf("client-%d", i-1))
		}
	}
	if n := len(own.dir.names); own.Keys() != 0 || n > 2 {
		t.Errorf("after 10,000 keys each forgotten: %d keys held, %d slots; want 0 and at most 2", own.Keys(), n)
	}
	a, b := NewTokenBucket(p, true, 0), NewTokenBucket(p, true, 0)
	ShareKeys(a, b)
	a.Allow("k", 0, 1)
	b.Allow("k", 0, 1)
	a.Forget("k")
	if d := b.Allow("k", 0, 1); d.Remaining != 3 {
		t.Errorf("b's k after a forgot it: remaining %v, want 3 (b's own state)", d.Remaining)
	}
	if a.Keys() != 0 || b.Keys() != 1 || len(a.dir.names) != 1 {
		t.Errorf("a holds %d keys, b %d, the directory %d slots; want 0, 1, 1", a.Keys(), b.Keys(), len(a.dir.names))
	}
}
