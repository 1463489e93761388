package traefik

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// traefikYAML is Traefik"s dynamic configuration with two rateLimit
// middlewares.
var traefikYAML = configtest.Testdata("dynamic.yml")

func TestTraefikConfigs(t *testing.T) {
	configtest.CheckCases(t, Info, []configtest.Case{
		{Name: "middlewares", Files: map[string]string{"dynamic.yml": traefikYAML}, Main: "dynamic.yml",
			Lanes: `middleware api-ratelimit @dynamic.yml:8
  dynamic.yml:9 key=the remote address→ip average=100/1s burst=200
middleware per-minute @dynamic.yml:13
  dynamic.yml:14 key=header X-Api-Key→? average=6/1m0s burst=1`,
			Warns: []string{"dynamic.yml:18: requestHeaderName", "dynamic.yml:20: average is 0"}},
		{Name: "TOML", Main: "dynamic.toml", Files: map[string]string{"dynamic.toml": `# Info's dynamic configuration
[http.middlewares]
  [http.middlewares.test-ratelimit.rateLimit]
    average = 100
    burst = 50
    period = "1m"
    [http.middlewares.test-ratelimit.rateLimit.sourceCriterion]
      requestHost = true
  [http.middlewares.other.rateLimit]
    average = 5
`},
			Lanes: `middleware test-ratelimit @dynamic.toml:3
  dynamic.toml:3 key=the request's host→? average=100/1m0s burst=50
middleware other @dynamic.toml:9
  dynamic.toml:9 key=the remote address→ip average=5/1s burst=1`,
			Warns: []string{"dynamic.toml:8: requestHost"}},
		{Name: "redis", Main: "d.yml", Files: map[string]string{"d.yml": "http:\n  middlewares:\n    shared:\n      rateLimit:\n        average: 3\n        redis:\n          endpoints: [\"redis:6379\"]\n"},
			Lanes: "middleware shared @d.yml:3\n  d.yml:4 key=the remote address→ip average=3/1s burst=1 redis"},
		{Name: "redis null", Main: "d.yml", Files: map[string]string{"d.yml": "http:\n  middlewares:\n    shared:\n      rateLimit:\n        average: 3\n        redis: ~\n"},
			Lanes: "middleware shared @d.yml:3\n  d.yml:4 key=the remote address→ip average=3/1s burst=1"},
		{Name: "redis not a mapping", Main: "d.yml", Files: map[string]string{"d.yml": "http:\n  middlewares:\n    shared:\n      rateLimit:\n        average: 3\n        redis: garbage\n"},
			Err: "d.yml:6: redis must be a mapping of endpoints"},
		{Name: "redis with a field Traefik has not", Main: "d.yml", Files: map[string]string{"d.yml": "http:\n  middlewares:\n    shared:\n      rateLimit:\n        average: 3\n        redis:\n          bogus: 3\n"},
			Err: `d.yml:7: redis has no field "bogus"`},
		{Name: "TOML twice", Main: "d.toml", Files: map[string]string{"d.toml": "[http.middlewares.m.rateLimit]\naverage = 1\naverage = 2\n"},
			Err: `d.toml:3: "average" is given twice`},
		{Name: "not TOML", Main: "d.toml", Files: map[string]string{"d.toml": "[http.middlewares.m.rateLimit]\naverage = 1\nburst = = 2\n"},
			Err: "d.toml:3: not valid TOML"},
		{Name: "a bad period", Main: "d.yml", Files: map[string]string{"d.yml": "http:\n  middlewares:\n    m:\n      rateLimit:\n        average: 1\n        period: soon\n"},
			Err: "d.yml:6: period must be a duration"},
		// Traefik runs a period of 0 as a second and refuses a negative one
		// (rate_limiter.go at fd5a576d, New: if period < 0 { return … }; if
		// period == 0 { period = time.Second }), before it looks at the average
		{Name: "period 0", Main: "d.yml", Files: map[string]string{"d.yml": "http:\n  middlewares:\n    m:\n      rateLimit:\n        average: 5\n        period: 0\n"},
			Lanes: "middleware m @d.yml:3\n  d.yml:4 key=the remote address→ip average=5/1s burst=1",
			Warns: []string{"d.yml:6: period 0 is a second to Traefik"}},
		{Name: "period 0s", Main: "d.yml", Files: map[string]string{"d.yml": "http:\n  middlewares:\n    m:\n      rateLimit:\n        average: 5\n        period: 0s\n        burst: 10\n"},
			Lanes: "middleware m @d.yml:3\n  d.yml:4 key=the remote address→ip average=5/1s burst=10",
			Warns: []string{"d.yml:6: period 0s is a second to Traefik"}},
		{Name: "period 0 in TOML", Main: "d.toml", Files: map[string]string{"d.toml": "[http.middlewares.m.rateLimit]\naverage = 5\nperiod = 0\n"},
			Lanes: "middleware m @d.toml:1\n  d.toml:1 key=the remote address→ip average=5/1s burst=1",
			Warns: []string{"d.toml:3: period 0 is a second to Traefik"}},
		{Name: "a negative period", Main: "d.yml", Files: map[string]string{"d.yml": "http:\n  middlewares:\n    m:\n      rateLimit:\n        average: 5\n        period: -1s\n"},
			Err: "d.yml:6: period -1s is negative, which Traefik refuses"},
		{Name: "a negative period, no average", Main: "d.yml", Files: map[string]string{"d.yml": "http:\n  middlewares:\n    m:\n      rateLimit:\n        period: -2\n"},
			Err: "d.yml:5: period -2 is negative, which Traefik refuses"},
		// an average of 0 or less leaves Traefik's rate at rate.Inf: no limit
		{Name: "a negative average", Main: "d.yml", Files: map[string]string{"d.yml": "http:\n  middlewares:\n    m:\n      rateLimit:\n        average: -5\n        burst: 3\n"},
			Warns: []string{"d.yml:5: average -5: Traefik limits nothing"}},
		{Name: "a field Traefik has not", Main: "d.yml", Files: map[string]string{"d.yml": "http:\n  middlewares:\n    m:\n      rateLimit:\n        average: 1\n        limit: 3\n"},
			Err: `d.yml:6: rateLimit has no field "limit"`},
	})
}

// The lanes run with the file's parameters.
func TestLanes(t *testing.T) {
	configtest.CheckLaneLimits(t, Info, traefikYAML,
		products.RatelabLimit{Algorithm: algorithms.TraefikName, Policy: algorithms.Policy{Limit: 100, Period: time.Second, Burst: 200}},
		products.RatelabLimit{Algorithm: algorithms.TraefikName, Policy: algorithms.Policy{Limit: 6, Period: time.Minute, Burst: 1}})
}

// A rateLimit with redis is the Redis mode's lane (traefik-redis); without,
// the in-memory middleware's.
func TestTraefikRedisRatelab(t *testing.T) {
	c := configtest.MustRead(t, Info, "d.yml", "http:\n  middlewares:\n    shared:\n      rateLimit:\n        average: 3\n        redis:\n          endpoints: [\"redis:6379\"]\n    local:\n      rateLimit:\n        average: 3\n", true)
	lanes, _ := c.Ratelab("ip")
	if len(lanes) != 2 || lanes[0].Limits[0].Algorithm != algorithms.TraefikRedisName || lanes[1].Limits[0].Algorithm != algorithms.TraefikName {
		t.Errorf("lanes %+v, want traefik-redis then traefik", lanes)
	}
}
