package e2e

import (
	"os"
	"path/filepath"
	"ratelab/internal/check"
	"strings"
	"testing"
)

// e2eLog is a Combined Log of one client sending 30 requests in three seconds.
func e2eLog() string {
	var b strings.Builder
	for i := range 30 {
		b.WriteString("10.0.0.1 - - [10/Oct/2000:13:55:3" + string(rune('0'+i/10)) + ` -0700] "GET /api/x HTTP/1.1" 200 12 "-" "curl"` + "\n")
	}
	return b.String()
}

// writeFiles writes files into a new folder and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		check.Setup(t, os.MkdirAll(filepath.Dir(p), 0o755))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const e2eNginx = `events {}
http {
    limit_req_zone $binary_remote_addr zone=perip:1m rate=2r/s;
    limit_conn_zone $binary_remote_addr zone=addr:1m;
    server {
        listen 8080;
        location /api/ {
            limit_req zone=perip burst=3 nodelay;
            limit_conn addr 5;
        }
    }
}
`

// run and tui --trace --config: the configuration's contexts that limit join
// the replay as lanes named after them, what the lanes do not model is a note
// on standard error (file:line, exit 0), and a file the product would refuse
// is exit 2 naming its file:line and the fix, before any sweep.
func TestConfigLanesOnATrace(t *testing.T) {
	dir := writeFiles(t, map[string]string{"access.log": e2eLog(), "nginx.conf": e2eNginx,
		"bad.conf":    "events {}\nhttp {\n  limit_req_zone $binary_remote_addr zone=perip:1m rate=2r/s;\n  server { location / { limit_req zone=perlp; } }\n}\n",
		"haproxy.cfg": "defaults\n    mode http\nfrontend fe\n    stick-table type ip size 1k store http_req_rate(10s)\n    http-request track-sc0 src\n    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 5 }\n"})
	in := func(name string) string { return filepath.Join(dir, name) }
	code, out, errOut := ratelab(t, "run", "--trace", in("access.log"), "--config", in("nginx.conf"))
	if code != 0 || !strings.Contains(out, "nginx: server 8080 location /api/") {
		t.Fatalf("run --trace --config: exit %d\n%s%s", code, out, errOut)
	}
	note := in("nginx.conf") + ":9: limit_conn addr 5 limits concurrent connections per key"
	if !strings.Contains(errOut, note) || strings.Contains(errOut, "ratelab:") {
		t.Errorf("stderr %q; want the note %q, and no error", errOut, note)
	}
	code, out, _ = ratelab(t, "run", "--trace", in("access.log"), "--config", in("haproxy.cfg"), "--format", "json")
	if code != 0 || !strings.Contains(out, `"haproxy: frontend fe"`) {
		t.Errorf("run --trace --config haproxy.cfg --format json: exit %d\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--trace", in("access.log"), "--config", in("bad.conf")},
			"ratelab: --config " + in("bad.conf") + `:4: limit_req zone=perlp: no limit_req_zone declares zone "perlp" (nginx -t: zero size shared memory zone "perlp"); did you mean zone=perip?`},
		{[]string{"tui", "--trace", in("access.log"), "--config", in("bad.conf")}, "ratelab: --config " + in("bad.conf") + ":4:"},
		{[]string{"run", "--trace", in("access.log"), "--config", in("access.log")}, "give --config-format nginx or haproxy"},
		{[]string{"run", "--trace", in("access.log"), "--config", in("nginx.conf"), "--config-format", "envoy"}, `--config-format: unknown product "envoy"; use nginx or haproxy`},
		{[]string{"run", "--scenario", "boundary-burst", "--config", in("nginx.conf")}, "run: --config adds lanes to the scenario --trace replays"},
		{[]string{"run", "--trace", in("access.log"), "--scenario", "boundary-burst"}, "run: --trace replays its own scenario"},
		{[]string{"tune", "--trace", in("access.log"), "--target", "nginx", "--algorithms", "gcra"}, "tune: --target sweeps the product's own lane; drop --algorithms"},
	} {
		code, _, errOut := ratelab(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("ratelab %s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}

// tune --target prints the recommendation as the product's lines, and what
// they do to the log.
func TestTuneTarget(t *testing.T) {
	dir := writeFiles(t, map[string]string{"access.log": e2eLog()})
	for _, c := range []struct{ target, want string }{
		{"nginx", "limit_req_zone $binary_remote_addr zone=ratelab:1m rate="},
		{"haproxy", "http-request track-sc0 src table ratelab_limit"},
		{"envoy-local", "- {key: remote_address, value: \"\"}"},
		{"envoy-global", "- key: remote_address"},
		{"cloudflare", `"characteristics": ["cf.colo.id", "ip.src"],`},
		{"api-gateway", `"burstLimit": `},
		{"spring", "redis-rate-limiter.replenishRate: "},
		{"traefik", "rateLimit:"},
		{"kong", "- name: rate-limiting"},
	} {
		code, out, errOut := ratelab(t, "tune", "--trace", filepath.Join(dir, "access.log"), "--target", c.target)
		if code != 0 || !strings.Contains(out, c.want) || !strings.Contains(out, "access.log it refuses") {
			t.Errorf("tune --target %s: exit %d; want %q and what it does to the log\n%s%s", c.target, code, c.want, out, errOut)
		}
	}
}

// docs/scenarios.md's example of a product's configuration runs as written,
// with a haproxy.cfg beside it.
func TestDocsProductConfigurationRuns(t *testing.T) {
	section := docSection(t, "docs/scenarios.md", "### A product's configuration")
	_, rest, _ := strings.Cut(section, "```toml\n")
	example, _, _ := strings.Cut(rest, "```")
	dir := writeFiles(t, map[string]string{"my.toml": example,
		"haproxy.cfg": "defaults\n    mode http\nfrontend fe\n    stick-table type ip size 1k store http_req_rate(10s)\n    http-request track-sc0 src\n    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 20 }\n"})
	code, out, errOut := ratelab(t, "run", "--file", filepath.Join(dir, "my.toml"), "--scenario", "my-nginx")
	if code != 0 || !strings.Contains(out, "nginx: server 8080 location /api/") || !strings.Contains(out, "edge") {
		t.Fatalf("the product example of docs/scenarios.md: exit %d\n%s%s", code, out, errOut)
	}
}

