package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/producttest"
	"ratelab/products"
)

// tune --target prints its recommendation as the lines to paste into the
// product's configuration: in a minimal configuration the product accepts
// them (nginx -t, haproxy -c), and read back they are the recommended
// policy, with its knobs, as the product's lane runs it.
func TestTuneTargetSnippet(t *testing.T) {
	for _, c := range []struct {
		product products.Product
		wrap    func(lines []string) string
		check   func(t testing.TB, path string) producttest.Result
	}{
		{products.Nginx, func(lines []string) string {
			var http, ctx []string
			for _, l := range lines {
				if strings.HasPrefix(l, "limit_req_zone") {
					http = append(http, l)
				} else {
					ctx = append(ctx, l)
				}
			}
			return "events {}\nhttp {\n" + strings.Join(http, "\n") + "\nserver {\nlisten 127.0.0.1:8080;\nlocation / {\n" + strings.Join(ctx, "\n") + "\n}\n}\n}\n"
		}, producttest.NginxTest},
		{products.HAProxy, func(lines []string) string {
			var backend, frontend []string
			for _, l := range lines {
				if strings.HasPrefix(l, "backend ") || strings.HasPrefix(l, "stick-table") {
					backend = append(backend, l)
				} else {
					frontend = append(frontend, l)
				}
			}
			return "defaults\n    mode http\n    timeout client 5s\n    timeout server 5s\n    timeout connect 1s\n" + strings.Join(backend, "\n    ") +
				"\nfrontend fe\n    bind 127.0.0.1:8080\n    " + strings.Join(frontend, "\n    ") + "\n    default_backend be\nbackend be\n    server s1 127.0.0.1:8081\n"
		}, producttest.HAProxyCheck},
	} {
		t.Run(c.product.String(), func(t *testing.T) {
			dir := t.TempDir()
			report := filepath.Join(dir, "grid.json")
			code, out, errOut := ratelab("tune", "--trace", "traces/shop.log", "--target", c.product.String(), "--json", report)
			if code != 0 {
				t.Fatalf("tune --target %s: exit %d: %s", c.product, code, errOut)
			}
			_, snippet, ok := strings.Cut(out, "\nThe recommendation")
			if !ok {
				t.Fatalf("no recommendation to paste in:\n%s", out)
			}
			var lines []string
			for _, l := range strings.Split(snippet, "\n") {
				if strings.HasPrefix(l, "    ") {
					lines = append(lines, strings.TrimSpace(l))
				}
			}
			conf := c.wrap(lines)
			path := filepath.Join(dir, "product.conf")
			if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
				t.Fatal(err)
			}
			if r := c.check(t, path); !r.OK {
				t.Fatalf("the product refuses the snippet:\n%s\n%s", r.Output, conf)
			}
			cfg, err := products.ReadFile(path, products.Options{Product: c.product})
			if err != nil {
				t.Fatalf("reading the snippet back: %v\n%s", err, conf)
			}
			lanes, _ := cfg.Ratelab("ip")
			if len(lanes) != 1 || len(lanes[0].Limits) != 1 {
				t.Fatalf("the snippet reads as %d lanes, want one of one limit:\n%s", len(lanes), conf)
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
			switch {
			case string(got.Algorithm) != want.Algorithm, got.Policy.Limit != want.Limit, got.Policy.Period != time.Duration(want.PeriodMS*float64(time.Millisecond)):
				t.Errorf("the snippet is %s %+v, the recommendation %+v", got.Algorithm, got.Policy, want)
			case c.product == products.Nginx && (got.Policy.Burst != want.Burst || got.Options.Nodelay != strings.Contains(want.Options, "nodelay") ||
				(got.Options.Delay > 0) != strings.HasPrefix(knobs, "delay=")):
				t.Errorf("the snippet is burst %d %+v, the recommendation burst %d %q", got.Policy.Burst, got.Options, want.Burst, want.Options)
			case c.product == products.HAProxy && (got.Options.TrackSC == algorithms.TrackAfterDeny) != strings.Contains(want.Options, "after-deny"):
				t.Errorf("the snippet tracks %v, the recommendation %q", got.Options.TrackSC, want.Options)
			}
			if !strings.Contains(snippet, "On traces/shop.log it refuses") {
				t.Errorf("the snippet does not say what it does to the log:\n%s", snippet)
			}
		})
	}
}
