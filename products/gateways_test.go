package products

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

// springYAML is an application.yml with two routes' RequestRateLimiter, as
// Spring Cloud Gateway's docs write it.
const springYAML = `spring:
  cloud:
    gateway:
      routes:
      - id: requestratelimiter_route
        uri: https://example.org
        predicates:
        - Path=/api/**
        filters:
        - name: RequestRateLimiter
          args:
            redis-rate-limiter.replenishRate: 10
            redis-rate-limiter.burstCapacity: 20
            redis-rate-limiter.requestedTokens: 1
      - id: slow
        uri: https://example.org
        filters:
        - StripPrefix=1
        - name: RequestRateLimiter
          args:
            key-resolver: "#{@userKeyResolver}"
            redis-rate-limiter:
              replenish-rate: 1
              burst-capacity: 60
              requested-tokens: 60
`

// traefikYAML is Traefik's dynamic configuration with two rateLimit
// middlewares.
const traefikYAML = `http:
  routers:
    api:
      rule: PathPrefix(` + "`/api`" + `)
      middlewares: [api-ratelimit]
      service: api
  middlewares:
    api-ratelimit:
      rateLimit:
        average: 100
        period: 1s
        burst: 200
    per-minute:
      rateLimit:
        average: 6
        period: 1m
        sourceCriterion:
          requestHeaderName: X-Api-Key
    off:
      rateLimit:
        burst: 5
`

// kongYAML is a declarative kong.yml with the plugin on a service and at the
// top.
const kongYAML = `_format_version: "3.0"
services:
- name: api
  url: http://upstream:8080
  plugins:
  - name: rate-limiting
    config:
      minute: 6
      hour: 100
      policy: redis
      limit_by: ip
      error_code: 503
      redis:
        host: redis
plugins:
- name: rate-limiting
  config:
    second: 5
    policy: local
`

func TestSpringConfigs(t *testing.T) {
	for _, c := range []confCase{
		{name: "routes", files: map[string]string{"application.yml": springYAML}, main: "application.yml",
			lanes: `route requestratelimiter_route @application.yml:10
  application.yml:10 key=PrincipalNameKeyResolver (the user's principal)→user replenish=10 burst=20 requested=1
route slow @application.yml:19
  application.yml:19 key=key-resolver #{@userKeyResolver}→? replenish=1 burst=60 requested=60`,
			warns: []string{"application.yml:21: key-resolver"}},
		{name: "no replenishRate", main: "a.yml", files: map[string]string{"a.yml": "spring:\n  cloud:\n    gateway:\n      routes:\n      - id: r\n        filters:\n        - name: RequestRateLimiter\n          args:\n            redis-rate-limiter.burstCapacity: 2\n"},
			err: "a.yml:8: RequestRateLimiter has no redis-rate-limiter.replenishRate"},
		{name: "statusCode", main: "a.yml", files: map[string]string{"a.yml": "spring:\n  cloud:\n    gateway:\n      routes:\n      - id: r\n        filters:\n        - name: RequestRateLimiter\n          args:\n            redis-rate-limiter.replenishRate: 1\n            statusCode: service-unavailable\n"},
			lanes: "route r @a.yml:7\n  a.yml:7 key=PrincipalNameKeyResolver (the user's principal)→user replenish=1 burst=1 requested=1 status=503"},
		{name: "statusCode a number", main: "a.yml", files: map[string]string{"a.yml": "spring:\n  cloud:\n    gateway:\n      routes:\n      - id: r\n        filters:\n        - name: RequestRateLimiter\n          args:\n            redis-rate-limiter.replenishRate: 1\n            status-code: 503\n"},
			err: "a.yml:10: statusCode must name an HttpStatus from 400 to 599, as Spring binds it (by name: TOO_MANY_REQUESTS, SERVICE_UNAVAILABLE); it is \"503\""},
		{name: "the shortcut", main: "a.yml", files: map[string]string{"a.yml": "spring:\n  cloud:\n    gateway:\n      routes:\n      - id: r\n        filters:\n        - RequestRateLimiter=10, 20\n"},
			err: "a.yml:7: RequestRateLimiter has no shortcut form"},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, Spring) })
	}
}

