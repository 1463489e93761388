package spring

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products/internal/configtest"
)

// Spring's reader shows an application.yml's text as escapes where it puts
// names and values (a route's id, a key-resolver, a statusCode), reads its
// sample the same when it begins with a byte-order mark (no note: SnakeYAML
// takes it as one), and reads back what its snippet writes: a route's
// RequestRateLimiter of the same replenishRate, burstCapacity and
// requestedTokens, keyed by the principal (configtest.Checks).
func TestChecks(t *testing.T) {
	configtest.Checks{
		Escapes: []configtest.Escapes{
			{Name: "spring route, key-resolver", Text: configtest.YAML(`spring:
  cloud:
    gateway:
      routes:
      - id: "P"
        filters:
        - name: RequestRateLimiter
          args:
            key-resolver: "P"
            redis-rate-limiter.replenishRate: 10
            redis-rate-limiter.burstCapacity: 20
`), InLane: true, InNote: true, InLimitName: true},
			{Name: "spring status", Text: configtest.YAML(`spring:
  cloud:
    gateway:
      routes:
      - id: r
        filters:
        - name: RequestRateLimiter
          args:
            statusCode: "P"
            redis-rate-limiter.replenishRate: 10
`), InError: true},
		},
		Marked: map[string]string{"application.yml": springYAML},
		ReadBack: []configtest.ReadBack{
			{Wrote: configtest.Wrote(routeYAML(Limit{Route: "ratelab", ReplenishRate: 22, BurstCapacity: 29 * 60, RequestedTokens: 60}, "user")),
				Want: &Limit{Route: "route ratelab", ReplenishRate: 22, BurstCapacity: 29 * 60, RequestedTokens: 60, Status: 429}, Policy: algorithms.Policy{Limit: 22, Period: time.Minute, Burst: 29}, Trace: "user"},
			{Wrote: configtest.Wrote(routeYAML(Limit{Route: "r", ReplenishRate: 10, BurstCapacity: 20, RequestedTokens: 1}, "ip")),
				Want: &Limit{Route: "route r", ReplenishRate: 10, BurstCapacity: 20, RequestedTokens: 1, Status: 429}, Policy: algorithms.Policy{Limit: 10, Period: time.Second, Burst: 20}, Trace: ""},
		},
	}.Run(t, Info)
}

// No input makes the application.yml's reader panic, hang or answer without a
// place.
func FuzzSpringConfig(f *testing.F) {
	configtest.Fuzz(f, Info, []string{springYAML, "", "spring: {cloud: {gateway: {routes: 3}}}"}, configtest.Is[*Limit])
}
