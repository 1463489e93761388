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