// run --trace --config reads the YAML and JSON products too, told by their
// content: Envoy's local rate limit filter, a Cloudflare rule, a kong.yml;
// what they do that the lanes do not model is a note at its line, and a
// value the product refuses is exit 2 at its file:line.
func TestConfigLanesOfYAMLAndJSON(t *testing.T) {
	dir := writeFiles(t, map[string]string{"access.log": e2eLog(),
		"envoy.yaml": `http_filters:
- name: envoy.filters.http.local_ratelimit
  typed_config:
    "@type": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
    stat_prefix: edge
    token_bucket: {max_tokens: 5, tokens_per_fill: 2, fill_interval: 1s}
    filter_enabled: {default_value: {numerator: 100}}
    filter_enforced: {default_value: {numerator: 50}}
`,
		"rules.json": `{"description": "per ip", "action": "block", "expression": "true",
 "ratelimit": {"characteristics": ["cf.colo.id", "ip.src"], "period": 10, "requests_per_period": 5}}
`,
		"kong.yml": "_format_version: \"3.0\"\nplugins:\n- name: rate-limiting\n  config:\n    second: 2\n    limit_by: ip\n",
		"bad.yaml": "stat_prefix: edge\ntoken_bucket:\n  max_tokens: 5\n  fill_interval: 0.01s\n"})
	in := func(name string) string { return filepath.Join(dir, name) }
	for _, c := range []struct{ file, lane, note string }{
		{"envoy.yaml", "envoy-local: stat_prefix edge", in("envoy.yaml") + ":8: filter_enforced is 50%"},
		{"rules.json", "cloudflare: per ip", ""},
		{"kong.yml", "kong: rate-limiting", ""},
	} {
		code, out, errOut := ratelab(t, "run", "--trace", in("access.log"), "--config", in(c.file))
		if code != 0 || !strings.Contains(out, c.lane) || !strings.Contains(errOut, c.note) || strings.Contains(errOut, "ratelab:") {
			t.Errorf("run --trace --config %s: exit %d; want the lane %q and the note %q\n%s%s", c.file, code, c.lane, c.note, out, errOut)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--trace", in("access.log"), "--config", in("bad.yaml"), "--config-format", "envoy-local"},
			"ratelab: --config " + in("bad.yaml") + ":4: token_bucket.fill_interval is 10ms; Envoy refuses one under 50ms"},
		{[]string{"run", "--trace", in("access.log"), "--config", in("bad.yaml")}, "give --config-format nginx or haproxy or envoy-local"},
		{[]string{"tune", "--trace", in("access.log"), "--target", "kong", "--periods", "10s"}, "--periods: kong cannot write a limit per 10s: it writes second, minute, hour or day windows (1s, 1m, 1h, 24h)"},
	} {
		code, _, errOut := ratelab(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("ratelab %s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}
