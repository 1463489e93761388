package sim

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

// Each client's tally adds up to the lane's decisions: its attempts decided,
// accepted; a client sending over the limit meets refusals, one under it none
// where the limit is per key.
func TestByClientAddsUpToTheLane(t *testing.T) {
	p := algorithms.Policy{Limit: 10, Period: time.Second, Burst: 10}
	cfg := newConfig(p, 5*time.Second, []LaneConfig{lane("tb", "token-bucket"), lane("fw", "fixed-window")},
		Client{Name: "heavy", Pattern: Constant{Rate: 30}}, Client{Name: "light", Pattern: Poisson{Rate: 5}})
	r, err := NewRun(cfg, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	metrics := r.Metrics()
	for i, l := range r.Lanes {
		tallies := l.ByClient()
		if len(tallies) != 2 {
			t.Fatalf("lane %s: %d tallies, want one per client", l.Config.Name, len(tallies))
		}
		var decided, accepted int64
		for _, c := range tallies {
			decided, accepted = decided+c.Decided, accepted+c.Accepted
		}
		if m := metrics[i]; decided != m.Accepted+m.Denied || accepted != m.Accepted {
			t.Errorf("lane %s: tallies decided %d, accepted %d; the lane decided %d, accepted %d", l.Config.Name, decided, accepted, m.Accepted+m.Denied, m.Accepted)
		}
		heavy, light := tallies[0], tallies[1]
		if heavy.Decided < 140 || heavy.Share() > 0.5 || light.Share() != 1 {
			t.Errorf("lane %s: heavy %+v (share %.2f), light %+v (share %.2f); want the heavy client refused most, the light none",
				l.Config.Name, heavy, heavy.Share(), light, light.Share())
		}
	}
}
