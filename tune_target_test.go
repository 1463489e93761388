package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/producttest"
	"ratelab/products"
	"ratelab/products/all"
	"ratelab/products/cloudflare"
	"ratelab/products/envoy"
	"ratelab/products/haproxy"
	"ratelab/products/kong"
	"ratelab/products/nginx"
	"ratelab/products/spring"
	"ratelab/products/traefik"
)

// tune --target prints its recommendation as the lines to paste into the
// product's configuration: in a minimal configuration the product accepts
// them (nginx -t, haproxy -c, for the two installed here), and read back by
// the reader --config uses they are the recommended policy, with its knobs,
// as the product's lane runs it. Every target of the list is checked, on the
// log keyed by ip and, for a product that keys by it, by user.
func TestTuneTargetSnippet(t *testing.T) {
	// the YAML and JSON products' snippets are the whole file, indented by
	// four spaces
	whole := func(lines []string) string { return strings.Join(lines, "\n") + "\n" }
	type targetCase struct {
		product *products.Info
		key     string
		args    []string // more flags
		wrap    func(lines []string) string
		check   func(t testing.TB, path string) producttest.Result
	}
	cases := []targetCase{
		{nginx.Info, "", nil, func(lines []string) string {
			var http, ctx []string
			for _, l := range lines {
				l = strings.TrimSpace(l)
				if strings.HasPrefix(l, "limit_req_zone") {
					http = append(http, l)
				} else {
					ctx = append(ctx, l)
				}
			}
			return "events {}\nhttp {\n" + strings.Join(http, "\n") + "\nserver {\nlisten 127.0.0.1:8080;\nlocation / {\n" + strings.Join(ctx, "\n") + "\n}\n}\n}\n"
		}, producttest.NginxTest},
		{haproxy.Info, "", nil, func(lines []string) string {
			var backend, frontend []string
			for _, l := range lines {
				l = strings.TrimSpace(l)
				if strings.HasPrefix(l, "backend ") || strings.HasPrefix(l, "stick-table") {
					backend = append(backend, l)
				} else {
					frontend = append(frontend, l)
				}
			}
			return "defaults\n    mode http\n    timeout client 5s\n    timeout server 5s\n    timeout connect 1s\n" + strings.Join(backend, "\n    ") +
				"\nfrontend fe\n    bind 127.0.0.1:8080\n    " + strings.Join(frontend, "\n    ") + "\n    default_backend be\nbackend be\n    server s1 127.0.0.1:8081\n"
		}, producttest.HAProxyCheck},
		{envoy.Local, "ip+path", []string{"--periods", "1m"}, whole, nil},
		{envoy.Global, "user", []string{"--periods", "1m,24h"}, whole, nil},
		{cloudflare.Info, "path", []string{"--periods", "1m"}, whole, nil},
		{spring.Info, "user", []string{"--periods", "1m"}, whole, nil},
		{traefik.Info, "", []string{"--periods", "10s"}, whole, nil},
		{kong.Info, "user", []string{"--periods", "1s,1m"}, whole, nil},
	}
	// every target, on the log keyed by ip as it is: a whole document, for
	// a product the table does not wrap
	for _, p := range all.Products {
		if p.Target != nil && !slices.ContainsFunc(cases, func(c targetCase) bool { return c.product == p && c.key == "" && c.args == nil }) {
			cases = append(cases, targetCase{p, "", nil, whole, nil})
		}
	}
	for _, c := range cases {
		t.Run(strings.Join(append([]string{c.product.String(), c.key}, c.args...), " "), func(t *testing.T) {
			dir := t.TempDir()
			report := filepath.Join(dir, "grid.json")
			args := append([]string{"tune", "--trace", "traces/shop.log", "--target", c.product.String(), "--json", report}, c.args...)
			traceKey := "ip"
			if c.key != "" {
				args, traceKey = append(args, "--key", c.key), c.key
			}
			code, out, errOut := ratelab(args...)
			if code != 0 {
				t.Fatalf("tune --target %s: exit %d: %s", c.product, code, errOut)
			}
			_, snippet, ok := strings.Cut(out, "\nThe recommendation")
			if !ok {
				t.Fatalf("no recommendation to paste in:\n%s", out)
			}
			if strings.Contains(snippet, "that carries it") {
				t.Errorf("the snippet has no key for the log's %s:\n%s", traceKey, snippet)
			}
			var lines []string
			for _, l := range strings.Split(snippet, "\n") {
				if rest, ok := strings.CutPrefix(l, "    "); ok {
					lines = append(lines, rest)
				}
			}
			conf := c.wrap(lines)
			path := filepath.Join(dir, "product.conf")
			if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
				t.Fatal(err)
			}
			if c.check != nil {
				if r := c.check(t, path); !r.OK {
					t.Fatalf("the product refuses the snippet:\n%s\n%s", r.Output, conf)
				}
			}
			cfg, err := all.Products.ReadFile(path, products.Options{Product: c.product})
			if err != nil {
				t.Fatalf("reading the snippet back: %v\n%s", err, conf)
			}
			if p, ok := all.Products.Detect([]byte(conf)); c.check == nil && (!ok || p != c.product) {
				t.Errorf("the snippet is told as %v (%v), want %s: --config would not read it without --config-format", p, ok, c.product)
			}
			lanes, _ := cfg.Ratelab(traceKey)
			if len(lanes) != 1 || len(lanes[0].Limits) != 1 {
				t.Fatalf("the snippet reads as %d lanes, want one of one limit:\n%s", len(lanes), conf)
			}
			if lanes[0].Limits[0].Key != "{key}" {
				t.Errorf("the snippet's limit is kept under %q, not each client's key:\n%s", lanes[0].Limits[0].Key, conf)
			}
			got := lanes[0].Limits[0]
			var grid struct {
				Recommended int `json:"recommended"`
				Policies    []struct {
					Algorithm string  `json:"algorithm"`
					Limit     int64   `json:"limit"`
					PeriodMS  float64 `json:"period_ms"`
					Burst     int64   `json:"burst"`
					Options   string  `json:"options"`
				} `json:"policies"`
			}
			data, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &grid); err != nil || grid.Recommended < 0 {
				t.Fatalf("the grid's JSON: %v (recommended %d)", err, grid.Recommended)
			}
			want := grid.Policies[grid.Recommended]
			knobs := strings.Join(strings.Fields(strings.NewReplacer("nodelay", "", "before-deny", "").Replace(want.Options)), " ")
			info := algorithms.MustLookup(got.Algorithm)
			switch {
			case string(got.Algorithm) != want.Algorithm, got.Policy.Limit != want.Limit, got.Policy.Period != time.Duration(want.PeriodMS*float64(time.Millisecond)):
				t.Errorf("the snippet is %s %+v, the recommendation %+v", got.Algorithm, got.Policy, want)
			case info.HasBurst() && got.Policy.Burst != want.Burst, !info.HasBurst() && got.Policy.Burst != 0:
				t.Errorf("the snippet's burst is %d, the recommendation's %d", got.Policy.Burst, want.Burst)
			case c.product == nginx.Info && (got.Options.Nodelay != strings.Contains(want.Options, "nodelay") ||
				(got.Options.Delay > 0) != strings.HasPrefix(knobs, "delay=")):
				t.Errorf("the snippet is burst %d %+v, the recommendation burst %d %q", got.Policy.Burst, got.Options, want.Burst, want.Options)
			case c.product == haproxy.Info && (got.Options.TrackSC == algorithms.TrackAfterDeny) != strings.Contains(want.Options, "after-deny"):
				t.Errorf("the snippet tracks %v, the recommendation %q", got.Options.TrackSC, want.Options)
			case c.product == cloudflare.Info && fmt.Sprintf("mitigation_timeout=%d", got.Options.MitigationTimeout/time.Second) != cmp.Or(want.Options, "mitigation_timeout=0"):
				t.Errorf("the snippet's mitigation_timeout is %s, the recommendation %q", got.Options.MitigationTimeout, want.Options)
			case c.product != nginx.Info && c.product != haproxy.Info && c.product != cloudflare.Info && want.Options != "":
				t.Errorf("the recommendation has knobs %q the snippet does not write", want.Options)
			}
			if !strings.Contains(snippet, "On traces/shop.log it refuses") {
				t.Errorf("the snippet does not say what it does to the log:\n%s", snippet)
			}
		})
	}
}

