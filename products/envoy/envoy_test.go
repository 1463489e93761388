package envoy

import (
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

var (
	// envoyLocalFilter is a listener's HTTP filter chain with the local rate
	// limit filter, as Envoy's docs configure it.
	envoyLocalFilter = configtest.Testdata("envoy.yaml")
	// envoyLocalDescriptors is a route's typed_per_filter_config with
	// descriptors: a per-client bucket, a fixed-path one, and the default.
	envoyLocalDescriptors = configtest.Testdata("descriptors.yaml")
	// rlsConfig is envoyproxy/ratelimit's configuration, as its README writes
	// one.
	rlsConfig = configtest.Testdata("ratelimit.yaml")
)

func TestEnvoyLocalConfigs(t *testing.T) {
	configtest.CheckCases(t, Local, []configtest.Case{
		{Name: "a listener's filter", Files: map[string]string{"envoy.yaml": envoyLocalFilter}, Main: "envoy.yaml",
			Lanes: `stat_prefix http_local_rate_limiter @envoy.yaml:14
  envoy.yaml:17 key=the filter's token_bucket→shared max=10 fill=5/1s`,
			Warns: []string{"envoy.yaml:22: runtime_key lets Envoy's runtime change"}},
		{Name: "descriptors, slowest first, default last", Files: map[string]string{"envoy.yaml": envoyLocalDescriptors}, Main: "envoy.yaml",
			Lanes: `stat_prefix api @envoy.yaml:9
  envoy.yaml:19 key=descriptor path=/api/login→shared descriptor="path=/api/login" max=5 fill=5/1m0s
  envoy.yaml:17 key=descriptor client_id=→? descriptor="client_id=" max=20 fill=10/1s
  envoy.yaml:12 key=the filter's token_bucket→shared max=100 fill=100/1s`,
			Warns: []string{"envoy.yaml:17: a bucket for each value", "envoy.yaml:16: rate_limits actions"}},
		{Name: "the typed_config alone, shadow, per connection, default not consumed", Main: "rl.yaml", Files: map[string]string{"rl.yaml": `stat_prefix: rl
token_bucket: {max_tokens: 3, fill_interval: 0.5s}
filter_enabled: {default_value: {numerator: 50, denominator: HUNDRED}}
local_rate_limit_per_downstream_connection: true
always_consume_default_token_bucket: false
status: {code: BadRequest}
descriptors:
- entries: [{key: k, value: v}]
  token_bucket: {max_tokens: 1, tokens_per_fill: 1, fill_interval: {seconds: 2}}
`},
			Lanes: `stat_prefix rl @rl.yaml:1
  rl.yaml:8 key=descriptor k=v→shared descriptor="k=v" max=1 fill=1/2s`,
			Warns: []string{"rl.yaml:5: leaves the default bucket out", "rl.yaml:7: rate_limits actions", "rl.yaml:3: filter_enabled holds 50%",
				"rl.yaml:1: filter_enforced is 0%", "rl.yaml:4: each connection its own", "rl.yaml:6: the lane answers 429"}},
		{Name: "not enabled", Main: "rl.yaml", Files: map[string]string{"rl.yaml": "stat_prefix: rl\ntoken_bucket: {max_tokens: 3, fill_interval: 1s}\n"},
			Warns: []string{"rl.yaml:1: filter_enabled is 0%"}},
		{Name: "fill under 50ms", Main: "e.yaml", Files: map[string]string{"e.yaml": "stat_prefix: rl\ntoken_bucket:\n  max_tokens: 3\n  fill_interval: 0.01s\n"},
			Err: "e.yaml:4: Envoy refuses one under 50ms"},
		{Name: "no max_tokens", Main: "e.yaml", Files: map[string]string{"e.yaml": "stat_prefix: rl\ntoken_bucket:\n  fill_interval: 1s\n"},
			Err: "e.yaml:2: has no max_tokens"},
		{Name: "an unknown field", Main: "e.yaml", Files: map[string]string{"e.yaml": "\"@type\": type.googleapis.com/" + localType + "\nstat_prefix: rl\ntoken_bucket: {max_tokens: 1, fill_interval: 1s}\nburst: 3\n"},
			Err: `e.yaml:4: has no field "burst"`},
		{Name: "no stat_prefix", Main: "e.yaml", Files: map[string]string{"e.yaml": "x:\n  typed_config:\n    \"@type\": type.googleapis.com/" + localType + "\n    token_bucket: {max_tokens: 1, fill_interval: 1s}\n"},
			Err: "e.yaml:2: has no stat_prefix"},
		{Name: "a duplicate descriptor", Main: "e.yaml", Files: map[string]string{"e.yaml": "stat_prefix: rl\ndescriptors:\n- entries: [{key: a, value: b}]\n  token_bucket: {max_tokens: 1, fill_interval: 1s}\n- entries: [{key: a, value: b}]\n  token_bucket: {max_tokens: 2, fill_interval: 1s}\n"},
			Err: "e.yaml:5: is given twice"},
		{Name: "a bad duration", Main: "e.yaml", Files: map[string]string{"e.yaml": "stat_prefix: rl\ntoken_bucket: {max_tokens: 1, fill_interval: 1m}\n"},
			Err: `e.yaml:2: fill_interval must be a duration in seconds`},
		{Name: "not YAML", Main: "e.yaml", Files: map[string]string{"e.yaml": "stat_prefix: rl\ntoken_bucket:\n  max_tokens: 1\n fill_interval: 1s\n"},
			Err: "e.yaml:3: not valid YAML"},
		{Name: "no filter", Main: "e.yaml", Files: map[string]string{"e.yaml": "admin: {}\n"},
			Err: "e.yaml:1: no local rate limit filter here"},
	})
}

func TestEnvoyGlobalConfigs(t *testing.T) {
	configtest.CheckCases(t, Global, []configtest.Case{
		{Name: "the README's", Files: map[string]string{"rls.yaml": rlsConfig}, Main: "rls.yaml",
			Lanes: `edge_proxy_per_ip remote_address= @rls.yaml:3
  rls.yaml:4 key=descriptor remote_address=→? 10/second
edge_proxy_per_ip remote_address=10.0.0.1 @rls.yaml:7
  rls.yaml:9 key=descriptor remote_address=10.0.0.1→shared 600/minute shadow
edge_proxy_per_ip generic_key=api / path=/login @rls.yaml:16
  rls.yaml:18 key=descriptor generic_key=api / path=/login→shared 100/hour`,
			Warns: []string{"rls.yaml:3: counts each value", "rls.yaml:21: unlimited: true", "rls.yaml:1: rate_limits actions"}},
		{Name: "a bad unit", Main: "r.yaml", Files: map[string]string{"r.yaml": "domain: d\ndescriptors:\n- key: k\n  rate_limit:\n    unit: fortnight\n    requests_per_unit: 1\n"},
			Err: `r.yaml:5: unit "fortnight" is not one of the service's`},
		{Name: "no domain", Main: "r.yaml", Files: map[string]string{"r.yaml": "descriptors:\n- key: k\n"},
			Err: "r.yaml:1: has no domain"},
		{Name: "no key", Main: "r.yaml", Files: map[string]string{"r.yaml": "domain: d\ndescriptors:\n- value: v\n  rate_limit: {unit: second, requests_per_unit: 1}\n"},
			Err: "r.yaml:3: a descriptor needs its key"},
		{Name: "an unknown field", Main: "r.yaml", Files: map[string]string{"r.yaml": "domain: d\ndescriptors:\n- key: k\n  rate_limit: {unit: second, requests_per_unit: 1, burst: 2}\n"},
			Err: `r.yaml:4: rate_limit has no field "burst"`},
		{Name: "a duplicate", Main: "r.yaml", Files: map[string]string{"r.yaml": "domain: d\ndescriptors:\n- key: k\n  value: v\n- key: k\n  value: v\n"},
			Err: "r.yaml:5: is given twice"},
		{Name: "requests_per_unit too big", Main: "r.yaml", Files: map[string]string{"r.yaml": "domain: d\ndescriptors:\n- key: k\n  rate_limit:\n    unit: second\n    requests_per_unit: 5000000000\n"},
			Err: "r.yaml:6: requests_per_unit must be a whole number from 0 to 4294967295"},
	})
}

// The Envoy lanes run as algorithms/envoy_local.go and envoy_global.go say:
// the buckets in order (in-order), a lane a rate_limit, shadow mode kept.
func TestEnvoyRatelab(t *testing.T) {
	c := configtest.MustRead(t, Local, "envoy.yaml", envoyLocalDescriptors, false)
	lanes, _ := c.Ratelab("ip")
	if len(lanes) != 1 || lanes[0].Combine != algorithms.InOrder || len(lanes[0].Limits) != 3 {
		t.Fatalf("lanes %+v, want one in-order lane of 3 limits", lanes)
	}
	want := []struct {
		key    string
		policy algorithms.Policy
	}{
		{"shared descriptor path=/api/login", algorithms.Policy{Limit: 5, Period: 60e9, Burst: 5}},
		{"{key}", algorithms.Policy{Limit: 10, Period: 1e9, Burst: 20}},
		{"shared token_bucket", algorithms.Policy{Limit: 100, Period: 1e9, Burst: 100}},
	}
	for i, m := range lanes[0].Limits {
		if m.Key != want[i].key || m.Policy != want[i].policy || m.Algorithm != algorithms.EnvoyLocalName {
			t.Errorf("limit %d: %s %q %+v, want %q %+v", i, m.Algorithm, m.Key, m.Policy, want[i].key, want[i].policy)
		}
		if _, err := algorithms.New(m.Algorithm, m.Policy, m.Options); err != nil {
			t.Errorf("limit %d: %v", i, err)
		}
		if _, err := algorithms.ParseKeyTemplate(m.Key); err != nil {
			t.Errorf("limit %d: key %q: %v", i, m.Key, err)
		}
	}
	g := configtest.MustRead(t, Global, "rls.yaml", rlsConfig, false)
	lanes, _ = g.Ratelab("ip")
	if len(lanes) != 3 {
		t.Fatalf("%d lanes, want 3", len(lanes))
	}
	for i, l := range lanes {
		m := l.Limits[0]
		if _, err := algorithms.New(m.Algorithm, m.Policy, m.Options); err != nil || m.Algorithm != algorithms.EnvoyGlobalName {
			t.Errorf("lane %d %s: %s %v", i, l.Name, m.Algorithm, err)
		}
		if want := i == 1; m.Options.ShadowMode != want || strings.Contains(l.Name, ",") {
			t.Errorf("lane %d %s: shadow %v, want %v", i, l.Name, m.Options.ShadowMode, want)
		}
	}
}

// Envoy reads a token bucket's fill_interval in whole milliseconds: the filter
// and each descriptor take PROTOBUF_GET_MS_OR_DEFAULT of it (Protobuf's
// TimeUtil::DurationToMilliseconds, truncated; source/extensions/filters/
// http/local_ratelimit/local_ratelimit.cc at 673860c5, FilterConfig;
// source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc at
// 5a6c7aa8, the descriptors) and checks the 50 ms minimum on that. So 1.9999s
// is 1999 ms, and a request at 1.9995 s after the bucket's one token was
// taken passes (ratelab kept 1.9999 s and refused it until then).
func TestEnvoyFillIntervalInWholeMilliseconds(t *testing.T) {
	for _, c := range []struct {
		interval string
		want     time.Duration // 0: refused
		err      string
	}{
		{"1.9999s", 1999 * time.Millisecond, ""},
		{"{seconds: 1, nanos: 999999999}", 1999 * time.Millisecond, ""},
		{"0.0509s", 50 * time.Millisecond, ""},
		{"60.0001s", time.Minute, ""},
		{"2s", 2 * time.Second, ""},
		{"0.25s", 250 * time.Millisecond, ""},
		{"0.0499999s", 0, "e.yaml:5: the descriptor's token_bucket.fill_interval is 49ms (Envoy reads it in whole milliseconds); Envoy refuses one under 50ms"},
		{"0.000001s", 0, "e.yaml:5: the descriptor's token_bucket.fill_interval is 0s (Envoy reads it in whole milliseconds)"},
	} {
		text := "stat_prefix: rl\nfilter_enabled: {default_value: {numerator: 100}}\ndescriptors:\n- entries: [{key: k, value: v}]\n  token_bucket: {max_tokens: 1, fill_interval: " + c.interval + "}\n"
		cfg, err := configtest.Read(Local, "e.yaml", []byte(text), products.Options{Product: Local})
		if c.want == 0 {
			if err == nil || !strings.HasPrefix(err.Error(), c.err) {
				t.Errorf("fill_interval %s: %v; want %s…", c.interval, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("fill_interval %s: %v", c.interval, err)
			continue
		}
		if got := cfg.Lanes[0].Limits[0].Params.(*LocalLimit).FillInterval; got != c.want {
			t.Errorf("fill_interval %s is read as %v, want %v", c.interval, got, c.want)
		}
		// a note says so where the file's interval is not whole milliseconds
		noted := slices.ContainsFunc(cfg.Warnings, func(w products.Warning) bool {
			return w.Place.Line == 5 && strings.Contains(w.Text, "whole milliseconds") && strings.Contains(w.Text, c.want.String())
		})
		if want := c.interval != "2s" && c.interval != "0.25s"; noted != want {
			t.Errorf("fill_interval %s: a note at line 5 that Envoy runs %v: %v, want %v (%v)", c.interval, c.want, noted, want, cfg.Warnings)
		}
	}
	// the lane runs it: one token per 1999 ms, taken at 0, back at 1.999 s
	cfg := configtest.MustRead(t, Local, "e.yaml", "stat_prefix: rl\nfilter_enabled: {default_value: {numerator: 100}}\nfilter_enforced: {default_value: {numerator: 100}}\ntoken_bucket: {max_tokens: 1, tokens_per_fill: 1, fill_interval: 1.9999s}\n", true)
	lanes, _ := cfg.Ratelab("")
	m := lanes[0].Limits[0]
	lim, err := algorithms.New(m.Algorithm, m.Policy, m.Options)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		at      time.Duration
		allowed bool
	}{{0, true}, {1998 * time.Millisecond, false}, {1999500 * time.Microsecond, true}} {
		if d := lim.Allow("k", s.at, 1); d.Allowed != s.allowed {
			t.Errorf("Allow(%v) = %v, want %v (Envoy's bucket fills a token every 1999 ms)", s.at, d.Allowed, s.allowed)
		}
	}
}
