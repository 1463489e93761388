package scenarios

import (
	"strings"
	"testing"

	"ratelab/sim"
)

// productScenario is a scenario of one lane of a product's algorithm beside a
// token bucket, fed by one client, run to its end in memory.
type productScenario struct {
	name string
	doc  string
	// check looks at the lanes' metrics, in the file's order.
	check func(t *testing.T, lanes []sim.Metrics)
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
`, check: func(t *testing.T, ms []sim.Metrics) {
			g, tb := ms[0], ms[1]
			// Guava starts with no stored permits: one request per 200 ms from the
			// first, 10 in 2 s; the token bucket starts full: 5 at once, then 1 per 200 ms
			if g.Accepted != 10 || tb.Accepted <= g.Accepted {
				t.Errorf("guava accepted %d of 40 (want 10: one per 200 ms, no burst at creation), the token bucket %d (want more: it starts full)", g.Accepted, tb.Accepted)
			}
		}},
		{name: "envoy-local", doc: `[[scenario]]
name = "s"
duration = "2m"

[scenario.policy]
limit = 10
period = "1m"

[[scenario.lane]]
name = "timer"
algorithm = "envoy-local"
envoy_version = "1.30"

[[scenario.lane]]
name = "timer loaded 30 s before"
algorithm = "envoy-local"
envoy_version = "1.30.4"
config_load_at = "-30s"

[[scenario.lane]]
name = "timer-free"
algorithm = "envoy-local"

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 1
`, check: func(t *testing.T, ms []sim.Metrics) {
			// timer: 10 at once, nothing until the fire at 60 s refills all 10: 20 of
			// 120; loaded 30 s before the run, its fires come at 30 s and 90 s: 30;
			// timer-free: 10, then one every 6 s
			if ms[0].Accepted != 20 || ms[1].Accepted != 30 || ms[2].Accepted <= ms[0].Accepted {
				t.Errorf("accepted: timer %d (want 20), timer loaded 30 s before %d (want 30), timer-free %d (want more than the timer)", ms[0].Accepted, ms[1].Accepted, ms[2].Accepted)
			}
		}},
		{name: "haproxy", doc: `[[scenario]]
name = "s"
duration = "5s"

[scenario.policy]
limit = 10

[[scenario.lane]]
name = "counted"
algorithm = "haproxy"
headers = "x-ratelimit"

[[scenario.lane]]
name = "looked up first"
algorithm = "haproxy"
track_sc = "after-deny"
expire = "30s"
deny_status = 429
haproxy_version = "2.6.12"

[[scenario.lane]]
name = "counter"
algorithm = "sliding-counter"

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 20
`, check: func(t *testing.T, ms []sim.Metrics) {
			// 20 a second against gt 10 per 1s: counted before the deny, only the
			// first period's 10 pass (the denials keep the rate at 21); looked up
			// first, about 10 a second pass, as through the sliding counter
			if ms[0].Accepted != 10 || ms[1].Accepted < 40 || ms[2].Accepted < 40 {
				t.Errorf("accepted of 100: counted before the deny %d (want 10), looked up first %d, sliding counter %d (want about 50)", ms[0].Accepted, ms[1].Accepted, ms[2].Accepted)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, runProductScenario(t, tc.doc))
		})
	}
}

// A product option with a bad value is placed at its key, with the fix.
func TestProductOptionErrors(t *testing.T) {
	doc := minimal + "[[scenario.lane]]\nalgorithm = \"envoy-local\"\nenvoy_version = \"latest\"\n"
	c, err := parse(t, doc, nil)
	if err == nil {
		_, err = c.Compile("s", Overrides{})
	}
	if err == nil || !strings.Contains(err.Error(), `envoy_version "latest" is not an Envoy release; write one such as "1.30"`) {
		t.Errorf("envoy_version = \"latest\": %v", err)
	}
	doc = minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nwarmup = \"2s\"\n"
	c, err = parse(t, doc, nil)
	if err == nil {
		_, err = c.Compile("s", Overrides{})
	}
	if err == nil || !strings.Contains(err.Error(), "warmup applies to guava only (this lane runs gcra)") {
		t.Errorf("warmup on gcra: %v", err)
	}
	for _, c := range []struct{ lane, want string }{
		{"algorithm = \"haproxy\"\ntrack_sc = \"befor-deny\"\n", `track_sc must be one of "before-deny" (denied requests are counted), "after-deny" (only requests let through are counted) (got "befor-deny"); did you mean "before-deny"?`},
		{"algorithm = \"haproxy\"\ndeny_status = 418\n", "deny_status 418 is not one HAProxy 2.6 can send from a deny"},
		{"algorithm = \"haproxy\"\nexpire = \"-1s\"\n", "expire must be from 0 to"},
		{"algorithm = \"haproxy\"\nhaproxy_version = \"2.x\"\n", `haproxy_version "2.x" is not an HAProxy release`},
		{"algorithm = \"token-bucket\"\nexpire = \"30s\"\n", "expire applies to haproxy only (this lane runs token-bucket)"},
		{"algorithm = \"sliding-log\"\ntrack_sc = \"after-deny\"\n", `track_sc = "after-deny" applies to haproxy only (this lane runs sliding-log)`},
	} {
		c2, err := parse(t, minimal+"[[scenario.lane]]\n"+c.lane, nil)
		if err == nil {
			_, err = c2.Compile("s", Overrides{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error containing %q", c.lane, err, c.want)
		}
	}
}
