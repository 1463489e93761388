package present

import (
	"strings"
	"testing"

	"ratelab/sim"
)

// A ratio over 0 is undefined, and a claim on it does not hold, whatever its
// comparison: errors/errors < 1 with no errors used to read 0 < 1, ✓.
func TestClaimOnARatioOverZero(t *testing.T) {
	cfg := &sim.Config{Lanes: []sim.LaneConfig{{Name: "tb"}}, Tiers: []sim.Tier{{}}}
	for _, op := range []string{"<", "!=", ">=", "=="} {
		cfg.Claims = []sim.Claim{{ID: "c", Lanes: []int{0}, Metric: "errors/errors", Op: op, Value: 1, Than: -1, Scope: -1}}
		res := sim.Judge(cfg, []sim.Metrics{{}}, [][]sim.ScopeCounts{{}})
		if res[0].Holds || !res[0].Undefined[0] || res[0].Got[0] != 0 {
			t.Errorf("errors/errors %s 1 with no errors: holds %v, undefined %v, got %v; want an undefined claim that does not hold", op, res[0].Holds, res[0].Undefined, res[0].Got)
		}
		if !strings.Contains(ClaimLine(cfg, res[0]), "tb undefined (a ratio over 0)") {
			t.Errorf("the line does not say the ratio is undefined: %s", ClaimLine(cfg, res[0]))
		}
	}
	cfg.Claims = []sim.Claim{{ID: "c", Lanes: []int{0}, Metric: "errors/attempts", Op: "<", Value: 1, Than: -1, Scope: -1}}
	if res := sim.Judge(cfg, []sim.Metrics{{Attempts: 10, Errors: 2}}, [][]sim.ScopeCounts{{}}); !res[0].Holds || res[0].Got[0] != 0.2 {
		t.Errorf("errors/attempts = 2/10 < 1: %+v", res[0])
	}
}
