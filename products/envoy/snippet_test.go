package envoy

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// What the filter's and the service's YAML writers write, read back as
// --config reads it, is one lane of one limit with the same parameters, and
// runs as the lane's policy (configtest.ReadBack): a descriptor with no value
// is a bucket or a count for each of its values, which Envoy's rate_limits
// actions make, not the file.
func TestSnippetsReadBack(t *testing.T) {
	for _, c := range []configtest.ReadBack{
		{Write: func() ([]string, bool) {
			return localYAML(LocalLimit{MaxTokens: 29, TokensPerFill: 22, FillInterval: time.Minute}, "ip", 200)
		}, Params: func(m products.Limit) string {
			return configtest.Diff(*m.Params.(*LocalLimit), LocalLimit{Descriptor: "remote_address=", MaxTokens: 29, TokensPerFill: 22, FillInterval: time.Minute})
		},
			Policy: algorithms.Policy{Limit: 22, Period: time.Minute, Burst: 29}, Trace: ""},
		{Write: func() ([]string, bool) {
			return localYAML(LocalLimit{MaxTokens: 1, TokensPerFill: 3, FillInterval: 50 * time.Millisecond}, "ip+path", 20)
		}, Params: func(m products.Limit) string {
			return configtest.Diff(*m.Params.(*LocalLimit), LocalLimit{Descriptor: "remote_address=, path=", MaxTokens: 1, TokensPerFill: 3, FillInterval: 50 * time.Millisecond})
		},
			Policy: algorithms.Policy{Limit: 3, Period: 50 * time.Millisecond, Burst: 1}, Trace: ""},
	} {
		c.Check(t, Local)
	}
	for _, c := range []configtest.ReadBack{
		{Write: func() ([]string, bool) {
			lines, _, ok := globalYAML(GlobalLimit{Domain: "ratelab", Period: time.Hour, RequestsPerUnit: 220}, "ip")
			return lines, ok
		}, Params: func(m products.Limit) string {
			return configtest.Diff(*m.Params.(*GlobalLimit), GlobalLimit{Domain: "ratelab", Descriptor: "remote_address=", Unit: "hour", Period: time.Hour, RequestsPerUnit: 220})
		},
			Policy: algorithms.Policy{Limit: 220, Period: time.Hour}, Trace: ""},
		{Write: func() ([]string, bool) {
			lines, _, ok := globalYAML(GlobalLimit{Domain: "d", Period: 24 * time.Hour, RequestsPerUnit: 1}, "user+method")
			return lines, ok
		}, Params: func(m products.Limit) string {
			return configtest.Diff(*m.Params.(*GlobalLimit), GlobalLimit{Domain: "d", Descriptor: "user= / method=", Unit: "day", Period: 24 * time.Hour, RequestsPerUnit: 1})
		},
			Policy: algorithms.Policy{Limit: 1, Period: 24 * time.Hour}, Trace: ""},
	} {
		c.Check(t, Global)
	}
}
