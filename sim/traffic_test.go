package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/algorithms"
)

// drain collects every arrival of a client's generator.
func drain(t *testing.T, c Client, seed uint64) []arrival {
	t.Helper()
	if c.Stop == 0 {
		c.Stop = 10 * time.Second
	}
	c.Keys = []int{0}
	gen, err := newArrivals(&c, newSource(seed, 0, &c))
	if err != nil {
		t.Fatal(err)
	}
	var out []arrival
	for a, ok := gen.next(); ok; a, ok = gen.next() {
		out = append(out, a)
	}
	return out
}

func TestTrafficPatterns(t *testing.T) {
	constant := drain(t, Client{Pattern: Constant{Rate: 3}, Start: time.Second, Stop: 2 * time.Second}, 1)
	if len(constant) != 3 || constant[0].at != time.Second || constant[1].at != time.Second+333333*time.Microsecond || constant[2].at != time.Second+666666*time.Microsecond {
		t.Errorf("constant 3/s over [1s, 2s) = %v, want 1s, 1.333333s, 1.666666s", constant)
	}

	bursts := drain(t, Client{Pattern: Bursts{[]Burst{{At: 999 * time.Millisecond, Count: 3}, {At: 2 * time.Second, Count: 4, Spread: 100 * time.Millisecond}}}}, 1)
	var at []time.Duration
	for _, a := range bursts {
		at = append(at, a.at)
	}
	wantBursts := []time.Duration{999 * time.Millisecond, 999 * time.Millisecond, 999 * time.Millisecond, 2 * time.Second, 2025 * time.Millisecond, 2050 * time.Millisecond, 2075 * time.Millisecond}
	if len(at) != len(wantBursts) {
		t.Fatalf("bursts = %v, want %v", at, wantBursts)
	}
	for i := range at {
		if at[i] != wantBursts[i] {
			t.Errorf("burst arrival %d at %v, want %v", i, at[i], wantBursts[i])
		}
	}

	// a ramp from 0 to 100/s over [0, 10 s) sends N(10) = (0 + 100) / 2 × 10 = 500
	// but the 500th falls at exactly 10 s, outside the half-open span: 499
	ramp := drain(t, Client{Pattern: Ramp{From: 0, To: 100}}, 1)
	if len(ramp) != 499 {
		t.Errorf("ramp 0→100/s over 10s sent %d, want 499", len(ramp))
	}
	late := 0
	for _, a := range ramp {
		if a.at >= 5*time.Second {
			late++
		}
	}
	if late != 375 { // the 125th (N(5) = 125) at exactly 5 s through the 499th
		t.Errorf("ramp sent %d in its second half, want 375", late)
	}

	poisson := drain(t, Client{Pattern: Poisson{Rate: 1000}}, 7)
	if n := len(poisson); math.Abs(float64(n)-10000) > 400 { // 4 standard deviations
		t.Errorf("poisson 1000/s over 10s sent %d, want 10000 ± 400", n)
	}
	for i := 1; i < len(poisson); i++ {
		if poisson[i].at < poisson[i-1].at || poisson[i].at%time.Microsecond != 0 {
			t.Fatalf("poisson arrival %d at %v after %v: want non-decreasing whole microseconds", i, poisson[i].at, poisson[i-1].at)
		}
	}
	if again := drain(t, Client{Pattern: Poisson{Rate: 1000}}, 7); len(again) != len(poisson) || again[100] != poisson[100] {
		t.Error("the same seed gave different poisson arrivals")
	}
}

func TestZipfKeysFavourTheFirst(t *testing.T) {
	r := newStream(1, streamTraffic, 0)
	picker := newKeyPicker(r, make([]int, 100), 1.2)
	counts := make([]int, 100)
	for i := 0; i < 100000; i++ {
		counts[picker.pick(r)]++
	}
	if counts[0] < 5*counts[10] || counts[10] < counts[90] {
		t.Errorf("zipf counts: first %d, 11th %d, 91st %d; want steeply falling", counts[0], counts[10], counts[90])
	}
}

func TestRetryWait(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	exp := Retry{Policy: RetryExponential, Delay: 100 * time.Millisecond, Cap: time.Second, MaxAttempts: 6, OnDeny: true, OnError: true}
	for attempt, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second} {
		if got, ok := exp.wait(attempt, true, 0, one(rng)); !ok || got != want {
			t.Errorf("exponential wait after attempt %d = %v, %v; want %v", attempt, got, ok, want)
		}
	}
	if _, ok := exp.wait(6, true, 0, one(rng)); ok {
		t.Error("retried after the sixth of 6 attempts")
	}
	full := exp
	full.Jitter = JitterFull
	equal := exp
	equal.Jitter = JitterEqual
	for i := 0; i < 1000; i++ {
		if w, _ := full.wait(3, true, 0, one(rng)); w < 0 || w > 400*time.Millisecond {
			t.Fatalf("full jitter wait %v outside [0, 400ms]", w)
		}
		if w, _ := equal.wait(3, true, 0, one(rng)); w < 200*time.Millisecond || w > 400*time.Millisecond {
			t.Fatalf("equal jitter wait %v outside [200ms, 400ms]", w)
		}
	}
	honour := Retry{Policy: RetryHonour, Delay: time.Second, MaxAttempts: 3, OnDeny: true, OnError: true}
	if w, ok := honour.wait(1, true, 1234*time.Microsecond, one(rng)); !ok || w != 1234*time.Microsecond {
		t.Errorf("honouring Retry-After 1.234ms waited %v, %v", w, ok)
	}
	if w, _ := honour.wait(1, false, 0, one(rng)); w != time.Second {
		t.Errorf("after a backend error (no Retry-After) waited %v, want the delay 1s", w)
	}
	if _, ok := honour.wait(1, true, algorithms.Forever, one(rng)); ok {
		t.Error("retried a request that can never be accepted")
	}
	// decorrelated: each wait in [delay, 3 × the last], capped; the third
	// replays the first two from their own streams
	dec := exp
	dec.Jitter, dec.Cap = JitterDecorrelated, 2*time.Second
	for req := uint64(0); req < 1000; req++ {
		streams := func(n int) *rand.Rand { return rand.New(rand.NewPCG(req, uint64(n))) }
		last := dec.Delay
		for attempt := 1; attempt <= 5; attempt++ {
			w, ok := dec.wait(attempt, true, 0, streams)
			if !ok || w < dec.Delay || w > min(3*last, dec.Cap) {
				t.Fatalf("decorrelated wait %d = %v, %v; want in [%v, %v]", attempt, w, ok, dec.Delay, min(3*last, dec.Cap))
			}
			if again, _ := dec.wait(attempt, true, 0, streams); again != w {
				t.Fatalf("decorrelated wait %d drawn twice: %v then %v", attempt, w, again)
			}
			last = w
		}
	}
	denyOnly := Retry{Policy: RetryImmediate, MaxAttempts: 3, OnDeny: true}
	if _, ok := denyOnly.wait(1, false, 0, one(rng)); ok {
		t.Error("retried a backend error with on = [\"deny\"]")
	}
}

// one is a stream for every attempt: rng itself.
func one(rng *rand.Rand) func(int) *rand.Rand { return func(int) *rand.Rand { return rng } }
