package products

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

// cloudflareRuleset is a Rulesets API response of the http_ratelimit phase,
// as Cloudflare's docs show one.
const cloudflareRuleset = `{
  "result": {
    "id": "0a1b2c",
    "name": "default",
    "kind": "zone",
    "phase": "http_ratelimit",
    "rules": [
      {
        "id": "r1",
        "description": "login by IP",
        "expression": "http.request.uri.path eq \"/login\"",
        "action": "block",
        "action_parameters": {"response": {"status_code": 403, "content": "slow down", "content_type": "text/plain"}},
        "ratelimit": {
          "characteristics": ["cf.colo.id", "ip.src"],
          "period": 60,
          "requests_per_period": 100,
          "mitigation_timeout": 600
        },
        "enabled": true
      },
      {
        "description": "api by key",
        "expression": "true",
        "action": "managed_challenge",
        "ratelimit": {
          "characteristics": ["cf.colo.id", "http.request.headers[\"x-api-key\"]"],
          "period": 10,
          "requests_per_period": 50,
          "counting_expression": "http.response.code eq 401",
          "requests_to_origin": true
        }
      },
      {
        "description": "off",
        "expression": "true",
        "action": "block",
        "enabled": false,
        "ratelimit": {"characteristics": ["cf.colo.id"], "period": 10, "requests_per_period": 1}
      }
    ]
  },
  "success": true
}
`

// apiUsagePlan is aws apigateway get-usage-plan's output.
const apiUsagePlan = `{
    "id": "n371pt",
    "name": "Gold",
    "apiStages": [
        {
            "apiId": "a1b2c3",
            "stage": "prod",
            "throttle": {
                "/pets/GET": {"burstLimit": 10, "rateLimit": 2.5}
            }
        }
    ],
    "throttle": {
        "burstLimit": 200,
        "rateLimit": 100.0
    },
    "quota": {
        "limit": 5000,
        "offset": 100,
        "period": "MONTH"
    }
}
`

// apiStage is aws apigateway get-stage's output.
const apiStage = `{
    "stageName": "prod",
    "deploymentId": "abc",
    "methodSettings": {
        "*/*": {
            "metricsEnabled": false,
            "throttlingBurstLimit": 5000,
            "throttlingRateLimit": 10000.0
        },
        "~1pets/GET": {"cachingEnabled": false}
    }
}
`

func TestCloudflareConfigs(t *testing.T) {
	for _, c := range []confCase{
		{name: "a ruleset", files: map[string]string{"rules.json": cloudflareRuleset}, main: "rules.json",
			lanes: `login by IP @rules.json:8
  rules.json:14 key=cf.colo.id, ip.src→ip 100/1m0s timeout=10m0s block 403 by=cf.colo.id,ip.src
api by key @rules.json:22
  rules.json:26 key=cf.colo.id, http.request.headers["x-api-key"]→? 50/10s timeout=0s managed_challenge 429 by=cf.colo.id,http.request.headers["x-api-key"]`,
			warns: []string{`rules.json:11: the expression decides`, "rules.json:25: action managed_challenge", `rules.json:27: the characteristic http.request.headers`,
				"rules.json:30: counting_expression", "rules.json:31: requests_to_origin", "rules.json:38: disabled"}},
		{name: "one rule", main: "r.json", files: map[string]string{"r.json": `{"action": "block", "expression": "true",
 "ratelimit": {"characteristics": ["cf.colo.id"], "period": 10, "requests_per_period": 5}}`},
			lanes: `rule 1 @r.json:1
  r.json:2 key=cf.colo.id→shared 5/10s timeout=0s block 429 by=cf.colo.id`},
		{name: "a period Cloudflare refuses", main: "r.json", files: map[string]string{"r.json": `[{"action": "block", "expression": "true",
 "ratelimit": {"characteristics": ["cf.colo.id"],
   "period": 11, "requests_per_period": 5}}]`},
			err: "r.json:3: period 11s is not a period Cloudflare takes"},
		{name: "no cf.colo.id", main: "r.json", files: map[string]string{"r.json": `{"action": "block", "expression": "true",
 "ratelimit": {"characteristics": ["ip.src"], "period": 10, "requests_per_period": 5}}`},
			err: `r.json:2: characteristics must include "cf.colo.id"`},
		{name: "a status out of range", main: "r.json", files: map[string]string{"r.json": `{"action": "block", "expression": "true",
 "action_parameters": {"response": {"status_code": 503}},
 "ratelimit": {"characteristics": ["cf.colo.id"], "period": 10, "requests_per_period": 5}}`},
			err: "r.json:2: response.status_code must be a whole number from 400 to 499"},
		{name: "a field Cloudflare has not", main: "r.json", files: map[string]string{"r.json": `{"action": "block", "expression": "true",
 "ratelimit": {"characteristics": ["cf.colo.id"], "period": 10, "requests_per_period": 5, "burst": 3}}`},
			err: `r.json:2: ratelimit has no field "burst"`},
		{name: "not JSON", main: "r.json", files: map[string]string{"r.json": "{\"action\": \"block\",\n \"expression\": true,,\n}"},
			err: "r.json:2: not valid JSON"},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, Cloudflare) })
	}
}

