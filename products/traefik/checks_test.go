package traefik

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
	} {
		c.Check(t, Info)
	}
}

// A file that begins with a UTF-8 byte-order mark (Notepad and Excel write
// one) reads as the same file without it, told by its content or named: the
// same lanes and the same notes, and no note, as YAML and TOML readers take
// the mark as what it is.
func TestByteOrderMark(t *testing.T) {
	configtest.CheckByteOrderMark(t, Info, "dynamic.yml", traefikYAML, false, false)
	configtest.CheckByteOrderMark(t, Info, "dynamic.toml", configtest.Testdata("dynamic.toml"), false, false)
}

// What the snippet writer writes, read back as --config reads it, is one lane
// of one limit with the same parameters, and runs as the lane's policy
// (configtest.ReadBack).
func TestSnippetsReadBack(t *testing.T) {
	for _, c := range []configtest.ReadBack{
		{Write: func() ([]string, bool) {
			return middlewareYAML(Limit{Middleware: "ratelab", Average: 22, Period: time.Minute, Burst: 29}, "ip")
		}, Params: func(m products.Limit) string {
			return configtest.Diff(*m.Params.(*Limit), Limit{Middleware: "ratelab", Average: 22, Period: time.Minute, Burst: 29})
		},
			Policy: algorithms.Policy{Limit: 22, Period: time.Minute, Burst: 29}, Trace: "ip"},
		{Write: func() ([]string, bool) {
			return middlewareYAML(Limit{Middleware: "m", Average: 3, Period: 1500 * time.Millisecond, Burst: 1}, "user")
		}, Params: func(m products.Limit) string {
			return configtest.Diff(*m.Params.(*Limit), Limit{Middleware: "m", Average: 3, Period: 1500 * time.Millisecond, Burst: 1})
		},
			Policy: algorithms.Policy{Limit: 3, Period: 1500 * time.Millisecond, Burst: 1}, Trace: ""},
	} {
		c.Check(t, Info)
	}
}

// No input makes the reader panic, hang or answer without a place.
func FuzzTraefikConfig(f *testing.F) {
	configtest.Fuzz(f, Info, []string{traefikYAML, "", "http: {middlewares: {m: {rateLimit: {}}}}", "[http.middlewares.m.rateLimit]\naverage = 1\n[[http.x]]\na = [1, {b = 2}]\n"}, func(p products.Params) string {
		if _, ok := p.(*Limit); !ok {
			return "want the product's parameters"
		}
		return ""
	})
}
