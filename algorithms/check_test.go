package algorithms

import (
	"math/rand/v2"
	"testing"
	"time"
)

// Check says what Allow would decide, exactly, and changes nothing: on random
// policies and traces (clocks going back too), every algorithm checked before each decision (and at odd
// moments in between) decides the same requests as a twin that is never checked.
func TestCheckIsAllowWithoutTheWrite(t *testing.T) {
	for _, name := range Names() {
		for seed := uint64(1); seed <= 60; seed++ {
			r := rand.New(rand.NewPCG(seed, 11))
			p := randomPolicy(r)
			opts := Options{MonotonicTimestamp: r.IntN(2) == 0}
			switch name {
			case "fixed-window":
				opts.RandomStart, opts.Rollover = r.IntN(2) == 0, r.Int64N(p.Limit+1)
			case "leaky-bucket":
				opts.Mode = LeakyMode(r.IntN(2))
			case "token-bucket":
				opts.MaxReserved = r.Int64N(3) * p.Burst / 2
			case "kong":
				p = statable(KongName, p, opts)
				opts.KongPolicy = KongPolicy(r.IntN(3))
				if opts.KongPolicy != KongRedis {
					opts.KongIncrementDelay = time.Duration(r.Int64N(3)) * p.Period / 4
				}
				if r.IntN(2) == 0 {
					opts.KongWindows[KongDay] = p.Limit * 100 // a second window, enforced with the policy's
				}
			}
			if name != "token-bucket" {
				opts.MonotonicTimestamp = false
			}
			checked, err := New(name, p, opts)
			if err != nil {
				t.Fatal(err)
			}
			twin, _ := New(name, p, opts)
			trace := randomTrace(r, p, 200, min(3, p.Burst, p.Limit))
			for i, q := range trace {
				if r.IntN(8) == 0 { // a clock behind
					q.at -= time.Duration(r.Int64N(int64(p.Period))).Truncate(time.Microsecond)
				}
				if r.IntN(4) == 0 { // a check of another key, or a larger cost, changes nothing either
					checked.(Checker).Check("other", q.at, 1+r.Int64N(4))
				}
				got := checked.(Checker).Check(q.key, q.at, q.cost)
				want := twin.Allow(q.key, q.at, q.cost)
				if got != want {
					t.Fatalf("%s seed %d step %d: Check(%s, %v, %d) = %+v, but Allow = %+v", name, seed, i, q.key, q.at, q.cost, got, want)
				}
				if d := checked.Allow(q.key, q.at, q.cost); d != want {
					t.Fatalf("%s seed %d step %d: after checks, Allow = %+v, the unchecked twin's %+v", name, seed, i, d, want)
				}
			}
		}
	}
}

func TestRoom(t *testing.T) {
	for i, c := range []struct {
		d    Decision
		cost int64
		want float64
	}{
		{Decision{Allowed: true, Remaining: 3}, 2, 5},
		{Decision{Remaining: 1.5}, 2, 1.5},
		{Decision{Allowed: true, Remaining: -4}, 1, 0},
		{Decision{Remaining: -1}, 1, 0},
	} {
		if got := Room(c.d, c.cost); got != c.want {
			t.Errorf("step %d: Room(%+v, %d) = %g, want %g", i, c.d, c.cost, got, c.want)
		}
	}
}