// A period, rate or burst a product cannot write is refused before the log is
// read, exit 2, naming the flag and what the product writes; so is a product
// tune writes no configuration for.
func TestTuneTargetRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--target", "nginx", "--periods", "1s,10s"}, "--periods: nginx cannot write a limit per 10s: it writes rate=Nr/s or rate=Nr/m (1s, 1m)"},
		{[]string{"--target", "kong", "--period", "2h"}, "--period: kong cannot write a limit per 2h0m0s: it writes second, minute, hour or day windows"},
		{[]string{"--target", "envoy-global", "--periods", "1s,168h"}, "--periods: envoy-global cannot write a limit per 168h0m0s"},
		{[]string{"--target", "cloudflare", "--periods", "1s"}, "--periods: cloudflare cannot write a limit per 1s: it writes a period of 10s, 15s"},
		{[]string{"--target", "api-gateway", "--periods", "1m"}, "--periods: api-gateway cannot write a limit per 1m0s: it writes rateLimit, requests a second (1s)"},
		{[]string{"--target", "spring", "--periods", "1500ms"}, "--periods: spring cannot write a limit per 1.5s: it writes replenishRate tokens a second"},
		{[]string{"--target", "envoy-local", "--periods", "10ms"}, "--periods: envoy-local cannot write a limit per 10ms: it writes a fill_interval of 50ms or more"},
		{[]string{"--target", "haproxy", "--periods", "1500us"}, "--periods: haproxy cannot write a limit per 1.5ms"},
		{[]string{"--target", "kong", "--burst", "1..10"}, "--burst: kong has no burst (it counts a limit per period); drop --burst"},
		{[]string{"--target", "cloudflare", "--burst", "5"}, "--burst: cloudflare has no burst"},
		{[]string{"--target", "envoy-local", "--rate", "1..5000000000"}, "--rate: envoy-local holds a limit of at most 4294967295 (got 1..5000000000); lower its MAX"},
		{[]string{"--target", "api-gateway", "--burst", "1..3000000000"}, "--burst: api-gateway holds a burst of at most 2147483647"},
		{[]string{"--target", "guava"}, `--target: unknown product "guava"`},
		{[]string{"--target", "kong", "--rate", "1..4294967296"}, "--rate: 4294967296 per 1m is more than ratelab's exact arithmetic holds ((limit + cost) × period in µs stays below 2^53): at most 150119986 per 1m; lower its MAX"},
		{[]string{"--rate", "1..9223372036854775807"}, "--rate: 9223372036854775807 per 1s is more than ratelab's exact arithmetic holds"},
		{[]string{"--target", "traefik", "--periods", "1h", "--burst", "1..3000000"}, "--burst: 3000000 per 1h is more than ratelab's exact arithmetic holds ((limit + cost) × period in µs stays below 2^53): at most 2501998 per 1h"},
		{[]string{"--target", "kong", "--algorithms", "kong"}, "--target sweeps the product's own lane; drop --algorithms"},
	} {
		args := append([]string{"tune", "--trace", "traces/no-such.log"}, c.args...)
		code, out, errOut := ratelab(args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("ratelab %s: exit %d, %q on stderr; want exit 2 and %q", strings.Join(args[1:], " "), code, errOut, c.want)
		}
	}
}

