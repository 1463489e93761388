package envoy

import (
	"testing"

	"ratelab/products/internal/configtest"
)

// Config text reaches the terminal in a lane's name, a note and an error:
// Envoy's readers, fed escape sequences and bidi controls where their YAML
// puts names and values (a stat_prefix, a descriptor's key, a domain), show
// them as escapes, never raw (configtest.Escapes).
func TestConfigTextIsShownAsEscapes(t *testing.T) {
	for _, c := range []configtest.Escapes{
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
	} {
		c.Check(t, Local)
	}
	for _, c := range []configtest.Escapes{
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
	} {
		c.Check(t, Global)
	}
}

// A file that begins with a UTF-8 byte-order mark (Notepad and Excel write
// one) reads as the same file without it, told by its content or named: the
// same lanes and the same notes, and no note, as YAML readers (yaml-cpp)
// take the mark as what it is.
func TestByteOrderMark(t *testing.T) {
	configtest.CheckByteOrderMark(t, Local, "envoy.yaml", envoyLocalFilter, false, false)
	configtest.CheckByteOrderMark(t, Global, "config.yaml", rlsConfig, false, false)
}
