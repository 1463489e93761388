package cloudflare

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products/internal/configtest"
)

// Cloudflare's reader shows a rule's text as escapes where the JSON puts
// names and values (a description, an expression, an action), reads its
// sample the same when it begins with a byte-order mark (a JSON reader takes
// the mark as one: no note), and reads back what its snippet writes: one rule
// of the same period, requests_per_period, mitigation_timeout and status, by
// the key's characteristics (configtest.Checks).
func TestChecks(t *testing.T) {
	configtest.Checks{
		Escapes: []configtest.Escapes{
			{Name: "cloudflare description, expression", Text: configtest.JSON(`{"rules": [{"description": "P", "expression": "P", "action": "block",
  "ratelimit": {"characteristics": ["cf.colo.id", "P"], "period": 60, "requests_per_period": 10, "mitigation_timeout": 60}}]}`), InLane: true, InNote: true, InLimitName: true},
			{Name: "cloudflare action", Text: configtest.JSON(`{"rules": [{"description": "r", "expression": "true", "action": "P",
  "ratelimit": {"characteristics": ["cf.colo.id", "ip.src"], "period": 60, "requests_per_period": 10}}]}`), InError: true},
		},
		Marked: map[string]string{"rules.json": cloudflareRuleset},
		ReadBack: []configtest.ReadBack{
			{Wrote: configtest.Wrote(ruleJSON(Limit{Rule: "ratelab", Period: 10 * time.Second, RequestsPerPeriod: 22, MitigationTimeout: 10 * time.Second, Status: 429}, "ip")),
				Want: &Limit{Rule: "ratelab", Period: 10 * time.Second, RequestsPerPeriod: 22, MitigationTimeout: 10 * time.Second, Action: "block", Status: 429,
					Characteristics: []string{"cf.colo.id", "ip.src"}}, Policy: algorithms.Policy{Limit: 22, Period: 10 * time.Second}, Trace: "ip"},
			{Wrote: configtest.Wrote(ruleJSON(Limit{Rule: "per path", Period: time.Hour, RequestsPerPeriod: 5000, Status: 403}, "path+method")),
				Want: &Limit{Rule: "per path", Period: time.Hour, RequestsPerPeriod: 5000, Action: "block", Status: 403,
					Characteristics: []string{"cf.colo.id", "http.request.uri.path", "http.request.method"}}, Policy: algorithms.Policy{Limit: 5000, Period: time.Hour}, Trace: "path+method"},
		},
	}.Run(t, Info)
}

// No input makes the rules' reader panic, hang or answer without a place.
func FuzzCloudflareConfig(f *testing.F) {
	configtest.Fuzz(f, Info, []string{cloudflareRuleset, "", "{", "[", `{"a":}`, `"x"`, "[1,2]", `{"rules": 3}`}, configtest.Is[*Limit])
}
