package apigateway

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products/internal/configtest"
)

// API Gateway's reader shows a usage plan's and a stage's text as escapes
// where the JSON puts names (a plan's, a method's), reads its samples the same
// when they begin with a byte-order mark (no note: a JSON reader takes it as
// one), and reads back what its snippet writes: a usage plan of the same
// throttle, a rate in thousandths when it is not whole (configtest.Checks).
func TestChecks(t *testing.T) {
	configtest.Checks{
		Escapes: []configtest.Escapes{
			{Name: "api-gateway plan, method", Text: configtest.JSON(`{"name": "P", "throttle": {"rateLimit": 10, "burstLimit": 20},
  "apiStages": [{"apiId": "a", "stage": "s", "throttle": {"P": {"rateLimit": 5, "burstLimit": 5}}}]}`), InLane: true, InNote: true, InLimitName: true},
			{Name: "api-gateway method settings", Text: configtest.JSON(`{"stageName": "s", "methodSettings": {"P": 5}}`), InError: true},
		},
		Marked: map[string]string{"plan.json": apiUsagePlan, "stage.json": apiStage},
		ReadBack: []configtest.ReadBack{
			{Wrote: configtest.Wrote(usagePlanJSON(Limit{RateMilli: 22_000, Burst: 29}, "ratelab"), true),
				Want: &Limit{Scope: "usage plan ratelab", RateMilli: 22_000, Burst: 29}, Policy: algorithms.Policy{Limit: 22, Period: time.Second, Burst: 29}, Trace: ""},
			{Wrote: configtest.Wrote(usagePlanJSON(Limit{RateMilli: 1500, Burst: 1}, "slow"), true),
				Want: &Limit{Scope: "usage plan slow", RateMilli: 1500, Burst: 1}, Policy: algorithms.Policy{Limit: 1500, Period: 1000 * time.Second, Burst: 1}, Trace: ""},
		},
	}.Run(t, Info)
}

// No input makes the usage plans' and stages' reader panic, hang or answer
// without a place.
func FuzzAPIGatewayConfig(f *testing.F) {
	configtest.Fuzz(f, Info, []string{apiUsagePlan, apiStage, "", "{", "[", `{"a":}`, `"x"`, "[1,2]", `{"items": [{}]}`}, configtest.Is[*Limit])
}
