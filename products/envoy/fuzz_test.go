package envoy

import (
	"testing"
	"time"

	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// No input makes the Envoy readers panic, hang or answer without a place.
func FuzzEnvoyConfig(f *testing.F) {
	for _, seed := range []string{envoyLocalFilter, envoyLocalDescriptors, rlsConfig, "", "a: [", "&a [*a]", "<<: 1", "descriptors: 3",
		"stat_prefix: x\ntoken_bucket: {max_tokens: 1, fill_interval: 0.05s}\nfilter_enabled: {default_value: {numerator: 1}}\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, conf string) {
		for _, p := range []*products.Info{Local, Global} {
			c, err := configtest.Read(p, "envoy.yaml", []byte(conf), products.Options{Product: p})
			configtest.CheckRead(t, c, err, func(params products.Params) string {
				switch l := params.(type) {
				case *LocalLimit:
					if p != Local || l.MaxTokens <= 0 || l.TokensPerFill <= 0 || l.FillInterval < 50*time.Millisecond {
						return "want a bucket of the local filter's, with parameters Envoy takes"
					}
				case *GlobalLimit:
					if p != Global {
						return "want the rate limit service's parameters"
					}
				default:
					return "want Envoy's parameters"
				}
				return ""
			})
			if err == nil {
				c.Ratelab("ip")
			}
		}
	})
}
