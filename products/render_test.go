package products

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// What the YAML and JSON writers write, Read reads back (the product told by
// the content, as --config does) to one lane of one limit with the same
// parameters, keyed by the log's field where the product has one, and
// Config.Ratelab runs it as the lane's policy.
func TestSnippetsReadBack(t *testing.T) {
	type want struct {
		policy algorithms.Policy
		trace  string // the key's log field; "" when it is not mapped
	}
	for i, c := range []struct {
		product *Info
		write   func() ([]string, bool)
		check   func(m Limit) string // what differs, "" when nothing
		want    want
	}{
		{Cloudflare, func() ([]string, bool) {
			return CloudflareJSON(CloudflareLimit{Rule: "ratelab", Period: 10 * time.Second, RequestsPerPeriod: 22, MitigationTimeout: 10 * time.Second, Status: 429}, "ip")
		}, func(m Limit) string {
			return diff(*m.Params.(*CloudflareLimit), CloudflareLimit{Rule: "ratelab", Period: 10 * time.Second, RequestsPerPeriod: 22, MitigationTimeout: 10 * time.Second, Action: "block", Status: 429,
				Characteristics: []string{"cf.colo.id", "ip.src"}})
		}, want{algorithms.Policy{Limit: 22, Period: 10 * time.Second}, "ip"}},
		{Cloudflare, func() ([]string, bool) {
			return CloudflareJSON(CloudflareLimit{Rule: "per path", Period: time.Hour, RequestsPerPeriod: 5000, Status: 403}, "path+method")
		}, func(m Limit) string {
			return diff(*m.Params.(*CloudflareLimit), CloudflareLimit{Rule: "per path", Period: time.Hour, RequestsPerPeriod: 5000, Action: "block", Status: 403,
				Characteristics: []string{"cf.colo.id", "http.request.uri.path", "http.request.method"}})
		}, want{algorithms.Policy{Limit: 5000, Period: time.Hour}, "path+method"}},
		{APIGateway, func() ([]string, bool) {
			return APIGatewayJSON(APIGatewayLimit{RateMilli: 22_000, Burst: 29}, "ratelab"), true
		},
			func(m Limit) string {
				return diff(*m.Params.(*APIGatewayLimit), APIGatewayLimit{Scope: "usage plan ratelab", RateMilli: 22_000, Burst: 29})
			}, want{algorithms.Policy{Limit: 22, Period: time.Second, Burst: 29}, ""}},
		{APIGateway, func() ([]string, bool) {
			return APIGatewayJSON(APIGatewayLimit{RateMilli: 1500, Burst: 1}, "slow"), true
		},
			func(m Limit) string {
				return diff(*m.Params.(*APIGatewayLimit), APIGatewayLimit{Scope: "usage plan slow", RateMilli: 1500, Burst: 1})
			},
			want{algorithms.Policy{Limit: 1500, Period: 1000 * time.Second, Burst: 1}, ""}},
		{Spring, func() ([]string, bool) {
			return SpringYAML(SpringLimit{Route: "ratelab", ReplenishRate: 22, BurstCapacity: 29 * 60, RequestedTokens: 60}, "user")
		}, func(m Limit) string {
			return diff(*m.Params.(*SpringLimit), SpringLimit{Route: "route ratelab", ReplenishRate: 22, BurstCapacity: 29 * 60, RequestedTokens: 60, Status: 429})
		}, want{algorithms.Policy{Limit: 22, Period: time.Minute, Burst: 29}, "user"}},
		{Spring, func() ([]string, bool) {
			return SpringYAML(SpringLimit{Route: "r", ReplenishRate: 10, BurstCapacity: 20, RequestedTokens: 1}, "ip")
		}, func(m Limit) string {
			return diff(*m.Params.(*SpringLimit), SpringLimit{Route: "route r", ReplenishRate: 10, BurstCapacity: 20, RequestedTokens: 1, Status: 429})
		}, want{algorithms.Policy{Limit: 10, Period: time.Second, Burst: 20}, ""}},
		{Traefik, func() ([]string, bool) {
			return TraefikYAML(TraefikLimit{Middleware: "ratelab", Average: 22, Period: time.Minute, Burst: 29}, "ip")
		}, func(m Limit) string {
			return diff(*m.Params.(*TraefikLimit), TraefikLimit{Middleware: "ratelab", Average: 22, Period: time.Minute, Burst: 29})
		}, want{algorithms.Policy{Limit: 22, Period: time.Minute, Burst: 29}, "ip"}},
		{Traefik, func() ([]string, bool) {
			return TraefikYAML(TraefikLimit{Middleware: "m", Average: 3, Period: 1500 * time.Millisecond, Burst: 1}, "user")
		}, func(m Limit) string {
			return diff(*m.Params.(*TraefikLimit), TraefikLimit{Middleware: "m", Average: 3, Period: 1500 * time.Millisecond, Burst: 1})
		}, want{algorithms.Policy{Limit: 3, Period: 1500 * time.Millisecond, Burst: 1}, ""}},
		{Kong, func() ([]string, bool) {
			return KongYAML(KongLimit{Windows: [6]int64{2: 220}, Policy: "local", Status: 429}, "ip")
		}, func(m Limit) string {
			return diff(*m.Params.(*KongLimit), KongLimit{Plugin: "rate-limiting", Windows: [6]int64{2: 220}, Policy: "local", Status: 429})
		}, want{algorithms.Policy{Limit: 220, Period: time.Hour}, "ip"}},
		{Kong, func() ([]string, bool) {
			return KongYAML(KongLimit{Windows: [6]int64{0: 5}, Policy: "redis", Status: 503}, "user")
		}, func(m Limit) string {
			return diff(*m.Params.(*KongLimit), KongLimit{Plugin: "rate-limiting", Windows: [6]int64{0: 5}, Policy: "redis", Status: 503})
		}, want{algorithms.Policy{Limit: 5, Period: time.Second}, "user"}},
	} {
		lines, ok := c.write()
		if !ok {
			t.Fatalf("case %d: the writer has no key for the log's field", i)
		}
		data := strings.Join(lines, "\n") + "\n"
		cfg, err := Read("snippet", []byte(data), Options{})
		if err != nil {
			t.Fatalf("case %d (%s): %v\n%s", i, c.product, err, data)
		}
		if cfg.Product != c.product || len(cfg.Lanes) != 1 || len(cfg.Lanes[0].Limits) != 1 {
			t.Fatalf("case %d: read as %s: %s\n%s", i, cfg.Product, describe(cfg), data)
		}
		m := cfg.Lanes[0].Limits[0]
		if d := c.check(m); d != "" {
			t.Errorf("case %d (%s): read back %s\n%s", i, c.product, d, data)
		}
		if trace := map[bool]string{true: m.Key.Trace}[m.Key.Mapped]; trace != c.want.trace || m.Key.Shared {
			t.Errorf("case %d (%s): keyed by %+v, want the log's %q", i, c.product, m.Key, c.want.trace)
		}
		lanes, _ := cfg.Ratelab("ip")
		if len(lanes) != 1 || len(lanes[0].Limits) != 1 || lanes[0].Limits[0].Policy != c.want.policy || lanes[0].Limits[0].Algorithm != algorithms.Name(c.product.String()) {
			t.Errorf("case %d (%s): runs as %+v, want %s %+v", i, c.product, lanes, c.product, c.want.policy)
		}
	}
}

// diff says how got differs from want, "" when it does not.
func diff[T any](got, want T) string {
	g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want)
	if g == w {
		return ""
	}
	return g + ", want " + w
}
