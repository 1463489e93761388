package traefik

import (
	"fmt"
	"strings"
	"time"

	"ratelab/products"
)

// middlewareYAML writes l as a rateLimit middleware of Traefik's dynamic
// configuration: keyed by the remote address (its default) for ip, by the
// header x-user for user; Traefik has no criterion for a path or a method.
func middlewareYAML(l Limit, key string) ([]string, bool) {
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

// write writes the recommendation: a rateLimit middleware, to attach to the
// router.
func write(b *strings.Builder, s products.Snippet) {
	res := s.Policy
	ls, ok := middlewareYAML(Limit{Middleware: "ratelab", Average: res.Limit, Period: res.Period, Burst: res.Burst}, s.TraceKey)
	s.Heading(b, "average a period, burst; a request waits rather than be refused when its token is due within 1/(2 × the rate a second)",
		"In the dynamic configuration, with the middleware on the router")
	products.Lines(b, ls)
	s.NoKey(b, ok, "KEY", "source criterion")
}
