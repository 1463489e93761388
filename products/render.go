package products

import (
	"fmt"
	"strings"
	"time"
)

// The other way: a limit written in the product's own syntax, to paste into a
// configuration (ratelab tune's recommendation), which Read reads back to the
// same parameters.

// SpringMaxBurstCapacity is the largest burstCapacity RedisRateLimiter takes
// (a long, checked against the script's REDIS_LUA_MAX_SAFE_INTEGER, 2^53 − 1).
const SpringMaxBurstCapacity = 1<<53 - 1

// The YAML and JSON products' snippets: each writes a whole document Read
// reads back (by its content, or with the product named) to one lane of one
// limit with the given parameters. key is the trace's key ("ip", "user",
// "path", "method", several joined by "+"); false when the product has no way
// to key a limit by one of its fields, and then the snippet holds a
// placeholder (KEY) to replace.

// TraefikYAML writes l as a rateLimit middleware of Traefik's dynamic
// configuration: keyed by the remote address (its default) for ip, by the
// header x-user for user; Traefik has no criterion for a path or a method.
func TraefikYAML(l TraefikLimit, key string) ([]string, bool) {
	lines := []string{"http:", "  middlewares:", "    " + l.Middleware + ":", "      rateLimit:",
		fmt.Sprintf("        average: %d", l.Average), "        period: " + goDuration(l.Period), fmt.Sprintf("        burst: %d", l.Burst)}
	switch strings.TrimSpace(key) {
	case "ip", "host":
		return lines, true
	case "user":
		return append(lines, "        sourceCriterion:", "          requestHeaderName: X-User"), true
	}
	return append(lines, "        sourceCriterion:", "          requestHeaderName: KEY"), false
}

// goDuration writes a duration as Go's time.ParseDuration reads it, in the
// largest unit that writes it whole: 1h, 10s, 1500ms.
func goDuration(d time.Duration) string {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}} {
		if d >= u.d && d%u.d == 0 {
			return fmt.Sprintf("%d%s", d/u.d, u.name)
		}
	}
	return fmt.Sprintf("%dus", d/time.Microsecond)
}

// KongWindow is the rate-limiting plugin's window for a period (second,
// minute, hour, day), and false for another.
func KongWindow(period time.Duration) (int, bool) {
	for w, d := range []time.Duration{time.Second, time.Minute, time.Hour, 24 * time.Hour} {
		if d == period {
			return w, true
		}
	}
	return 0, false
}

// KongYAML writes l as a declarative configuration's rate-limiting plugin, on
// every service (at the top): its windows, its policy, its error_code when it
// is not 429, and limit_by ip for ip, consumer (Kong's default) for user;
// Kong's limit_by path is one path, not a count per path.
func KongYAML(l KongLimit, key string) ([]string, bool) {
	lines := []string{`_format_version: "3.0"`, "plugins:", "  - name: rate-limiting", "    config:"}
	for w, n := range l.Windows {
		if n > 0 {
			lines = append(lines, fmt.Sprintf("      %s: %d", kongWindows[w], n))
		}
	}
	lines = append(lines, "      policy: "+l.Policy)
	if l.Status != 0 && l.Status != 429 {
		lines = append(lines, fmt.Sprintf("      error_code: %d", l.Status))
	}
	switch strings.TrimSpace(key) {
	case "ip", "host":
		return append(lines, "      limit_by: ip"), true
	case "user":
		return append(lines, "      limit_by: consumer"), true
	}
	return append(lines, "      limit_by: header", "      header_name: KEY"), false
}

// SpringYAML writes l as a route of an application.yml (Spring Cloud Gateway
// 4.3 and later: spring.cloud.gateway.server.webflux; before,
// spring.cloud.gateway) with its RequestRateLimiter filter: keyed by the
// principal (Spring's default resolver) for user, by a KeyResolver bean named
// remoteAddrKeyResolver for ip, by one to write for the others. The route's
// uri and predicates are the application's.
func SpringYAML(l SpringLimit, key string) ([]string, bool) {
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

// writeSpring: replenishRate the limit, requestedTokens the period's seconds
// (Spring's rate is whole tokens a second), burstCapacity the burst's tokens.
func writeSpring(b *strings.Builder, s Snippet) {
	res := s.Policy
	k := int64(res.Period / time.Second)
	ls, ok := SpringYAML(SpringLimit{Route: "ratelab", ReplenishRate: res.Limit, BurstCapacity: res.Burst * k, RequestedTokens: k}, s.TraceKey)
	why := fmt.Sprintf("replenishRate tokens a second, requestedTokens %d a request: replenishRate requests every %d s; burstCapacity the burst's requests × %d", k, k, k)
	if strings.TrimSpace(s.TraceKey) == "ip" {
		why += "; remoteAddrKeyResolver is a KeyResolver bean: exchange -> Mono.just(exchange.getRequest().getRemoteAddress().getAddress().getHostAddress())"
	}
	s.Heading(b, why, "In application.yml (before Spring Cloud Gateway 4.3, under spring.cloud.gateway), on the route to limit")
	Lines(b, ls)
	s.NoKey(b, ok, "keyResolver", "key resolver")
}

// writeTraefik: a rateLimit middleware, to attach to the router.
func writeTraefik(b *strings.Builder, s Snippet) {
	res := s.Policy
	ls, ok := TraefikYAML(TraefikLimit{Middleware: "ratelab", Average: res.Limit, Period: res.Period, Burst: res.Burst}, s.TraceKey)
	s.Heading(b, "average a period, burst; a request waits rather than be refused when its token is due within 1/(2 × the rate a second)",
		"In the dynamic configuration, with the middleware on the router")
	Lines(b, ls)
	s.NoKey(b, ok, "KEY", "source criterion")
}

// writeKong: the plugin with one window.
func writeKong(b *strings.Builder, s Snippet) {
	res := s.Policy
	l := KongLimit{Policy: "local", Status: 429}
	w, _ := KongWindow(res.Period)
	l.Windows[w] = res.Limit
	ls, ok := KongYAML(l, s.TraceKey)
	s.Heading(b, "one window; policy local counts on each node, not the refused requests", "In the declarative configuration (kong.yml)")
	Lines(b, ls)
	s.NoKey(b, ok, "KEY", "limit_by")
}