func TestTraefikConfigs(t *testing.T) {
	for _, c := range []confCase{
		{name: "middlewares", files: map[string]string{"dynamic.yml": traefikYAML}, main: "dynamic.yml",
			lanes: `middleware api-ratelimit @dynamic.yml:8
  dynamic.yml:9 key=the remote address→ip average=100/1s burst=200
middleware per-minute @dynamic.yml:13
  dynamic.yml:14 key=header X-Api-Key→? average=6/1m0s burst=1`,
			warns: []string{"dynamic.yml:18: requestHeaderName", "dynamic.yml:20: average is 0"}},
		{name: "TOML", main: "dynamic.toml", files: map[string]string{"dynamic.toml": `# Traefik's dynamic configuration
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
			lanes: `middleware test-ratelimit @dynamic.toml:3
  dynamic.toml:3 key=the request's host→? average=100/1m0s burst=50
middleware other @dynamic.toml:9
  dynamic.toml:9 key=the remote address→ip average=5/1s burst=1`,
			warns: []string{"dynamic.toml:8: requestHost"}},
		{name: "redis", main: "d.yml", files: map[string]string{"d.yml": "http:\n  middlewares:\n    shared:\n      rateLimit:\n        average: 3\n        redis:\n          endpoints: [\"redis:6379\"]\n"},
			lanes: "middleware shared @d.yml:3\n  d.yml:4 key=the remote address→ip average=3/1s burst=1 redis"},
		{name: "redis null", main: "d.yml", files: map[string]string{"d.yml": "http:\n  middlewares:\n    shared:\n      rateLimit:\n        average: 3\n        redis: ~\n"},
			lanes: "middleware shared @d.yml:3\n  d.yml:4 key=the remote address→ip average=3/1s burst=1"},
		{name: "redis not a mapping", main: "d.yml", files: map[string]string{"d.yml": "http:\n  middlewares:\n    shared:\n      rateLimit:\n        average: 3\n        redis: garbage\n"},
			err: "d.yml:6: redis must be a mapping of endpoints"},
		{name: "redis with a field Traefik has not", main: "d.yml", files: map[string]string{"d.yml": "http:\n  middlewares:\n    shared:\n      rateLimit:\n        average: 3\n        redis:\n          bogus: 3\n"},
			err: `d.yml:7: redis has no field "bogus"`},
		{name: "TOML twice", main: "d.toml", files: map[string]string{"d.toml": "[http.middlewares.m.rateLimit]\naverage = 1\naverage = 2\n"},
			err: `d.toml:3: "average" is given twice`},
		{name: "not TOML", main: "d.toml", files: map[string]string{"d.toml": "[http.middlewares.m.rateLimit]\naverage = 1\nburst = = 2\n"},
			err: "d.toml:3: not valid TOML"},
		{name: "a bad period", main: "d.yml", files: map[string]string{"d.yml": "http:\n  middlewares:\n    m:\n      rateLimit:\n        average: 1\n        period: soon\n"},
			err: "d.yml:6: period must be a duration"},
		// Traefik runs a period of 0 as a second and refuses a negative one
		// (rate_limiter.go at fd5a576d, New: if period < 0 { return … }; if
		// period == 0 { period = time.Second }), before it looks at the average
		{name: "period 0", main: "d.yml", files: map[string]string{"d.yml": "http:\n  middlewares:\n    m:\n      rateLimit:\n        average: 5\n        period: 0\n"},
			lanes: "middleware m @d.yml:3\n  d.yml:4 key=the remote address→ip average=5/1s burst=1",
			warns: []string{"d.yml:6: period 0 is a second to Traefik"}},
		{name: "period 0s", main: "d.yml", files: map[string]string{"d.yml": "http:\n  middlewares:\n    m:\n      rateLimit:\n        average: 5\n        period: 0s\n        burst: 10\n"},
			lanes: "middleware m @d.yml:3\n  d.yml:4 key=the remote address→ip average=5/1s burst=10",
			warns: []string{"d.yml:6: period 0s is a second to Traefik"}},
		{name: "period 0 in TOML", main: "d.toml", files: map[string]string{"d.toml": "[http.middlewares.m.rateLimit]\naverage = 5\nperiod = 0\n"},
			lanes: "middleware m @d.toml:1\n  d.toml:1 key=the remote address→ip average=5/1s burst=1",
			warns: []string{"d.toml:3: period 0 is a second to Traefik"}},
		{name: "a negative period", main: "d.yml", files: map[string]string{"d.yml": "http:\n  middlewares:\n    m:\n      rateLimit:\n        average: 5\n        period: -1s\n"},
			err: "d.yml:6: period -1s is negative, which Traefik refuses"},
		{name: "a negative period, no average", main: "d.yml", files: map[string]string{"d.yml": "http:\n  middlewares:\n    m:\n      rateLimit:\n        period: -2\n"},
			err: "d.yml:5: period -2 is negative, which Traefik refuses"},
		// an average of 0 or less leaves Traefik's rate at rate.Inf: no limit
		{name: "a negative average", main: "d.yml", files: map[string]string{"d.yml": "http:\n  middlewares:\n    m:\n      rateLimit:\n        average: -5\n        burst: 3\n"},
			warns: []string{"d.yml:5: average -5: Traefik limits nothing"}},
		{name: "a field Traefik has not", main: "d.yml", files: map[string]string{"d.yml": "http:\n  middlewares:\n    m:\n      rateLimit:\n        average: 1\n        limit: 3\n"},
			err: `d.yml:6: rateLimit has no field "limit"`},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, Traefik) })
	}
}

func TestKongConfigs(t *testing.T) {
	for _, c := range []confCase{
		{name: "a service's and the global", files: map[string]string{"kong.yml": kongYAML}, main: "kong.yml",
			lanes: `service api rate-limiting @kong.yml:6
  kong.yml:7 key=ip→ip minute=6 hour=100 policy=redis status=503
rate-limiting @kong.yml:16
  kong.yml:17 key=consumer→user second=5 policy=local status=429`,
			warns: []string{"kong.yml:6: the plugin holds the requests of its service api"}},
		{name: "a longer window's limit below a shorter one's", main: "k.yml", files: map[string]string{"k.yml": "plugins:\n- name: rate-limiting\n  config:\n    minute: 60\n    hour: 10\n"},
			err: "k.yml:5: the limit for hour (10) is lower than the limit for minute (60)"},
		{name: "no limit", main: "k.yml", files: map[string]string{"k.yml": "plugins:\n- name: rate-limiting\n  config:\n    policy: local\n"},
			err: "k.yml:3: the plugin sets no limit"},
		{name: "a policy Kong has not", main: "k.yml", files: map[string]string{"k.yml": "plugins:\n- name: rate-limiting\n  config:\n    second: 1\n    policy: memcached\n"},
			err: `k.yml:5: policy "memcached" is not one of Kong's`},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, Kong) })
	}
}

// The gateways' lanes run with the file's parameters.
func TestGatewaysRatelab(t *testing.T) {
	for _, c := range []struct {
		data string
		p    *Info
		want []RatelabLimit
	}{
		{springYAML, Spring, []RatelabLimit{
			{Algorithm: algorithms.SpringName, Policy: algorithms.Policy{Limit: 10, Period: time.Second, Burst: 20}},
			{Algorithm: algorithms.SpringName, Policy: algorithms.Policy{Limit: 1, Period: time.Minute, Burst: 1}}}},
		{traefikYAML, Traefik, []RatelabLimit{
			{Algorithm: algorithms.TraefikName, Policy: algorithms.Policy{Limit: 100, Period: time.Second, Burst: 200}},
			{Algorithm: algorithms.TraefikName, Policy: algorithms.Policy{Limit: 6, Period: time.Minute, Burst: 1}}}},
		{kongYAML, Kong, []RatelabLimit{
			{Algorithm: algorithms.KongName, Policy: algorithms.Policy{Limit: 6, Period: time.Minute},
				Options: algorithms.Options{KongPolicy: algorithms.KongRedis, KongWindows: algorithms.KongWindows{algorithms.KongHour: 100}, DenyStatus: 503}},
			{Algorithm: algorithms.KongName, Policy: algorithms.Policy{Limit: 5, Period: time.Second}}}},
	} {
		if got, _ := Detect([]byte(c.data)); got != c.p {
			t.Errorf("%v: Detect = %v", c.p, got)
		}
		cfg, err := Read("f.yml", []byte(c.data), Options{})
		if err != nil {
			t.Fatal(err)
		}
		lanes, _ := cfg.Ratelab("ip")
		if len(lanes) != len(c.want) {
			t.Fatalf("%v: %d lanes, want %d", c.p, len(lanes), len(c.want))
		}
		for i, l := range lanes {
			m := l.Limits[0]
			if m.Algorithm != c.want[i].Algorithm || m.Policy.WithDefaults() != c.want[i].Policy.WithDefaults() || m.Options != c.want[i].Options {
				t.Errorf("%v lane %d: %s %+v %+v, want %+v %+v", c.p, i, m.Algorithm, m.Policy, m.Options, c.want[i].Policy, c.want[i].Options)
			}
			if _, err := algorithms.New(m.Algorithm, m.Policy, m.Options); err != nil {
				t.Errorf("%v lane %d: %v", c.p, i, err)
			}
		}
	}
}

// No input makes the gateway readers panic, hang or answer without a place.
func FuzzGatewayConfig(f *testing.F) {
	for _, seed := range []string{springYAML, traefikYAML, kongYAML, "", "spring: {cloud: {gateway: {routes: 3}}}", "http: {middlewares: {m: {rateLimit: {}}}}", "plugins: [{name: rate-limiting, config: {}}]", "[http.middlewares.m.rateLimit]\naverage = 1\n[[http.x]]\na = [1, {b = 2}]\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, conf string) {
		for _, p := range []*Info{Spring, Traefik, Kong} {
			c, err := Read("g.yml", []byte(conf), Options{Product: p})
			checkConfig(t, p, c, err)
			if err == nil {
				c.Ratelab("ip")
			}
		}
	})
}

// A rateLimit with redis is the Redis mode's lane (traefik-redis); without,
// the in-memory middleware's.
func TestTraefikRedisRatelab(t *testing.T) {
	c, err := Read("d.yml", []byte("http:\n  middlewares:\n    shared:\n      rateLimit:\n        average: 3\n        redis:\n          endpoints: [\"redis:6379\"]\n    local:\n      rateLimit:\n        average: 3\n"), Options{Product: Traefik})
	if err != nil {
		t.Fatal(err)
	}
	lanes, _ := c.Ratelab("ip")
	if len(lanes) != 2 || lanes[0].Limits[0].Algorithm != algorithms.TraefikRedisName || lanes[1].Limits[0].Algorithm != algorithms.TraefikName {
		t.Errorf("lanes %+v, want traefik-redis then traefik", lanes)
	}
}