func TestAPIGatewayConfigs(t *testing.T) {
	for _, c := range []confCase{
		{name: "a usage plan", files: map[string]string{"plan.json": apiUsagePlan}, main: "plan.json",
			lanes: `usage plan Gold @plan.json:1
  plan.json:13 key=the API key (x-api-key)→? rate=100r/s burst=200 quota=5000/MONTH offset=100
usage plan Gold stage prod method /pets/GET @plan.json:9
  plan.json:9 key=the API key (x-api-key)→? rate=2.5r/s burst=10`,
			warns: []string{"plan.json:9: held to this method's throttle and to the plan's"}},
		{name: "a stage", files: map[string]string{"stage.json": apiStage}, main: "stage.json",
			lanes: `stage prod */* @stage.json:5
  stage.json:5 key=every client of the stage→shared rate=10000r/s burst=5000`},
		{name: "a quota period AWS has not", main: "p.json", files: map[string]string{"p.json": `{"name": "x",
 "throttle": {"rateLimit": 1, "burstLimit": 1},
 "quota": {"limit": 10,
   "period": "YEAR"}}`},
			err: "p.json:4: quota.period must be DAY, WEEK or MONTH"},
		{name: "an offset above the limit", main: "p.json", files: map[string]string{"p.json": `{"name": "x", "throttle": {"rateLimit": 1, "burstLimit": 1},
 "quota": {"limit": 10, "period": "DAY", "offset": 11}}`},
			err: "p.json:2: quota.offset must be a whole number from 0 to 10"},
		{name: "no burst", main: "p.json", files: map[string]string{"p.json": `{"name": "x",
 "throttle": {"rateLimit": 1}}`},
			err: "p.json:2: throttle needs rateLimit and burstLimit"},
		{name: "a burst of 0", main: "p.json", files: map[string]string{"p.json": `{"name": "x", "throttle": {"rateLimit": 1, "burstLimit": 0}}`},
			warns: []string{"p.json:1: lets no request through"}},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, APIGateway) })
	}
}

// Cloudflare's and API Gateway's lanes run with the file's parameters, and the
// lanes' algorithms take them.
func TestCloudRatelab(t *testing.T) {
	c, err := Read("rules.json", []byte(cloudflareRuleset), Options{})
	if err != nil {
		t.Fatal(err)
	}
	lanes, notes := c.Ratelab("ip")
	if len(lanes) != 2 || lanes[0].Limits[0].Key != "{key}" || lanes[0].Limits[0].Options.MitigationTimeout != 10*time.Minute ||
		lanes[0].Limits[0].Options.DenyStatus != 403 || lanes[0].Limits[0].Policy != (algorithms.Policy{Limit: 100, Period: time.Minute}) {
		t.Errorf("cloudflare lanes %+v", lanes)
	}
	if len(notes) != 0 {
		t.Errorf("notes %v, want none (ip.src is the log's ip)", notes)
	}
	a, err := Read("plan.json", []byte(apiUsagePlan), Options{})
	if err != nil {
		t.Fatal(err)
	}
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
	for _, l := range append(lanes, alanes...) {
		m := l.Limits[0]
		if _, err := algorithms.New(m.Algorithm, m.Policy, m.Options); err != nil {
			t.Errorf("lane %s: %v", l.Name, err)
		}
	}
	for i, c := range []struct {
		data string
		want *Info
	}{{cloudflareRuleset, Cloudflare}, {apiUsagePlan, APIGateway}, {apiStage, APIGateway}, {`{"a": 1}`, nil}} {
		if got, _ := Detect([]byte(c.data)); got != c.want {
			t.Errorf("case %d: Detect = %v, want %v", i, got, c.want)
		}
	}
}

// No input makes the JSON readers panic, hang or answer without a place.
func FuzzCloudConfig(f *testing.F) {
	for _, seed := range []string{cloudflareRuleset, apiUsagePlan, apiStage, "", "{", "[", `{"a":}`, `"x"`, "[1,2]", `{"rules": 3}`, `{"items": [{}]}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, conf string) {
		for _, p := range []*Info{Cloudflare, APIGateway} {
			c, err := Read("c.json", []byte(conf), Options{Product: p})
			checkConfig(t, p, c, err)
			if err == nil {
				c.Ratelab("ip")
			}
		}
	})
}
