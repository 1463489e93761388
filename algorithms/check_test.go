package algorithms

import (
	"math/rand/v2"
	"reflect"
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
			case "nginx":
				opts.Nodelay, opts.DryRun = r.IntN(2) == 0, r.IntN(3) == 0
				if !opts.Nodelay {
					opts.Delay = r.Int64N(p.Burst)
				}
			case EnvoyGlobalName:
				opts.ShadowMode = r.IntN(2) == 0
			case CloudflareName:
				opts.MitigationTimeout = []time.Duration{0, 10 * time.Second, time.Minute}[r.IntN(3)]
				opts.CountBlocked = r.IntN(2) == 0
			case APIGatewayName:
				if r.IntN(2) == 0 {
					opts.QuotaLimit, opts.QuotaPeriod = 1+r.Int64N(20), QuotaPeriod(1+r.IntN(3))
					opts.QuotaOffset = r.Int64N(opts.QuotaLimit + 1)
				}
			case "kong":
				p = admitted(KongName, p, opts) // here: kong_increment_delay is a fraction of the period Kong takes
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
			p = admitted(name, p, opts)
			checked, err := New(name, p, opts)
			if err != nil {
				t.Fatalf("%s seed %d: %v", name, seed, err)
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
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s seed %d step %d: Check(%s, %v, %d) = %+v, but Allow = %+v", name, seed, i, q.key, q.at, q.cost, got, want)
				}
				if d := checked.Allow(q.key, q.at, q.cost); !reflect.DeepEqual(d, want) {
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

// The same for the haproxy lane in each of its modes: both places of track-sc0,
// expiry, 1.7's odd ticks and the counters that never rotate.
func TestHAProxyCheckIsAllowWithoutTheWrite(t *testing.T) {
	for i, o := range []Options{{TrackSC: TrackAfterDeny}, {Expire: 700 * time.Millisecond}, {TrackSC: TrackAfterDeny, Expire: 3 * time.Second, HAProxyVersion: "1.7"}, {HAProxyVersion: "2.2.11", Expire: 2 * time.Second}, {HAProxyVersion: "2.0.21", TrackSC: TrackAfterDeny}} {
		for seed := uint64(1); seed <= 40; seed++ {
			r := rand.New(rand.NewPCG(seed, 12))
			p := randomPolicy(r)
			checked, _ := New(HAProxyName, p, o)
			twin, _ := New(HAProxyName, p, o)
			for j, q := range randomTrace(r, p, 200, 3) {
				if r.IntN(8) == 0 {
					q.at -= time.Duration(r.Int64N(int64(p.Period))).Truncate(time.Microsecond)
				}
				if r.IntN(4) == 0 {
					checked.(Checker).Check("other", q.at, 1)
				}
				got, want := checked.(Checker).Check(q.key, q.at, q.cost), twin.Allow(q.key, q.at, q.cost)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("options %d %+v seed %d step %d: Check = %+v, Allow = %+v", i, o, seed, j, got, want)
				}
				if d := checked.Allow(q.key, q.at, q.cost); !reflect.DeepEqual(d, want) {
					t.Fatalf("options %d %+v seed %d step %d: after checks Allow = %+v, the twin's %+v", i, o, seed, j, d, want)
				}
			}
		}
	}
}
