package spring

import (
	"fmt"
	"strings"
	"time"

	"ratelab/products"
)

// routeYAML writes l as a route of an application.yml (Spring Cloud Gateway
// 4.3 and later: spring.cloud.gateway.server.webflux; before,
// spring.cloud.gateway) with its RequestRateLimiter filter: keyed by the
// principal (Spring's default resolver) for user, by a KeyResolver bean named
// remoteAddrKeyResolver for ip, by one to write for the others. The route's
// uri and predicates are the application's.
func routeYAML(l Limit, key string) ([]string, bool) {
	lines := []string{"spring:", "  cloud:", "    gateway:", "      server:", "        webflux:", "          routes:",
		"            - id: " + l.Route, "              uri: http://localhost:8080", "              predicates:", "                - Path=/**",
		"              filters:", "                - name: RequestRateLimiter", "                  args:",
		fmt.Sprintf("                    redis-rate-limiter.replenishRate: %d", l.ReplenishRate),
		fmt.Sprintf("                    redis-rate-limiter.burstCapacity: %d", l.BurstCapacity),
		fmt.Sprintf("                    redis-rate-limiter.requestedTokens: %d", l.RequestedTokens)}
	switch strings.TrimSpace(key) {
	case "user":
		return lines, true
	case "ip", "host":
		return append(lines, `                    key-resolver: "#{@remoteAddrKeyResolver}"`), true
	}
	return append(lines, `                    key-resolver: "#{@keyResolver}"`), false
}

// write writes the recommendation: replenishRate the limit, requestedTokens
// the period's seconds (Spring's rate is whole tokens a second), burstCapacity
// the burst's tokens.
func write(b *strings.Builder, s products.Snippet) {
	res := s.Policy
	k := int64(res.Period / time.Second)
	ls, ok := routeYAML(Limit{Route: "ratelab", ReplenishRate: res.Limit, BurstCapacity: res.Burst * k, RequestedTokens: k}, s.TraceKey)
	why := fmt.Sprintf("replenishRate tokens a second, requestedTokens %d a request: replenishRate requests every %d s; burstCapacity the burst's requests × %d", k, k, k)
	if strings.TrimSpace(s.TraceKey) == "ip" {
		why += "; remoteAddrKeyResolver is a KeyResolver bean: exchange -> Mono.just(exchange.getRequest().getRemoteAddress().getAddress().getHostAddress())"
	}
	s.Heading(b, why, "In application.yml (before Spring Cloud Gateway 4.3, under spring.cloud.gateway), on the route to limit")
	products.Lines(b, ls)
	s.NoKey(b, ok, "keyResolver", "key resolver")
}
