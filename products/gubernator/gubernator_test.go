package gubernator

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// A GetRateLimitsReq's requests, in YAML or JSON, are lanes of Gubernator's
// token bucket, limit hits per duration ms; GLOBAL and the daemon's sync wait
// are noted as the deployment's; the leaky bucket is refused at its line, and
// a limit of 0 is no lane.
func TestReadsTheRequests(t *testing.T) {
	configtest.CheckCases(t, Info, []configtest.Case{
		{Name: "sample", Main: "g.yaml", Files: map[string]string{"g.yaml": configtest.Testdata("requests.yaml")},
			Lanes: "rate limit requests_per_min @g.yaml:5\n  g.yaml:5 key=unique_key account→? limit=60/1m0s GLOBAL",
			Warns: []string{"g.yaml:3: global_sync_wait", "g.yaml:10: GLOBAL"}},
		{Name: "json", Main: "g.json", Files: map[string]string{"g.json": `{"requests": [{"name": "a", "unique_key": "u", "limit": 10, "duration": 1000}, {"name": "b", "unique_key": "u", "limit": 0, "duration": 1000}]}`},
			Lanes: "rate limit a @g.json:1\n  g.json:1 key=unique_key u→? limit=10/1s", Warns: []string{"g.json:1: limit 0"}},
		{Name: "leaky", Main: "g.yaml", Files: map[string]string{"g.yaml": "requests:\n  - {name: a, unique_key: u, limit: 5, duration: 1000, algorithm: LEAKY_BUCKET}\n"},
			Err: "g.yaml:2: LEAKY_BUCKET is not modelled"},
		{Name: "no duration", Main: "g.yaml", Files: map[string]string{"g.yaml": "requests:\n  - {name: a, limit: 5}\n"},
			Err: "g.yaml:2: duration is missing"},
	})
	configtest.CheckLaneLimits(t, Info, configtest.Testdata("requests.yaml"),
		products.RatelabLimit{Algorithm: algorithms.GubernatorName, Policy: algorithms.Policy{Limit: 60, Period: time.Minute}})
}

// Names and values from the file are shown as escapes.
func TestChecks(t *testing.T) {
	configtest.Checks{
		Escapes: []configtest.Escapes{
			{Name: "gubernator name", Text: configtest.YAML("requests:\n  - name: \"P\"\n    unique_key: u\n    limit: 5\n    duration: 1000\n"), InLane: true, InLimitName: true},
		},
		Marked: map[string]string{"requests.yaml": configtest.Testdata("requests.yaml")},
	}.Run(t, Info)
}

// No input makes the reader panic, hang or answer without a place.
func FuzzGubernatorConfig(f *testing.F) {
	configtest.Fuzz(f, Info, []string{configtest.Testdata("requests.yaml"), "", "[]", `{"requests": [{"limit": 1, "duration": 1}]}`}, configtest.Is[*Limit])
}
