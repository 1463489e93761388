package apigateway

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products/internal/configtest"
)

var (
	// apiUsagePlan is aws apigateway get-usage-plan's output.
	apiUsagePlan = configtest.Testdata("usage-plan.json")
	// apiStage is aws apigateway get-stage's output.
	apiStage = configtest.Testdata("stage.json")
)

func TestAPIGatewayConfigs(t *testing.T) {
	configtest.CheckCases(t, Info, []configtest.Case{
		{Name: "a usage plan", Files: map[string]string{"plan.json": apiUsagePlan}, Main: "plan.json",
			Lanes: `usage plan Gold @plan.json:1
  plan.json:13 key=the API key (x-api-key)→? rate=100r/s burst=200 quota=5000/MONTH offset=100
usage plan Gold stage prod method /pets/GET @plan.json:9
  plan.json:9 key=the API key (x-api-key)→? rate=2.5r/s burst=10`,
			Warns: []string{"plan.json:9: held to this method's throttle and to the plan's"}},
		{Name: "a stage", Files: map[string]string{"stage.json": apiStage}, Main: "stage.json",
			Lanes: `stage prod */* @stage.json:5
  stage.json:5 key=every client of the stage→shared rate=10000r/s burst=5000`},
		{Name: "a quota period AWS has not", Main: "p.json", Files: map[string]string{"p.json": `{"name": "x",
 "throttle": {"rateLimit": 1, "burstLimit": 1},
 "quota": {"limit": 10,
   "period": "YEAR"}}`},
			Err: "p.json:4: quota.period must be DAY, WEEK or MONTH"},
		{Name: "an offset above the limit", Main: "p.json", Files: map[string]string{"p.json": `{"name": "x", "throttle": {"rateLimit": 1, "burstLimit": 1},
 "quota": {"limit": 10, "period": "DAY", "offset": 11}}`},
			Err: "p.json:2: quota.offset must be a whole number from 0 to 10"},
		{Name: "no burst", Main: "p.json", Files: map[string]string{"p.json": `{"name": "x",
 "throttle": {"rateLimit": 1}}`},
			Err: "p.json:2: throttle needs rateLimit and burstLimit"},
		{Name: "a burst of 0", Main: "p.json", Files: map[string]string{"p.json": `{"name": "x", "throttle": {"rateLimit": 1, "burstLimit": 0}}`},
			Warns: []string{"p.json:1: lets no request through"}},
	})
}

// API Gateway's lanes run with the file's parameters (a rate in thousandths
// per 1000 s when it is not whole), and the lanes' algorithm takes them.
func TestLanes(t *testing.T) {
	a := configtest.MustRead(t, Info, "plan.json", apiUsagePlan, false)
	alanes, _ := a.Ratelab("ip")
	for i, want := range []struct {
		p algorithms.Policy
		o algorithms.Options
	}{
		{algorithms.Policy{Limit: 100, Period: time.Second, Burst: 200}, algorithms.Options{QuotaLimit: 5000, QuotaPeriod: algorithms.QuotaMonth, QuotaOffset: 100}},
		{algorithms.Policy{Limit: 2500, Period: 1000 * time.Second, Burst: 10}, algorithms.Options{}},
	} {
		m := alanes[i].Limits[0]
		if m.Policy != want.p || m.Options != want.o {
			t.Errorf("api-gateway lane %d: %+v %+v, want %+v %+v", i, m.Policy, m.Options, want.p, want.o)
		}
	}
	for _, l := range alanes {
		m := l.Limits[0]
		if _, err := algorithms.New(m.Algorithm, m.Policy, m.Options); err != nil {
			t.Errorf("lane %s: %v", l.Name, err)
		}
	}
}
