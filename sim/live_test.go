package sim_test

import (
	"math"
	"reflect"
	"testing"
	"time"

	"ratelab/scenarios"
	"ratelab/sim"
)

// A run keeping its live sums (what a view redrawn every frame reads, in O(1) a
// lane) shows, at every step of every shipped scenario, the metrics a walk over
// the keys finds: every count and maximum exactly, the three sums over keys
// (fairness, max_units, the excess and so over-grant) within rounding — and an
// over-grant of 0 as exactly 0, so a claim reads the same live as written. Its
// claims hold where the written ones do, and once the run is done the snapshot
// shows the written metrics themselves.
func TestLiveMetricsAreTheWalkedOnes(t *testing.T) {
	c, err := scenarios.Load("../scenarios.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range c.Names() {
		cfg, err := c.Compile(name, scenarios.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		upTo := cfg.Duration
		if testing.Short() {
			upTo = min(upTo, 3*time.Second)
		}
		r, err := sim.NewRun(cfg, sim.Memory)
		if err != nil {
			t.Fatal(err)
		}
		r.KeepLive()
		step := max(upTo/7, cfg.Tick)
		for at := step; ; at = min(at+step, upTo) {
			if err := r.AdvanceTo(at); err != nil {
				t.Fatal(err)
			}
			snap := r.Snapshot()
			walked := r.Metrics()
			for i, l := range r.Lanes {
				live := l.LiveMetrics()
				if !sameMetrics(live, walked[i]) {
					t.Errorf("%s at %v, lane %s: live metrics\n%+v\nwalked\n%+v", name, at, l.Config.Name, live, walked[i])
				}
				if snap.Done {
					if !reflect.DeepEqual(snap.Metrics[i], walked[i]) {
						t.Errorf("%s, done: the snapshot's metrics are not the written ones", name)
					}
				} else if !reflect.DeepEqual(snap.Metrics[i], live) {
					t.Errorf("%s at %v: the snapshot's metrics are not the live ones", name, at)
				}
			}
			for j, claim := range r.ClaimsOn(walked) {
				if snap.Claims[j].Holds != claim.Holds {
					t.Errorf("%s at %v: claim %s holds %v live, %v written", name, at, claim.ID, snap.Claims[j].Holds, claim.Holds)
				}
			}
			if at == upTo {
				break
			}
		}
		r.Close()
	}
}

// sameMetrics says live is walked, but for the last bits of the sums over keys.
func sameMetrics(live, walked sim.Metrics) bool {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(math.Abs(a), math.Abs(b), 1e-300) }
	if !near(live.Fairness, walked.Fairness) || !near(live.MaxUnits, walked.MaxUnits) || !near(live.ExcessUnits, walked.ExcessUnits) || !near(live.OverGrant, walked.OverGrant) {
		return false
	}
	if (walked.OverGrant == 0) != (live.OverGrant == 0) {
		return false
	}
	live.Fairness, live.MaxUnits, live.ExcessUnits, live.OverGrant = walked.Fairness, walked.MaxUnits, walked.ExcessUnits, walked.OverGrant
	return reflect.DeepEqual(live, walked)
}

// The opening snapshot, made without starting a run, is what a run of every
// shipped scenario shows at time zero.
func TestOpeningIsARunAtZero(t *testing.T) {
	c, err := scenarios.Load("../scenarios.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range c.Names() {
		cfg, err := c.Compile(name, scenarios.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := sim.NewRun(cfg, sim.Memory)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := sim.Opening(cfg), r.Snapshot(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the opening snapshot\n%+v\nis not a run's at zero\n%+v", name, got, want)
		}
		r.Close()
	}
}
