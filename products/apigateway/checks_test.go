package apigateway

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
		{Name: "api-gateway plan, method", Text: configtest.JSON(`{"name": "P", "throttle": {"rateLimit": 10, "burstLimit": 20},
  "apiStages": [{"apiId": "a", "stage": "s", "throttle": {"P": {"rateLimit": 5, "burstLimit": 5}}}]}`), InLane: true, InNote: true, InLimitName: true},
		{Name: "api-gateway method settings", Text: configtest.JSON(`{"stageName": "s", "methodSettings": {"P": 5}}`), InError: true},
	} {
		c.Check(t, Info)
	}
}

// A file that begins with a UTF-8 byte-order mark (Notepad and Excel write
// one) reads as the same file without it, told by its content or named: the
// same lanes and the same notes, and no note, as JSON readers take the mark
// as what it is.
func TestByteOrderMark(t *testing.T) {
	configtest.CheckByteOrderMark(t, Info, "plan.json", apiUsagePlan, false, false)
}

// What the snippet writer writes, read back as --config reads it, is one lane
// of one limit with the same parameters, and runs as the lane's policy
// (configtest.ReadBack).
func TestSnippetsReadBack(t *testing.T) {
	for _, c := range []configtest.ReadBack{
		{Write: func() ([]string, bool) {
			return usagePlanJSON(Limit{RateMilli: 22_000, Burst: 29}, "ratelab"), true
		}, Params: func(m products.Limit) string {
			return configtest.Diff(*m.Params.(*Limit), Limit{Scope: "usage plan ratelab", RateMilli: 22_000, Burst: 29})
		},
			Policy: algorithms.Policy{Limit: 22, Period: time.Second, Burst: 29}, Trace: ""},
		{Write: func() ([]string, bool) {
			return usagePlanJSON(Limit{RateMilli: 1500, Burst: 1}, "slow"), true
		}, Params: func(m products.Limit) string {
			return configtest.Diff(*m.Params.(*Limit), Limit{Scope: "usage plan slow", RateMilli: 1500, Burst: 1})
		},
			Policy: algorithms.Policy{Limit: 1500, Period: 1000 * time.Second, Burst: 1}, Trace: ""},
	} {
		c.Check(t, Info)
	}
}

// No input makes the usage plans' and stages' reader panic, hang or answer
// without a place.
func FuzzAPIGatewayConfig(f *testing.F) {
	configtest.Fuzz(f, Info, []string{apiUsagePlan, apiStage, "", "{", "[", `{"a":}`, `"x"`, "[1,2]", `{"items": [{}]}`}, func(p products.Params) string {
		if _, ok := p.(*Limit); !ok {
			return "want API Gateway's parameters"
		}
		return ""
	})
}
