package envoy

import (
	"fmt"
	"math"
	"strings"
	"time"

	"ratelab/products"
)

// localYAML writes l as the local rate limit filter of a listener's
// http_filters: per client, a descriptor whose entries have no value (one
// bucket for each value, which the filter's rate_limits actions set from the
// request: remote_address for ip, a request header for the others),
// max_dynamic_descriptors buckets at most (set it above the clients at once:
// beyond it the least recently used bucket is dropped and starts full
// again). The default token_bucket, the same as the descriptor's, holds only
// requests that carry no descriptor (always_consume_default_token_bucket:
// false), so Read's lane is the descriptor's bucket alone.
func localYAML(l LocalLimit, key string, maxDescriptors int64) ([]string, bool) {
	actions, entries, ok := descriptorOf(key)
	bucket := fmt.Sprintf("{max_tokens: %d, tokens_per_fill: %d, fill_interval: %s}", l.MaxTokens, l.TokensPerFill, protoSeconds(l.FillInterval))
	lines := []string{"- name: envoy.filters.http.local_ratelimit",
		"  typed_config:",
		"    \"@type\": type.googleapis.com/" + localType,
		"    stat_prefix: ratelab",
		"    filter_enabled: {default_value: {numerator: 100, denominator: HUNDRED}}",
		"    filter_enforced: {default_value: {numerator: 100, denominator: HUNDRED}}",
		"    rate_limits:",
		"    - actions:"}
	for _, a := range actions {
		lines = append(lines, "      - "+a)
	}
	lines = append(lines, "    descriptors:", "    - entries:")
	for _, e := range entries {
		lines = append(lines, fmt.Sprintf("      - {key: %s, value: \"\"}", e))
	}
	return append(lines, "      token_bucket: "+bucket,
		fmt.Sprintf("    max_dynamic_descriptors: %d", maxDescriptors),
		"    always_consume_default_token_bucket: false",
		"    token_bucket: "+bucket), ok
}

// descriptorOf is, for a trace's key, the rate_limits actions that make
// a request's descriptor entries and the entries' keys: remote_address for
// ip, the header x-user for user, the pseudo-headers :path and :method.
func descriptorOf(key string) (actions, entries []string, ok bool) {
	ok = true
	for _, part := range strings.Split(key, "+") {
		switch strings.TrimSpace(part) {
		case "ip", "host":
			actions, entries = append(actions, "remote_address: {}"), append(entries, "remote_address")
		case "user":
			actions, entries = append(actions, "request_headers: {header_name: x-user, descriptor_key: user}"), append(entries, "user")
		case "path":
			actions, entries = append(actions, "request_headers: {header_name: \":path\", descriptor_key: path}"), append(entries, "path")
		case "method":
			actions, entries = append(actions, "request_headers: {header_name: \":method\", descriptor_key: method}"), append(entries, "method")
		default:
			ok = false
			actions, entries = append(actions, "request_headers: {header_name: KEY, descriptor_key: key}"), append(entries, "key")
		}
	}
	return actions, entries, ok
}

// protoSeconds writes a duration as protobuf's JSON and YAML write one:
// seconds, with as many decimals as it needs ("60s", "0.05s").
func protoSeconds(d time.Duration) string {
	s := fmt.Sprintf("%d.%09d", d/time.Second, d%time.Second)
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".") + "s"
}

// unitOf is the rate limit service's unit for a period, and false
// for a period that is none of second, minute, hour and day.
func unitOf(period time.Duration) (string, bool) {
	for _, u := range units[:4] {
		if u.d == period {
			return u.name, true
		}
	}
	return "", false
}

// globalYAML writes l as the rate limit service's configuration: the
// domain, and the descriptors Envoy's rate_limits actions send (remote_address
// for ip, a request header's descriptor_key for the others, nested in the
// key's order), each with no value (a count for each value), the innermost
// with the rate_limit. actions are those rate_limits actions, for Envoy's
// route.
func globalYAML(l GlobalLimit, key string) (lines, actions []string, ok bool) {
	actions, entries, ok := descriptorOf(key)
	lines = []string{"domain: " + l.Domain, "descriptors:"}
	indent := "  "
	for i, e := range entries {
		lines = append(lines, indent+"- key: "+e)
		if i < len(entries)-1 {
			lines = append(lines, indent+"  descriptors:")
			indent += "    "
		}
	}
	unit, _ := unitOf(l.Period)
	lines = append(lines, indent+"  rate_limit:", indent+"    unit: "+unit, fmt.Sprintf("%s    requests_per_unit: %d", indent, l.RequestsPerUnit))
	return lines, actions, ok
}

// writeLocal writes the recommendation: a descriptor per client
// (max_dynamic_descriptors twice the log's keys), the default token_bucket for
// requests without one.
func writeLocal(b *strings.Builder, s products.Snippet) {
	res := s.Policy
	ls, ok := localYAML(LocalLimit{MaxTokens: res.Burst, TokensPerFill: res.Limit, FillInterval: res.Period},
		s.TraceKey, min(max(2*s.Keys, 20), math.MaxUint32))
	s.Heading(b, "token_bucket: max_tokens the burst, tokens_per_fill the limit a fill_interval; a bucket per client from a descriptor whose entry has no value, made by the filter's rate_limits actions (an Envoy with max_dynamic_descriptors); max_dynamic_descriptors twice the log's keys",
		"In the HTTP connection manager's http_filters, before the router")
	products.Lines(b, ls)
	s.NoKey(b, ok, "KEY", "request field")
}

// writeGlobal writes the recommendation: the service's descriptors, and the
// actions for Envoy's route that send them.
func writeGlobal(b *strings.Builder, s products.Snippet) {
	res := s.Policy
	ls, actions, ok := globalYAML(GlobalLimit{Domain: "ratelab", Period: res.Period, RequestsPerUnit: res.Limit}, s.TraceKey)
	s.Heading(b, "requests_per_unit a unit; a descriptor with no value counts each of its values apart",
		"The rate limit service's configuration (envoyproxy/ratelimit)")
	products.Lines(b, ls)
	fmt.Fprintf(b, "\nand on Envoy's route (or virtual host), with the ratelimit filter's domain: ratelab, the actions that send the descriptor: rate_limits: [{actions: [%s]}].\n",
		strings.Join(braced(actions), ", "))
	s.NoKey(b, ok, "KEY", "request field")
}

// braced writes YAML mappings "a: b" in flow style, "{a: b}".
func braced(ms []string) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = "{" + m + "}"
	}
	return out
}
