package algorithms

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

// A token bucket of 10, refilled at 10 a minute (a token every 6 s), its keys
// expiring 10 s after their last acceptance: a key spent and left alone for 10 s
// comes back full, where the bucket alone has refilled one token; an acceptance
// within the expiry extends it, a refusal does not.
func TestTTLResetsAKeyLeftAloneThatLong(t *testing.T) {
	p := Policy{Limit: 10, Period: time.Minute, Burst: 10}
	lim, err := WithTTL(NewTokenBucket(p, true, 0), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	steps := repeat(0, 11, 10)                            // spent at 0 s; expires at 10 s
	steps = append(steps, repeat(6*time.Second, 2, 1)...) // a token refilled: accepted; now expires at 16 s
	// 1.5 tokens at 15 s: a request of 5 is refused, and the expiry stays at 16 s
	steps = append(steps, step{at: 15 * time.Second, cost: 5, allowed: false, remaining: anyRemaining})
	steps = append(steps, repeat(16*time.Second, 11, 10)...) // expired: full again
	runSteps(t, lim, steps)

	plain := NewTokenBucket(p, true, 0)
	runSteps(t, plain, append(repeat(0, 10, 10), step{at: 10 * time.Second, allowed: true, remaining: anyRemaining},
		step{at: 10 * time.Second, allowed: false, remaining: anyRemaining}))
}

// A TTL of the bucket's refill from empty (burst / rate) changes no decision,
// whatever comes: the bucket is full again by the time its key expires.
func TestTTLOfTheRefillChangesNothing(t *testing.T) {
	p := Policy{Limit: 10, Period: time.Second, Burst: 20}
	lim, err := WithTTL(NewTokenBucket(p, true, 0), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	twin := NewTokenBucket(p, true, 0)
	at := time.Duration(0)
	for i := 0; i < 5000; i++ {
		at += time.Duration((i*7919)%1700) * time.Millisecond / 10 // gaps from 0 to 170 ms, some long runs idle
		if i%500 == 0 {
			at += 3 * time.Second
		}
		key := []string{"a", "b"}[i%2]
		got, want := lim.Allow(key, at, 1), twin.Allow(key, at, 1)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: Allow(%s, %v) = %+v with a TTL of the refill, %+v without", i, key, at, got, want)
		}
		if i%100 == 0 {
			lim.Evict(at)
			twin.Evict(at)
		}
	}
}

// Check and Level see an expired key as new, and so does Evict, which forgets it;
// a call before the expiry (a clock behind) finds it alive.
func TestTTLCheckLevelEvict(t *testing.T) {
	p := Policy{Limit: 1, Period: time.Minute, Burst: 5}
	lim, err := WithTTL(NewTokenBucket(p, true, 0), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		lim.Allow("k", 0, 1)
	}
	if got := lim.Level("k", 999*time.Millisecond); got >= 1 {
		t.Errorf("Level(k, 999ms) = %g, want the spent bucket (under 1)", got)
	}
	if d := lim.(Checker).Check("k", 500*time.Millisecond, 1); d.Allowed {
		t.Errorf("Check(k, 500ms) allowed a spent bucket before its expiry")
	}
	if d := lim.(Checker).Check("k", time.Second, 5); !d.Allowed {
		t.Errorf("Check(k, 1s, cost 5) refused: the key expired at 1 s and is a full bucket")
	}
	if got := lim.Level("k", time.Second); got != 5 {
		t.Errorf("Level(k, 1s) = %g, want 5 (expired: full)", got)
	}
	lim.Allow("j", 0, 1)
	if n := lim.Evict(2 * time.Second); n != 1 || lim.Keys() != 0 {
		t.Errorf("Evict(2s) forgot %d keys, %d left; want the expired j forgotten, none left", n, lim.Keys())
	}
}

// Forget and ForgetAll drop state: a spent bucket is full again, a window empty.
func TestForget(t *testing.T) {
	p := Policy{Limit: 2, Period: time.Second, Burst: 2}
	for _, lim := range []Limiter{NewTokenBucket(p, true, 0), NewFixedWindow(p, false, 0), NewSlidingLog(p), NewGCRA(p),
		NewSpring(p), NewTraefik(p), NewKong(p, Options{KongWindows: KongWindows{KongMinute: 10}})} {
		runSteps(t, lim, []step{{at: 0, allowed: true, remaining: anyRemaining}, {at: 0, allowed: true, remaining: anyRemaining},
			{at: 0, allowed: false, remaining: anyRemaining}, {key: "other", at: 0, allowed: true, remaining: anyRemaining}})
		f := lim.(Forgetter)
		if !f.Forget("k") || f.Forget("k") {
			t.Errorf("%s: Forget(k) twice did not say it had state once", lim.Algorithm())
		}
		runSteps(t, lim, []step{{at: 0, allowed: true, remaining: anyRemaining}})
		if n := f.ForgetAll(); n != 2 || lim.Keys() != 0 {
			t.Errorf("%s: ForgetAll() = %d with %d keys left, want 2 and none", lim.Algorithm(), n, lim.Keys())
		}
		if b := lim.StateBytes(); b != 0 && slices.Contains([]Name{SpringName, TraefikName, KongName}, lim.Algorithm()) {
			t.Errorf("%s: %d bytes of state after ForgetAll, want none", lim.Algorithm(), b)
		}
		runSteps(t, lim, []step{{key: "other", at: 0, allowed: true, remaining: anyRemaining}, {key: "other", at: 0, allowed: true, remaining: anyRemaining}})
	}
}

// A TTL must be a positive whole number of microseconds, at most MaxTTL; a
// limiter without state is returned as it is.
func TestTTLBounds(t *testing.T) {
	p := Policy{Limit: 1, Period: time.Second}
	for _, ttl := range []time.Duration{0, -time.Second, MaxTTL + time.Microsecond, 1500 * time.Nanosecond} {
		if _, err := WithTTL(NewTokenBucket(p, true, 0), ttl); err == nil {
			t.Errorf("WithTTL(%v) accepted", ttl)
		}
	}
	u := NewUnlimited(p)
	if lim, err := WithTTL(u, time.Second); err != nil || lim != Limiter(u) {
		t.Errorf("WithTTL(none) = %v, %v; want the limiter itself", lim, err)
	}
}
