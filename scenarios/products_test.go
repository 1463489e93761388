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
		{name: "envoy-global", doc: `[[scenario]]
name = "s"
duration = "2m"

[scenario.policy]
limit = 10
period = "1m"

[[scenario.lane]]
name = "rls"
algorithm = "envoy-global"

[[scenario.lane]]
name = "rls in shadow mode"
algorithm = "envoy-global"
shadow_mode = true

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 1
`, check: func(t *testing.T, ms []sim.Metrics) {
			// each minute of the epoch (the origin is one's start) takes 10 of its
			// 60; in shadow mode every request passes
			if ms[0].Accepted != 20 || ms[1].Accepted != 120 {
				t.Errorf("accepted: the service %d (want 20: 10 a minute), in shadow mode %d (want all 120)", ms[0].Accepted, ms[1].Accepted)
			}
		}},
		{name: "cloudflare", doc: `[[scenario]]
name = "s"
duration = "2m"

[scenario.policy]
limit = 10
period = "10s"

[[scenario.lane]]
name = "throttle"
algorithm = "cloudflare"

[[scenario.lane]]
name = "mitigation"
algorithm = "cloudflare"
mitigation_timeout = "1m"

[[scenario.lane]]
name = "counter"
algorithm = "sliding-counter"

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 2
`, check: func(t *testing.T, ms []sim.Metrics) {
			// at twice the limit: throttle lets the limit through, as the sliding
			// counter does; a minute's mitigation each time the rate is passed lets
			// 10 through and then blocks for a minute: 10 in each of the two minutes
			if ms[0].Accepted != ms[2].Accepted || ms[0].Accepted < 100 || ms[1].Accepted != 20 {
				t.Errorf("accepted: throttle %d (want the sliding counter's, %d, at least 100), mitigation %d (want 20)", ms[0].Accepted, ms[2].Accepted, ms[1].Accepted)
			}
		}},
		{name: "api-gateway", doc: `[[scenario]]
name = "s"
duration = "10s"

[scenario.policy]
limit = 10
burst = 5

[[scenario.lane]]
name = "throttle"
algorithm = "api-gateway"

[[scenario.lane]]
name = "usage plan"
algorithm = "api-gateway"
quota_limit = 30
quota_period = "day"
quota_offset = 10

[[scenario.lane]]
name = "tb"
algorithm = "token-bucket"

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 20
`, check: func(t *testing.T, ms []sim.Metrics) {
			// the throttle is the token bucket's: 5 at once, then 10 a second; the
			// usage plan stops at its first day's 30 − 10
			if ms[0].Accepted != ms[2].Accepted || ms[0].Accepted < 100 || ms[1].Accepted != 20 {
				t.Errorf("accepted: throttle %d (want the token bucket's, %d), usage plan %d (want 20)", ms[0].Accepted, ms[2].Accepted, ms[1].Accepted)
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
}

// A product lane given a period its product cannot be configured with is
// refused at the period's place, naming what it takes: the lane's own period,
// the scenario's (the default tier's) or a tier's, or a limit's.
func TestProductPolicyErrors(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"the lane's period", minimal + "[[scenario.lane]]\nalgorithm = \"envoy-global\"\nperiod = \"1500ms\"\n",
			"test.toml:14:10: scenario \"s\": lane \"envoy-global\": period 1.5s is not a unit of Envoy's rate limit service; use one of second (1s), minute (1m0s)"},
		{"the scenario's period", strings.Replace(minimal, "limit = 10", "limit = 10\nperiod = \"10s\"", 1) + "[[scenario.lane]]\nalgorithm = \"envoy-global\"\n",
			"test.toml:7:10: scenario \"s\": lane \"envoy-global\": period 10s is not a unit"},
		{"a tier's period", minimal + "[[scenario.tier]]\nname = \"gold\"\nlimit = 5\nperiod = \"2s\"\n\n[[scenario.lane]]\nalgorithm = \"envoy-global\"\n",
			"test.toml:15:10: scenario \"s\": lane \"envoy-global\": period 2s is not a unit"},
		{"a limit's period", minimal + "[[scenario.lane]]\nname = \"two\"\n[[scenario.lane.limits]]\nalgorithm = \"envoy-global\"\n[[scenario.lane.limits]]\nalgorithm = \"envoy-global\"\nperiod = \"5s\"\n",
			"test.toml:18:10: scenario \"s\": lane \"two\": limit \"limit-2\": period 5s is not a unit"},
		{"an option on another algorithm", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nshadow_mode = true\n",
			"shadow_mode applies to envoy-global only (this lane runs gcra)"},
		{"cloudflare's default period", minimal + "[[scenario.lane]]\nalgorithm = \"cloudflare\"\n",
			"test.toml:5:1: scenario \"s\": lane \"cloudflare\": period 1s is not a period Cloudflare takes; use one of 10, 15"},
		{"a mitigation timeout", minimal + "[[scenario.lane]]\nalgorithm = \"cloudflare\"\nperiod = \"10s\"\nmitigation_timeout = \"25h\"\n",
			"test.toml:15:22: scenario \"s\": lane \"cloudflare\": mitigation_timeout must be 0 (throttle) or one of"},
		{"a quota without a period", minimal + "[[scenario.lane]]\nalgorithm = \"api-gateway\"\nquota_limit = 100\n",
			"test.toml:14:15: scenario \"s\": lane \"api-gateway\": quota_limit = 100 needs quota_period = \"day\", \"week\" or \"month\""},
		{"a quota period", minimal + "[[scenario.lane]]\nalgorithm = \"api-gateway\"\nquota_limit = 100\nquota_period = \"year\"\n",
			`quota_period must be one of "day", "week", "month" (got "year")`},
		{"a status", minimal + "[[scenario.lane]]\nalgorithm = \"cloudflare\"\nperiod = \"10s\"\ndeny_status = 503\n",
			"test.toml:15:15: scenario \"s\": lane \"cloudflare\": deny_status (response.status_code) must be from 400 to 499"},
	} {
		c, err := parse(t, tc.doc, nil)
		if err == nil {
			_, err = c.Compile("s", Overrides{})
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %q", tc.name, err, tc.want)
		}
	}
}
