package apigateway

import (
	"fmt"
	"strings"

	"ratelab/products"
)

// usagePlanJSON writes l as a usage plan's JSON (aws apigateway
// create-usage-plan --cli-input-json): its name and throttle,
// rateLimit in requests a second (RateMilli thousandths) and burstLimit,
// which API Gateway holds each API key of the plan to.
func usagePlanJSON(l Limit, name string) []string {
	rate := fmt.Sprintf("%d.%03d", l.RateMilli/1000, l.RateMilli%1000)
	rate = strings.TrimSuffix(strings.TrimRight(rate, "0"), ".")
	return []string{"{", fmt.Sprintf("  \"name\": %q,", name), `  "throttle": {`,
		fmt.Sprintf("    \"rateLimit\": %s,", rate), fmt.Sprintf("    \"burstLimit\": %d", l.Burst), "  }", "}"}
}

// write writes the recommendation: a usage plan's throttle, per API key.
func write(b *strings.Builder, s products.Snippet) {
	res := s.Policy
	ls := usagePlanJSON(Limit{RateMilli: res.Limit * 1000, Burst: res.Burst}, "ratelab")
	s.Heading(b, "rateLimit requests a second, burstLimit the bucket; a usage plan holds each API key to it, so each client needs a key (a stage's throttle would hold every client together)",
		"A usage plan (aws apigateway create-usage-plan --cli-input-json)")
	products.Lines(b, ls)
	if k := strings.TrimSpace(s.TraceKey); k != "user" && k != "key" {
		// a usage plan keys by API key, which a client holds: a user is one, a
		// field of the request (path, method, an address) is not
		fmt.Fprintf(b, "\n(%s keys a usage plan by API key, which each client holds; the log's %s is not one: issue a key per %s, or limit by the client that holds the key.)\n", s.Product, k, k)
	}
}
