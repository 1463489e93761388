package kong

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products/internal/configtest"
)

// Kong's reader shows a kong.yml's text as escapes where it puts names and
// values (a service's name, a policy), reads its sample the same when it
// begins with a byte-order mark (no note), and reads back what its snippet
// writes: one plugin of the same windows, policy and error_code, limited by
// ip or consumer (configtest.Checks).
func TestChecks(t *testing.T) {
	configtest.Checks{
		Escapes: []configtest.Escapes{
			{Name: "kong service", Text: configtest.YAML(`_format_version: "3.0"
services:
- name: "P"
  url: http://example.org
  plugins:
  - name: rate-limiting
    config: {minute: 5, policy: local}
`), InLane: true, InNote: true, InLimitName: true},
			{Name: "kong policy", Text: configtest.YAML(`_format_version: "3.0"
plugins:
- name: rate-limiting
  config: {minute: 5, policy: "P"}
`), InError: true},
		},
		Marked: map[string]string{"kong.yml": kongYAML},
		ReadBack: []configtest.ReadBack{
			{Wrote: configtest.Wrote(pluginYAML(Limit{Windows: [6]int64{2: 220}, Policy: "local", Status: 429}, "ip")),
				Want: &Limit{Plugin: "rate-limiting", Windows: [6]int64{2: 220}, Policy: "local", Status: 429}, Policy: algorithms.Policy{Limit: 220, Period: time.Hour}, Trace: "ip"},
			{Wrote: configtest.Wrote(pluginYAML(Limit{Windows: [6]int64{0: 5}, Policy: "redis", Status: 503}, "user")),
				Want: &Limit{Plugin: "rate-limiting", Windows: [6]int64{0: 5}, Policy: "redis", Status: 503}, Policy: algorithms.Policy{Limit: 5, Period: time.Second}, Trace: "user"},
		},
	}.Run(t, Info)
}

// No input makes the declarative configuration's reader panic, hang or answer
// without a place.
func FuzzKongConfig(f *testing.F) {
	configtest.Fuzz(f, Info, []string{kongYAML, "", "plugins: [{name: rate-limiting, config: {}}]"}, configtest.Is[*Limit])
}
