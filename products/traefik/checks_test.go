package traefik

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products/internal/configtest"
)

// Traefik's reader shows its dynamic configuration's text as escapes where
// the YAML or the TOML puts names and values (a middleware's name, a header,
// a period), reads its samples, YAML and TOML, the same when they begin with a
// byte-order mark (no note), and reads back what its snippet writes: a
// middleware of the same average, period and burst (configtest.Checks).
func TestChecks(t *testing.T) {
	configtest.Checks{
		Escapes: []configtest.Escapes{
			{Name: "traefik middleware, header", Text: configtest.YAML(`http:
  middlewares:
    "P":
      rateLimit:
        average: 10
        sourceCriterion:
          requestHeaderName: "P"
`), InLane: true, InNote: true, InLimitName: true},
			{Name: "traefik TOML middleware", Text: configtest.TOML(`[http.middlewares."P".rateLimit]
average = 10
`), InLane: true, InLimitName: true},
			{Name: "traefik period", Text: configtest.YAML(`http:
  middlewares:
    m:
      rateLimit:
        average: 10
        period: "P"
`), InError: true},
		},
		Marked: map[string]string{"dynamic.yml": traefikYAML, "dynamic.toml": configtest.Testdata("dynamic.toml")},
		ReadBack: []configtest.ReadBack{
			{Wrote: configtest.Wrote(middlewareYAML(Limit{Middleware: "ratelab", Average: 22, Period: time.Minute, Burst: 29}, "ip")),
				Want: &Limit{Middleware: "ratelab", Average: 22, Period: time.Minute, Burst: 29}, Policy: algorithms.Policy{Limit: 22, Period: time.Minute, Burst: 29}, Trace: "ip"},
			{Wrote: configtest.Wrote(middlewareYAML(Limit{Middleware: "m", Average: 3, Period: 1500 * time.Millisecond, Burst: 1}, "user")),
				Want: &Limit{Middleware: "m", Average: 3, Period: 1500 * time.Millisecond, Burst: 1}, Policy: algorithms.Policy{Limit: 3, Period: 1500 * time.Millisecond, Burst: 1}, Trace: ""},
		},
	}.Run(t, Info)
}

// No input makes the dynamic configuration's reader panic, hang or answer
// without a place.
func FuzzTraefikConfig(f *testing.F) {
	configtest.Fuzz(f, Info, []string{traefikYAML, "", "http: {middlewares: {m: {rateLimit: {}}}}", "[http.middlewares.m.rateLimit]\naverage = 1\n[[http.x]]\na = [1, {b = 2}]\n"}, configtest.Is[*Limit])
}