// A product that counts requests sees every request of a log as one: tune
// --target reads no cost for it (traces/access-log.csv has requests of cost 5),
// as --cost-field none does; --cost-field cost still reads them when asked.
func TestTuneTargetCountsRequests(t *testing.T) {
	for _, target := range []string{"nginx", "kong", "traefik", "api-gateway", "haproxy"} {
		run := func(extra ...string) string {
			args := append([]string{"tune", "--trace", "traces/access-log.csv", "--target", target, "--single", "--verbose"}, extra...)
			code, out, errOut := ratelab(args...)
			if code != 0 {
				t.Fatalf("ratelab %s: exit %d, %.300q", strings.Join(args[1:], " "), code, errOut)
			}
			return out
		}
		byDefault, none, costs := run(), run("--cost-field", "none"), run("--cost-field", "cost")
		if byDefault != none {
			t.Errorf("--target %s: the sweep differs from --cost-field none's; a product that counts requests reads no cost", target)
		}
		if byDefault == costs {
			t.Errorf("--target %s: the sweep is --cost-field cost's; the log's costs should not be read", target)
		}
	}
}

// What a snippet says of the log's keys: a CSV's default key is its key field
// (not the client's address), the anonymous "-" of a log's user is said to
// pass unlimited in the product, and a usage plan's API key is said not to be
// a request's path.
func TestTuneTargetKeyNotes(t *testing.T) {
	csv := filepath.Join(t.TempDir(), "ones.csv")
	if err := os.WriteFile(csv, []byte("time_ms,key\n0,alice\n10,bob\n20,alice\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"--trace", csv, "--target", "nginx", "--single"}, "(nginx has no variable for the log's key", "$binary_remote_addr"},
		{[]string{"--trace", "traces/shop.log", "--target", "nginx", "--key", "user"}, `The log's user "-", no user, sent 1483 of its 1647 requests`, ""},
		{[]string{"--trace", "traces/shop.log", "--target", "nginx"}, "limit_req_zone $binary_remote_addr", "no user"},
		{[]string{"--trace", "traces/shop.log", "--target", "api-gateway", "--key", "path"}, "the log's path is not one", ""},
	} {
		code, out, errOut := ratelab(append([]string{"tune"}, c.args...)...)
		out = strings.Join(strings.Fields(out), " ") // the answer wraps its sentences at 80 columns
		if code != 0 || !strings.Contains(out, c.want) || c.not != "" && strings.Contains(out, c.not) {
			t.Errorf("ratelab tune %s: exit %d (%.200q); want %q in the output, and not %q", strings.Join(c.args, " "), code, errOut, c.want, c.not)
		}
	}
}

// tune merge of --target partials prints the product's snippet, as one run
// does, and refuses partials of different targets.
func TestTuneMergeTargetSnippet(t *testing.T) {
	dir := t.TempDir()
	var parts []string
	for k, target := range []string{"nginx", "nginx", "kong"} {
		p := filepath.Join(dir, fmt.Sprintf("p%d", k))
		part := fmt.Sprintf("%d/2", k%2)
		if code, _, errOut := ratelab("tune", "--trace", "traces/shop.log", "--target", target, "--partition", part, "--partial", p); code != 0 {
			t.Fatalf("partition %s of --target %s: exit %d, %.300q", part, target, code, errOut)
		}
		parts = append(parts, p)
	}
	code, out, errOut := ratelab("tune", "merge", parts[0], parts[1])
	if code != 0 || !strings.Contains(out, "The recommendation") || !strings.Contains(out, "limit_req zone=ratelab") {
		t.Errorf("tune merge of --target nginx partials: exit %d (%.200q), no snippet in:\n%.2000s", code, errOut, out)
	}
	if code, _, errOut := ratelab("tune", "merge", parts[0], parts[2]); code != 2 || !strings.Contains(errOut, `--target "nginx"`) {
		t.Errorf("tune merge of nginx and kong partials: exit %d, %q; want exit 2 naming the targets", code, errOut)
	}
}
