package cloudflare

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// Config text reaches the terminal in a lane's name, a note and an error:
// the reader, fed escape sequences and bidi controls where its JSON puts names
// and values, shows them as escapes, never raw (configtest.Escapes).
func TestConfigTextIsShownAsEscapes(t *testing.T) {
	for _, c := range []configtest.Escapes{
		{Name: "cloudflare description, expression", Text: configtest.JSON(`{"rules": [{"description": "P", "expression": "P", "action": "block",
  "ratelimit": {"characteristics": ["cf.colo.id", "P"], "period": 60, "requests_per_period": 10, "mitigation_timeout": 60}}]}`), InLane: true, InNote: true, InLimitName: true},
		{Name: "cloudflare action", Text: configtest.JSON(`{"rules": [{"description": "r", "expression": "true", "action": "P",
  "ratelimit": {"characteristics": ["cf.colo.id", "ip.src"], "period": 60, "requests_per_period": 10}}]}`), InError: true},
	} {
		c.Check(t, Info)
	}
}

// A file that begins with a UTF-8 byte-order mark (Notepad and Excel write
// one) reads as the same file without it, told by its content or named: the
// same lanes and the same notes, and no note, as JSON readers take the mark
// as what it is.
func TestByteOrderMark(t *testing.T) {
	configtest.CheckByteOrderMark(t, Info, "rules.json", cloudflareRuleset, false, false)
}

// What the snippet writer writes, read back as --config reads it, is one lane
// of one limit with the same parameters, and runs as the lane's policy
// (configtest.ReadBack).
func TestSnippetsReadBack(t *testing.T) {
	for _, c := range []configtest.ReadBack{
		{Write: func() ([]string, bool) {
			return ruleJSON(Limit{Rule: "ratelab", Period: 10 * time.Second, RequestsPerPeriod: 22, MitigationTimeout: 10 * time.Second, Status: 429}, "ip")
		}, Params: func(m products.Limit) string {
			return configtest.Diff(*m.Params.(*Limit), Limit{Rule: "ratelab", Period: 10 * time.Second, RequestsPerPeriod: 22, MitigationTimeout: 10 * time.Second, Action: "block", Status: 429,
				Characteristics: []string{"cf.colo.id", "ip.src"}})
		},
			Policy: algorithms.Policy{Limit: 22, Period: 10 * time.Second}, Trace: "ip"},
		{Write: func() ([]string, bool) {
			return ruleJSON(Limit{Rule: "per path", Period: time.Hour, RequestsPerPeriod: 5000, Status: 403}, "path+method")
		}, Params: func(m products.Limit) string {
			return configtest.Diff(*m.Params.(*Limit), Limit{Rule: "per path", Period: time.Hour, RequestsPerPeriod: 5000, Action: "block", Status: 403,
				Characteristics: []string{"cf.colo.id", "http.request.uri.path", "http.request.method"}})
		},
			Policy: algorithms.Policy{Limit: 5000, Period: time.Hour}, Trace: "path+method"},
	} {
		c.Check(t, Info)
	}
}

// No input makes the rules' reader panic, hang or answer without a place.
func FuzzCloudflareConfig(f *testing.F) {
	configtest.Fuzz(f, Info, []string{cloudflareRuleset, "", "{", "[", `{"a":}`, `"x"`, "[1,2]", `{"rules": 3}`}, func(p products.Params) string {
		if _, ok := p.(*Limit); !ok {
			return "want Cloudflare's parameters"
		}
		return ""
	})
}
