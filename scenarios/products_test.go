package scenarios

import (
	"strings"
	"testing"
	"time"

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
	return runConfig(t, compileS(t, doc))
}

// compileS compiles scenario "s" of doc, failing the test on any error.
func compileS(t *testing.T, doc string) *sim.Config {
	t.Helper()
	c, err := parse(t, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("s", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
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
		{name: "nginx", doc: `[[scenario]]
name = "s"
duration = "5s"

[scenario.policy]
limit = 10
burst = 6

[[scenario.lane]]
name = "nginx"
algorithm = "nginx"

[[scenario.lane]]
name = "nginx nodelay"
algorithm = "nginx"
nodelay = true

[[scenario.lane]]
name = "nginx delay=2"
algorithm = "nginx"
delay = 2

[[scenario.client]]
name = "c"
pattern = "bursts"
bursts = [{at = "1s", count = 20}]

[scenario.backend]
concurrency = 20
service_time = "10ms"
timeout = "250ms"
`, check: func(t *testing.T, ms []sim.Metrics) {
			// 20 at once against burst=5: 6 pass; without nodelay the second to
			// sixth wait 100 to 500 ms, and the client (a 250 ms deadline) leaves
			// the last three in nginx's delay; with nodelay none waits; with
			// delay=2 the first three go at once, the others wait 100 to 300 ms
			plain, nodelay, two := ms[0], ms[1], ms[2]
			if plain.Accepted != 6 || nodelay.Accepted != 6 || two.Accepted != 6 {
				t.Errorf("accepted %d, %d, %d of 20, want 6 each (burst=5 and the first)", plain.Accepted, nodelay.Accepted, two.Accepted)
			}
			if plain.QueueTimeouts != 3 || plain.QueueDelayP99 < 400*time.Millisecond || plain.LatencyP99 < 200*time.Millisecond {
				t.Errorf("nginx: %d timed out in the delay (want 3), queue p99 %v (want ≥ 400ms), latency p99 %v (want ≥ 200ms)", plain.QueueTimeouts, plain.QueueDelayP99, plain.LatencyP99)
			}
			if nodelay.QueueTimeouts != 0 || nodelay.QueueDelayP99 != 0 || nodelay.LatencyP99 > 11*time.Millisecond {
				t.Errorf("nginx nodelay: %d timed out, queue p99 %v, latency p99 %v; want none, 0, the service time", nodelay.QueueTimeouts, nodelay.QueueDelayP99, nodelay.LatencyP99)
			}
			if two.QueueTimeouts != 1 || two.Succeeded != 5 {
				t.Errorf("nginx delay=2: %d timed out (want 1: the 300 ms wait), %d served (want 5)", two.QueueTimeouts, two.Succeeded)
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
		{"algorithm = \"kong\"\ndeny_status = 302\n", `test.toml:14:15: scenario "s": lane "kong": deny_status (config.error_code) must be from 400 to 599`},
		{"algorithm = \"spring\"\ndeny_status = 427\n", `test.toml:14:15: scenario "s": lane "spring": deny_status (the filter's statusCode) must be one of Spring's HttpStatus codes from 400 to 599`},
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

// nginx-tests limit_req2.t as a scenario: a multi-limit lane of nginx limits
// (fast 1000r/s and slow 1r/m, both without a burst) combined all-or-nothing
// decides as ngx_http_limit_req_handler does — a request, and the same 0.1 s
// later refused by slow (e = 999), with or without nodelay — and a request held
// to two delaying limits waits the longer delay. The request CSV says what
// nginx answers and logs, and nothing for a lane that is not a product's.
func TestNginxSeveralLimitsInAScenario(t *testing.T) {
	doc := `[[scenario]]
name = "s"
duration = "3s"

[scenario.policy]
limit = 10

[[scenario.lane]]
name = "fast+slow"
algorithm = "nginx"
combine = "all-or-nothing"
[[scenario.lane.limits]]
name = "fast"
limit = 1000
burst = 1
key = "fast:{key}"
[[scenario.lane.limits]]
name = "slow"
limit = 1
period = "1m"
burst = 1
key = "slow:{key}"

[[scenario.lane]]
name = "fast+slow nodelay"
algorithm = "nginx"
nodelay = true
combine = "all-or-nothing"
[[scenario.lane.limits]]
name = "fast"
limit = 1000
burst = 1
key = "fast:{key}"
[[scenario.lane.limits]]
name = "slow"
limit = 1
period = "1m"
burst = 1
key = "slow:{key}"

[[scenario.lane]]
name = "two delays"
algorithm = "nginx"
combine = "all-or-nothing"
[[scenario.lane.limits]]
name = "ten"
limit = 10
burst = 3
[[scenario.lane.limits]]
name = "one"
limit = 1
burst = 3
key = "one:{key}"

[[scenario.lane]]
name = "tb"
algorithm = "token-bucket"

[[scenario.client]]
name = "c"
pattern = "bursts"
bursts = [{at = "0s", count = 1}, {at = "100ms", count = 1}]
`
	cfg := compileS(t, doc)
	rows := csvOf(t, cfg)
	lines := strings.Split(rows, "\n")
	if !strings.HasSuffix(lines[0], ",http_status,product_status,rule,also_refusing") {
		t.Fatalf("header %q does not end with the product and the rule columns", lines[0])
	}
	var got []string
	for _, line := range lines[1:] {
		f := strings.Split(line, ",")
		if len(f) < 23 || f[0] == "time_ms" {
			break // the series CSV follows
		}
		got = append(got, strings.TrimSpace(f[0]+" "+f[1]+" "+f[10]+" "+f[15]+" "+f[19]+" "+f[20]+" "+f[21]+" "+f[22]))
	}
	want := []string{
		"0.000 fast+slow true 0.000000 200 PASSED",
		"0.000 fast+slow nodelay true 0.000000 200 PASSED",
		"0.000 two delays true 0.000000 200 PASSED",
		"0.000 tb true 0.000000", // not a product's: empty cells
		// slow (1 a minute) refuses, the second limit looked up; fast has room
		"100.000 fast+slow false  503 REJECTED slow 0",
		"100.000 fast+slow nodelay false  503 REJECTED slow 0",
		// at 0.1 s: ten has e = 0 − 1000 + 1000 = 0 (no wait), one e = 0 − 100
		// + 1000 = 900: the request waits 0.9 s, the longer
		"100.000 two delays true 900.000000 200 DELAYED",
		"100.000 tb true 0.000000",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A policy nginx cannot write, a delay past the burst, headers on a product
// that sends none: each refused at its place, with the fix.
func TestNginxLaneErrors(t *testing.T) {
	for _, c := range []struct{ lane, want string }{
		{"algorithm = \"nginx\"\nperiod = \"10s\"\n", `test.toml:14:10: scenario "s": lane "nginx": nginx's limit_req_zone takes a rate per second or per minute only (rate=Nr/s or rate=Nr/m), not 10 per 10s; write limit = 1, period = "1s"`},
		{"algorithm = \"nginx\"\ndelay = 10\n", `test.toml:14:9: scenario "s": lane "nginx": delay = 10 is more than nginx's burst, 9 (the policy's burst 10 less the request served at once)`},
		{"algorithm = \"nginx\"\ndelay = 2\nnodelay = true\n", `lane "nginx": delay = 2 and nodelay = true contradict`},
		{"algorithm = \"nginx\"\nheaders = \"legacy\"\n", `test.toml:14:11: scenario "s": lane "nginx": nginx sends no rate-limit headers`},
		{"algorithm = \"nginx\"\ndeny_status = 302\n", `deny_status must be an HTTP error status from 400 to 599 (got 302)`},
		{"algorithm = \"nginx\"\ndeny_status = 0\n", `test.toml:14:15: scenario "s": deny_status = 0 is not a setting: deny_status must be an HTTP error status from 400 to 599; leave it out for the product's default`},
		{"algorithm = \"gcra\"\nnodelay = true\n", `nodelay applies to nginx only (this lane runs gcra)`},
		{"algorithm = \"nginx\"\nbackend = \"redis\"\n", `nginx has no Redis port: it runs in memory only`},
	} {
		doc := minimal + "[[scenario.lane]]\n" + c.lane
		cat, err := parse(t, doc, nil)
		if err == nil {
			_, err = cat.Compile("s", Overrides{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.lane, err, c.want)
		}
	}
	// a tier's period is placed at the tier
	doc := minimal + "[[scenario.tier]]\nname = \"free\"\nlimit = 1\nperiod = \"1h\"\n[[scenario.lane]]\nalgorithm = \"nginx\"\n"
	cat, err := parse(t, doc, nil)
	if err == nil {
		_, err = cat.Compile("s", Overrides{})
	}
	if err == nil || !strings.Contains(err.Error(), `lane "nginx": tier "free": nginx's limit_req_zone takes a rate per second or per minute only`) {
		t.Errorf("a tier at 1 per hour: %v", err)
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
			"test.toml:15:10: scenario \"s\": lane \"envoy-global\": tier \"gold\": period 2s is not a unit"},
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
