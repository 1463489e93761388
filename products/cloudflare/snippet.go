package cloudflare

import (
	"fmt"
	"strings"
	"time"

	"ratelab/products"
)

// ruleJSON writes l as a rate limiting rule's JSON (the Rulesets API's
// rule of the http_ratelimit phase), on every request (expression true),
// counted per data centre and the characteristics of the key: ip.src,
// http.request.uri.path, http.request.method, and the header x-user for user.
func ruleJSON(l Limit, key string) ([]string, bool) {
	chars := []string{`"cf.colo.id"`}
	ok := true
	for _, part := range strings.Split(key, "+") {
		switch strings.TrimSpace(part) {
		case "ip", "host":
			chars = append(chars, `"ip.src"`)
		case "path":
			chars = append(chars, `"http.request.uri.path"`)
		case "method":
			chars = append(chars, `"http.request.method"`)
		case "user":
			chars = append(chars, `"http.request.headers[\"x-user\"]"`)
		default:
			ok = false
			chars = append(chars, `"KEY"`)
		}
	}
	lines := []string{"{", fmt.Sprintf("  \"description\": %q,", l.Rule), `  "expression": "true",`, `  "action": "block",`}
	if l.Status != 0 && l.Status != 429 {
		lines = append(lines, fmt.Sprintf(`  "action_parameters": {"response": {"status_code": %d}},`, l.Status))
	}
	return append(lines, `  "ratelimit": {`,
		"    \"characteristics\": ["+strings.Join(chars, ", ")+"],",
		fmt.Sprintf("    \"period\": %d,", l.Period/time.Second),
		fmt.Sprintf("    \"requests_per_period\": %d,", l.RequestsPerPeriod),
		fmt.Sprintf("    \"mitigation_timeout\": %d", l.MitigationTimeout/time.Second),
		"  }", "}"), ok
}

// write writes the recommendation: the rule's ratelimit, with its
// mitigation_timeout (0: throttle).
func write(b *strings.Builder, s products.Snippet) {
	res := s.Policy
	ls, ok := ruleJSON(Limit{Rule: "ratelab", Period: res.Period, RequestsPerPeriod: res.Limit,
		MitigationTimeout: s.Options.MitigationTimeout, Status: 429}, s.TraceKey)
	why := "mitigation_timeout 0 blocks only the requests over the rate, which needs the Enterprise plan for block; a timeout blocks every request of the key for that long"
	s.Heading(b, why, "A rule of the zone's http_ratelimit phase (Rulesets API)")
	products.Lines(b, ls)
	s.NoKey(b, ok, "KEY", "characteristic")
}
