package cloudflare

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products/internal/configtest"
)

// cloudflareRuleset is a Rulesets API response of the http_ratelimit phase,
// as Cloudflare's docs show one.
var cloudflareRuleset = configtest.Testdata("ruleset.json")

func TestCloudflareConfigs(t *testing.T) {
	configtest.CheckCases(t, Info, []configtest.Case{
		{Name: "a ruleset", Files: map[string]string{"rules.json": cloudflareRuleset}, Main: "rules.json",
			Lanes: `login by IP @rules.json:8
  rules.json:14 key=cf.colo.id, ip.src→ip 100/1m0s timeout=10m0s block 403 by=cf.colo.id,ip.src
api by key @rules.json:22
  rules.json:26 key=cf.colo.id, http.request.headers["x-api-key"]→? 50/10s timeout=0s managed_challenge 429 by=cf.colo.id,http.request.headers["x-api-key"]`,
			Warns: []string{`rules.json:11: the expression decides`, "rules.json:25: action managed_challenge", `rules.json:27: the characteristic http.request.headers`,
				"rules.json:30: counting_expression", "rules.json:31: requests_to_origin", "rules.json:38: disabled"}},
		{Name: "one rule", Main: "r.json", Files: map[string]string{"r.json": `{"action": "block", "expression": "true",
 "ratelimit": {"characteristics": ["cf.colo.id"], "period": 10, "requests_per_period": 5}}`},
			Lanes: `rule 1 @r.json:1
  r.json:2 key=cf.colo.id→shared 5/10s timeout=0s block 429 by=cf.colo.id`},
		{Name: "a period Cloudflare refuses", Main: "r.json", Files: map[string]string{"r.json": `[{"action": "block", "expression": "true",
 "ratelimit": {"characteristics": ["cf.colo.id"],
   "period": 11, "requests_per_period": 5}}]`},
			Err: "r.json:3: period 11s is not a period Cloudflare takes"},
		{Name: "no cf.colo.id", Main: "r.json", Files: map[string]string{"r.json": `{"action": "block", "expression": "true",
 "ratelimit": {"characteristics": ["ip.src"], "period": 10, "requests_per_period": 5}}`},
			Err: `r.json:2: characteristics must include "cf.colo.id"`},
		{Name: "a status out of range", Main: "r.json", Files: map[string]string{"r.json": `{"action": "block", "expression": "true",
 "action_parameters": {"response": {"status_code": 503}},
 "ratelimit": {"characteristics": ["cf.colo.id"], "period": 10, "requests_per_period": 5}}`},
			Err: "r.json:2: response.status_code must be a whole number from 400 to 499"},
		{Name: "a field Cloudflare has not", Main: "r.json", Files: map[string]string{"r.json": `{"action": "block", "expression": "true",
 "ratelimit": {"characteristics": ["cf.colo.id"], "period": 10, "requests_per_period": 5, "burst": 3}}`},
			Err: `r.json:2: ratelimit has no field "burst"`},
		{Name: "not JSON", Main: "r.json", Files: map[string]string{"r.json": "{\"action\": \"block\",\n \"expression\": true,,\n}"},
			Err: "r.json:2: not valid JSON"},
	})
}

// Cloudflare's lanes run with the file's parameters, and the lanes' algorithm
// takes them.
func TestLanes(t *testing.T) {
	c := configtest.MustRead(t, Info, "rules.json", cloudflareRuleset, false)
	lanes, notes := c.Ratelab("ip")
	if len(lanes) != 2 || lanes[0].Limits[0].Key != "{key}" || lanes[0].Limits[0].Options.MitigationTimeout != 10*time.Minute ||
		lanes[0].Limits[0].Options.DenyStatus != 403 || lanes[0].Limits[0].Policy != (algorithms.Policy{Limit: 100, Period: time.Minute}) {
		t.Errorf("cloudflare lanes %+v", lanes)
	}
	if len(notes) != 0 {
		t.Errorf("notes %v, want none (ip.src is the log's ip)", notes)
	}
	for _, l := range lanes {
		m := l.Limits[0]
		if _, err := algorithms.New(m.Algorithm, m.Policy, m.Options); err != nil {
			t.Errorf("lane %s: %v", l.Name, err)
		}
	}
}
