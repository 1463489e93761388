package spring

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// springYAML is an application.yml with two routes" RequestRateLimiter, as
// Spring Cloud Gateway"s docs write it.
var springYAML = configtest.Testdata("application.yml")

func TestSpringConfigs(t *testing.T) {
	configtest.CheckCases(t, Info, []configtest.Case{
		{Name: "routes", Files: map[string]string{"application.yml": springYAML}, Main: "application.yml",
			Lanes: `route requestratelimiter_route @application.yml:10
  application.yml:10 key=PrincipalNameKeyResolver (the user's principal)→user replenish=10 burst=20 requested=1
route slow @application.yml:19
  application.yml:19 key=key-resolver #{@userKeyResolver}→? replenish=1 burst=60 requested=60`,
			Warns: []string{"application.yml:21: key-resolver"}},
		{Name: "no replenishRate", Main: "a.yml", Files: map[string]string{"a.yml": "spring:\n  cloud:\n    gateway:\n      routes:\n      - id: r\n        filters:\n        - name: RequestRateLimiter\n          args:\n            redis-rate-limiter.burstCapacity: 2\n"},
			Err: "a.yml:8: RequestRateLimiter has no redis-rate-limiter.replenishRate"},
		{Name: "statusCode", Main: "a.yml", Files: map[string]string{"a.yml": "spring:\n  cloud:\n    gateway:\n      routes:\n      - id: r\n        filters:\n        - name: RequestRateLimiter\n          args:\n            redis-rate-limiter.replenishRate: 1\n            statusCode: service-unavailable\n"},
			Lanes: "route r @a.yml:7\n  a.yml:7 key=PrincipalNameKeyResolver (the user's principal)→user replenish=1 burst=1 requested=1 status=503"},
		{Name: "statusCode a number", Main: "a.yml", Files: map[string]string{"a.yml": "spring:\n  cloud:\n    gateway:\n      routes:\n      - id: r\n        filters:\n        - name: RequestRateLimiter\n          args:\n            redis-rate-limiter.replenishRate: 1\n            status-code: 503\n"},
			Err: "a.yml:10: statusCode must name an HttpStatus from 400 to 599, as Spring binds it (by name: TOO_MANY_REQUESTS, SERVICE_UNAVAILABLE); it is \"503\""},
		{Name: "the shortcut", Main: "a.yml", Files: map[string]string{"a.yml": "spring:\n  cloud:\n    gateway:\n      routes:\n      - id: r\n        filters:\n        - RequestRateLimiter=10, 20\n"},
			Err: "a.yml:7: RequestRateLimiter has no shortcut form"},
	})
}

// The lanes run with the file's parameters.
func TestLanes(t *testing.T) {
	configtest.CheckLaneLimits(t, Info, springYAML,
		products.RatelabLimit{Algorithm: algorithms.SpringName, Policy: algorithms.Policy{Limit: 10, Period: time.Second, Burst: 20}},
		products.RatelabLimit{Algorithm: algorithms.SpringName, Policy: algorithms.Policy{Limit: 1, Period: time.Minute, Burst: 1}})
}
