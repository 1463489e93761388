package scenarios

import (
	"testing"

	"ratelab/sim"
)

// productScenario is a scenario of one lane of a product's algorithm beside a
// token bucket, fed by one client, run to its end in memory.
type productScenario struct {
	name string
	doc  string
	// check looks at the lanes' metrics, the product's lane first.
	check func(t *testing.T, product, tokenBucket sim.Metrics)
}

func runProductScenario(t *testing.T, doc string) []sim.Metrics {
	t.Helper()
	c, err := parse(t, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("s", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	return r.Metrics()
}

// Each product lane runs as an ordinary lane of a scenario, in memory, through
// the engine, and decides there as its own steps say it does.
func TestProductLanesRunInAScenario(t *testing.T) {
	for _, tc := range []productScenario{
		{name: "guava", doc: `[[scenario]]
name = "s"
duration = "2s"

[scenario.policy]
limit = 5

[[scenario.lane]]
name = "guava"
algorithm = "guava"

[[scenario.lane]]
name = "tb"
algorithm = "token-bucket"

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 20
`, check: func(t *testing.T, g, tb sim.Metrics) {
			// Guava starts with no stored permits: one request per 200 ms from the
			// first, 10 in 2 s; the token bucket starts full: 5 at once, then 1 per 200 ms
			if g.Accepted != 10 || tb.Accepted <= g.Accepted {
				t.Errorf("guava accepted %d of 40 (want 10: one per 200 ms, no burst at creation), the token bucket %d (want more: it starts full)", g.Accepted, tb.Accepted)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := runProductScenario(t, tc.doc)
			if len(ms) != 2 {
				t.Fatalf("%d lanes, want 2", len(ms))
			}
			tc.check(t, ms[0], ms[1])
		})
	}
}
