package e2e

import (
	"strings"
	"testing"
	"time"

	"ratelab/present"
	"ratelab/scenarios"
	"ratelab/sim"
)

// The contract, burst + rate × T, holds in any span T, and over-grant measures
// the worst: the shipped failover with its traffic dropped to 4 a second a key
// a second after the flush. Every key's burst is forgiven at 15.5 s, in a span a
// second long, but the span from each key's first admission to its last (30 s,
// quiet for the last 13.5) has room for it; measured only on that span, the
// token bucket's over-grant was 0 and its verdict "contract kept".
func TestOverGrantSeesABurstForgivenBeforeQuietTraffic(t *testing.T) {
	c := catalogue(t)
	for _, seed := range sweepSeeds() {
		cfg, err := c.Compile("failover", scenarios.Overrides{Seed: &seed})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Inputs = append(cfg.Inputs, sim.Input{At: 16500 * time.Millisecond, Kind: sim.InputRate, Client: 0, Rate: 400})
		r, err := sim.NewRun(cfg, sim.Memory)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.AdvanceTo(cfg.Duration); err != nil {
			t.Fatal(err)
		}
		m := r.Metrics()
		claims := r.ClaimsOn(m)
		r.Close()
		tb := m[0]
		if tb.Lane != "token-bucket" {
			t.Fatalf("lane 0 is %q, want the token bucket", tb.Lane)
		}
		if tb.OverGrant <= 0.05 || tb.ExcessUnits < 1000 {
			t.Errorf("seed %d: over-grant %.4f (%.1f units past the contract); every key got a second burst within a second, over 5%% and some 1,800 units", seed, tb.OverGrant, tb.ExcessUnits)
		}
		if v := present.Verdict(cfg, tb); !strings.Contains(v, "contract broken (over-grant)") {
			t.Errorf("seed %d: verdict %q, want the contract broken", seed, v)
		}
		for _, cl := range claims {
			if cl.Claim.ID == "tb-over" && !cl.Holds {
				t.Errorf("seed %d: claim tb-over fails: %+v", seed, cl)
			}
		}
	}
}
