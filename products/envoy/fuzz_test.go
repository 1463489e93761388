package envoy

import (
	"testing"
	"time"

	"ratelab/products"
	"ratelab/products/internal/configtest"
)

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
	configtest.Fuzz(f, Global, fuzzSeeds, func(p products.Params) string {
		if _, ok := p.(*GlobalLimit); !ok {
			return "want the rate limit service's parameters"
		}
		return ""
	})
}
