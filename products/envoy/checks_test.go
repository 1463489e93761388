package envoy

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// Envoy's readers show their YAML's text as escapes where it puts names and
// values (a stat_prefix, a descriptor's key, a domain), read their samples the
// same when they begin with a byte-order mark (no note: yaml-cpp takes it as
// one), and read back what their snippets write: one bucket or one
// rate_limit of the same parameters, whose descriptor with no value is a
// bucket or a count for each of its values, which Envoy's rate_limits actions
// make, not the file (configtest.Checks).
func TestChecks(t *testing.T) {
	configtest.Checks{
		Escapes: []configtest.Escapes{
			{Name: "envoy-local stat_prefix, descriptor", Text: configtest.YAML(`stat_prefix: "P"
token_bucket: {max_tokens: 10, tokens_per_fill: 10, fill_interval: 1s}
filter_enabled: {default_value: {numerator: 100}}
filter_enforced: {default_value: {numerator: 100}}
descriptors:
- entries: [{key: "P", value: ""}]
  token_bucket: {max_tokens: 1, tokens_per_fill: 1, fill_interval: 1s}
`), InLane: true, InNote: true, InLimitName: true},
			{Name: "envoy-local descriptor twice", Text: configtest.YAML(`stat_prefix: s
token_bucket: {max_tokens: 10, tokens_per_fill: 10, fill_interval: 1s}
filter_enabled: {default_value: {numerator: 100}}
descriptors:
- entries: [{key: "P", value: v}]
  token_bucket: {max_tokens: 1, tokens_per_fill: 1, fill_interval: 1s}
- entries: [{key: "P", value: v}]
  token_bucket: {max_tokens: 1, tokens_per_fill: 1, fill_interval: 1s}
`), InError: true},
		},
		Marked: map[string]string{"envoy.yaml": envoyLocalFilter},
		ReadBack: []configtest.ReadBack{
			{Wrote: configtest.Wrote(localYAML(LocalLimit{MaxTokens: 29, TokensPerFill: 22, FillInterval: time.Minute}, "ip", 200)),
				Want: &LocalLimit{Descriptor: "remote_address=", MaxTokens: 29, TokensPerFill: 22, FillInterval: time.Minute}, Policy: algorithms.Policy{Limit: 22, Period: time.Minute, Burst: 29}, Trace: ""},
			{Wrote: configtest.Wrote(localYAML(LocalLimit{MaxTokens: 1, TokensPerFill: 3, FillInterval: 50 * time.Millisecond}, "ip+path", 20)),
				Want: &LocalLimit{Descriptor: "remote_address=, path=", MaxTokens: 1, TokensPerFill: 3, FillInterval: 50 * time.Millisecond}, Policy: algorithms.Policy{Limit: 3, Period: 50 * time.Millisecond, Burst: 1}, Trace: ""},
		},
	}.Run(t, Local)
	configtest.Checks{
		Escapes: []configtest.Escapes{
			{Name: "envoy-global domain, key", Text: configtest.YAML(`domain: "P"
descriptors:
- key: "P"
  rate_limit: {unit: second, requests_per_unit: 5}
`), InLane: true, InNote: true, InLimitName: true},
			{Name: "envoy-global descriptor twice", Text: configtest.YAML(`domain: d
descriptors:
- key: "P"
  rate_limit: {unit: second, requests_per_unit: 5}
- key: "P"
  rate_limit: {unit: second, requests_per_unit: 5}
`), InError: true},
		},
		Marked: map[string]string{"config.yaml": rlsConfig},
		ReadBack: []configtest.ReadBack{
			{Wrote: global(globalYAML(GlobalLimit{Domain: "ratelab", Period: time.Hour, RequestsPerUnit: 220}, "ip")),
				Want: &GlobalLimit{Domain: "ratelab", Descriptor: "remote_address=", Unit: "hour", Period: time.Hour, RequestsPerUnit: 220}, Policy: algorithms.Policy{Limit: 220, Period: time.Hour}, Trace: ""},
			{Wrote: global(globalYAML(GlobalLimit{Domain: "d", Period: 24 * time.Hour, RequestsPerUnit: 1}, "user+method")),
				Want: &GlobalLimit{Domain: "d", Descriptor: "user= / method=", Unit: "day", Period: 24 * time.Hour, RequestsPerUnit: 1}, Policy: algorithms.Policy{Limit: 1, Period: 24 * time.Hour}, Trace: ""},
		},
	}.Run(t, Global)
}

// global is the service's writer's answer (the actions are Envoy's route's).
func global(lines, _ []string, keyed bool) configtest.Written { return configtest.Wrote(lines, keyed) }

// fuzzSeeds are the Envoy readers' fuzz seeds.
var fuzzSeeds = []string{envoyLocalFilter, envoyLocalDescriptors, rlsConfig, "", "a: [", "&a [*a]", "<<: 1", "descriptors: 3",
	"stat_prefix: x\ntoken_bucket: {max_tokens: 1, fill_interval: 0.05s}\nfilter_enabled: {default_value: {numerator: 1}}\n"}

// No input makes the local filter's reader panic, hang or answer without a
// place.
func FuzzEnvoyLocalConfig(f *testing.F) {
	configtest.Fuzz(f, Local, fuzzSeeds, func(p products.Params) string {
		if l, ok := p.(*LocalLimit); !ok || l.MaxTokens <= 0 || l.TokensPerFill <= 0 || l.FillInterval < 50*time.Millisecond {
			return "want a bucket of the local filter's, with parameters Envoy takes"
		}
		return ""
	})
}

// No input makes the rate limit service's reader panic, hang or answer
// without a place.
func FuzzEnvoyGlobalConfig(f *testing.F) {
	configtest.Fuzz(f, Global, fuzzSeeds, configtest.Is[*GlobalLimit])
}
