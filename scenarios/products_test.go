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
		{name: "spring", doc: `[[scenario]]
name = "s"
duration = "10s"

[scenario.policy]
limit = 3
burst = 2

[[scenario.lane]]
name = "spring"
algorithm = "spring"

[[scenario.lane]]
name = "spring ttl trap"
algorithm = "spring"
burst = 1

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 20
`, check: func(t *testing.T, ms []sim.Metrics) {
			// replenishRate 3, burstCapacity 2 (ttl 1 s): 2 at once, then at each
			// whole second 3 tokens of which the bucket holds 2: 2 + 9 × 2 = 20 of
			// 200; with burstCapacity 1 the ttl is 0 and all 200 pass
			if ms[0].Accepted != 20 || ms[1].Accepted != 200 {
				t.Errorf("accepted: spring %d (want 20: 2 at each whole second), the ttl trap %d (want all 200)", ms[0].Accepted, ms[1].Accepted)
			}
		}},
		{name: "traefik", doc: `[[scenario]]
name = "s"
duration = "2s"

[scenario.policy]
limit = 100
burst = 1

[[scenario.lane]]
name = "traefik"
algorithm = "traefik"

[[scenario.lane]]
name = "tb"
algorithm = "token-bucket"

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 400
`, check: func(t *testing.T, ms []sim.Metrics) {
			// Traefik's "Average is respected": 400 a second at average 100, burst
			// 1 serve 201 in 2 s, all but the first after a wait of up to 5 ms
			// (maxDelay); the token bucket serves about as many, none delayed
			tr, tb := ms[0], ms[1]
			if tr.Accepted < 190 || tr.Accepted > 205 || tr.QueueDelayP99 == 0 || tb.QueueDelayP99 != 0 {
				t.Errorf("traefik accepted %d (want 190 to 205, Traefik's bounds), p99 delay %v (want > 0); the token bucket's p99 delay %v (want 0)", tr.Accepted, tr.QueueDelayP99, tb.QueueDelayP99)
			}
		}},
		{name: "kong", doc: `[[scenario]]
name = "s"
duration = "3m"

[scenario.policy]
limit = 6
period = "1m"

[[scenario.lane]]
name = "local"
algorithm = "kong"
kong_windows = { hour = 10 }

[[scenario.lane]]
name = "redis"
algorithm = "kong"
kong_policy = "redis"
kong_windows = { hour = 10 }

[[scenario.lane]]
name = "late increments"
algorithm = "kong"
kong_increment_delay = "5s"

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 1
`, check: func(t *testing.T, ms []sim.Metrics) {
			// one a second for 3 minutes at 6 a minute, 10 an hour: local takes 6
			// in the first minute and 4 in the second (the hour's 10), then none;
			// redis counts the refusals in the hour too, full after 10 requests:
			// 6 in the first minute, none after. With increments landing 5 s
			// late a request sees those of 5 s before: 10 pass each minute
			// (second 10 is the first to see 6), 30 of 180
			if ms[0].Accepted != 10 || ms[1].Accepted != 6 || ms[2].Accepted != 30 {
				t.Errorf("accepted: local %d (want 10), redis %d (want 6), late increments %d (want 30)", ms[0].Accepted, ms[1].Accepted, ms[2].Accepted)
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
	for _, tc := range []struct{ lane, want string }{
		{"algorithm = \"kong\"\nperiod = \"7s\"\n", `lane "kong": period 7s is not one of Kong's windows`},
		{"algorithm = \"kong\"\nkong_policy = \"redys\"\n", `kong_policy must be one of "local", "cluster", "redis" (got "redys"); did you mean "redis"?`},
		{"algorithm = \"kong\"\nkong_windows = { hours = 3 }\n", `kong_windows: "hours" is not one of Kong's windows (second, minute, hour, day, month, year); did you mean "hour"?`},
		{"algorithm = \"kong\"\nkong_windows = {}\n", `kong_windows sets no window`},
		{"algorithm = \"kong\"\nkong_windows = { hour = 0 }\n", `kong_windows: hour must be > 0 (got 0)`},
		{"algorithm = \"kong\"\nkong_windows = { hour = 5 }\n", `the limit for hour(5) cannot be lower than the limit for second(10)`},
		{"algorithm = \"gcra\"\nkong_windows = { hour = 5 }\n", `kong_windows applies to kong only (this lane runs gcra)`},
	} {
		c, err := parse(t, minimal+"[[scenario.lane]]\n"+tc.lane, nil)
		if err == nil {
			_, err = c.Compile("s", Overrides{})
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.lane, err, tc.want)
		}
	}
	doc = minimal + "[[scenario.lane]]\nalgorithm = \"spring\"\nlimit = 1\nperiod = \"4000000001us\"\n"
	c, err = parse(t, doc, nil)
	if err == nil {
		_, err = c.Compile("s", Overrides{})
	}
	if err == nil || !strings.Contains(err.Error(), `lane "spring": 1 per 1h6m40.000001s, burst 1 takes requestedTokens 4000000001`) {
		t.Errorf("a policy Spring cannot state: %v", err)
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
