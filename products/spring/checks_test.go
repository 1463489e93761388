package spring

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
		{Name: "spring route, key-resolver", Text: configtest.YAML(`spring:
  cloud:
    gateway:
      routes:
      - id: "P"
        filters:
        - name: RequestRateLimiter
          args:
            key-resolver: "P"
            redis-rate-limiter.replenishRate: 10
            redis-rate-limiter.burstCapacity: 20
`), InLane: true, InNote: true, InLimitName: true},
		{Name: "spring status", Text: configtest.YAML(`spring:
  cloud:
    gateway:
      routes:
      - id: r
        filters:
        - name: RequestRateLimiter
          args:
            statusCode: "P"
            redis-rate-limiter.replenishRate: 10
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
	configtest.CheckByteOrderMark(t, Info, "application.yml", springYAML, false, false)
}

// What the snippet writer writes, read back as --config reads it, is one lane
// of one limit with the same parameters, and runs as the lane's policy
// (configtest.ReadBack).
func TestSnippetsReadBack(t *testing.T) {
	for _, c := range []configtest.ReadBack{
		{Write: func() ([]string, bool) {
			return routeYAML(Limit{Route: "ratelab", ReplenishRate: 22, BurstCapacity: 29 * 60, RequestedTokens: 60}, "user")
		}, Params: func(m products.Limit) string {
			return configtest.Diff(*m.Params.(*Limit), Limit{Route: "route ratelab", ReplenishRate: 22, BurstCapacity: 29 * 60, RequestedTokens: 60, Status: 429})
		},
			Policy: algorithms.Policy{Limit: 22, Period: time.Minute, Burst: 29}, Trace: "user"},
		{Write: func() ([]string, bool) {
			return routeYAML(Limit{Route: "r", ReplenishRate: 10, BurstCapacity: 20, RequestedTokens: 1}, "ip")
		}, Params: func(m products.Limit) string {
			return configtest.Diff(*m.Params.(*Limit), Limit{Route: "route r", ReplenishRate: 10, BurstCapacity: 20, RequestedTokens: 1, Status: 429})
		},
			Policy: algorithms.Policy{Limit: 10, Period: time.Second, Burst: 20}, Trace: ""},
	} {
		c.Check(t, Info)
	}
}

// No input makes the reader panic, hang or answer without a place.
func FuzzSpringConfig(f *testing.F) {
	configtest.Fuzz(f, Info, []string{springYAML, "", "spring: {cloud: {gateway: {routes: 3}}}"}, func(p products.Params) string {
		if _, ok := p.(*Limit); !ok {
			return "want the product's parameters"
		}
		return ""
	})
}
