package kong

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// Config text reaches the terminal in a lane's name, a note and an error:
// the reader, fed escape sequences and bidi controls where its file puts
// names and values, shows them as escapes, never raw (configtest.Escapes).
func TestConfigTextIsShownAsEscapes(t *testing.T) {
	for _, c := range []configtest.Escapes{
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
	} {
		c.Check(t, Info)
	}
}

// A file that begins with a UTF-8 byte-order mark (Notepad and Excel write
// one) reads as the same file without it, told by its content or named: the
// same lanes and the same notes, and no note, as YAML and TOML readers take
// the mark as what it is.
func TestByteOrderMark(t *testing.T) {
	configtest.CheckByteOrderMark(t, Info, "kong.yml", kongYAML, false, false)
}

// What the snippet writer writes, read back as --config reads it, is one lane
// of one limit with the same parameters, and runs as the lane's policy
// (configtest.ReadBack).
func TestSnippetsReadBack(t *testing.T) {
	for _, c := range []configtest.ReadBack{
		{Write: func() ([]string, bool) {
			return pluginYAML(Limit{Windows: [6]int64{2: 220}, Policy: "local", Status: 429}, "ip")
		}, Params: func(m products.Limit) string {
			return configtest.Diff(*m.Params.(*Limit), Limit{Plugin: "rate-limiting", Windows: [6]int64{2: 220}, Policy: "local", Status: 429})
		},
			Policy: algorithms.Policy{Limit: 220, Period: time.Hour}, Trace: "ip"},
		{Write: func() ([]string, bool) {
			return pluginYAML(Limit{Windows: [6]int64{0: 5}, Policy: "redis", Status: 503}, "user")
		}, Params: func(m products.Limit) string {
			return configtest.Diff(*m.Params.(*Limit), Limit{Plugin: "rate-limiting", Windows: [6]int64{0: 5}, Policy: "redis", Status: 503})
		},
			Policy: algorithms.Policy{Limit: 5, Period: time.Second}, Trace: "user"},
	} {
		c.Check(t, Info)
	}
}

// No input makes the reader panic, hang or answer without a place.
func FuzzKongConfig(f *testing.F) {
	configtest.Fuzz(f, Info, []string{kongYAML, "", "plugins: [{Name: rate-limiting, config: {}}]"}, func(p products.Params) string {
		if _, ok := p.(*Limit); !ok {
			return "want the product's parameters"
		}
		return ""
	})
}
