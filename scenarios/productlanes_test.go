package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ratelab/products/all"
	"ratelab/sim"
)

// productDoc is a scenario of one client sending 20 requests a second for two
// seconds, and the lanes given.
func productDoc(lanes string) string {
	return `[[scenario]]
name = "s"
duration = "2s"

[scenario.policy]
limit = 5

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 20

` + lanes
}

// A lane written as a product's configuration becomes one lane per context
// that limits, named after it, running the product's lane with the file's
// parameters: several limit_req all or nothing.
func TestProductLanesFromConfig(t *testing.T) {
	doc := productDoc(`[[scenario.lane]]
product = "nginx"
config = '''
events {}
http {
    limit_req_zone $binary_remote_addr zone=one:1m rate=2r/s;
    limit_req_zone $server_name zone=all:1m rate=60r/m;
    server {
        listen 8080;
        location / { limit_req zone=one burst=3 nodelay; }
        location /api/ {
            limit_req zone=one burst=3 nodelay;
            limit_req zone=all burst=1 nodelay;
            limit_req_status 429;
        }
    }
}
'''

[[scenario.lane]]
name = "ha"
product = "haproxy"
config = '''
defaults
    mode http
frontend fe
    stick-table type ip size 100k expire 30s store http_req_rate(1s)
    http-request track-sc0 src
    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 4 }
'''
`)
	cfg := compileS(t, doc)
	var names []string
	for _, l := range cfg.Lanes {
		names = append(names, l.Name)
	}
	want := []string{"nginx: server 8080 location /", "nginx: server 8080 location /api/", "ha"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Fatalf("lanes %q, want %q", names, want)
	}
	api := cfg.Lanes[1]
	if len(api.Limits) != 2 || api.Combine.String() != "all-or-nothing" || api.Limits[0].Policy.Burst != 4 || api.Limits[1].Template.String() != "shared all" || api.Limits[1].Options.DenyStatus != 429 {
		t.Errorf("the /api/ lane: %+v; want two limits all or nothing, burst 4 (burst=3 and the request), the second on one shared key, status 429", api)
	}
	if len(cfg.Notes) != 2 || !strings.Contains(cfg.Notes[0], `test.toml:18: zone "one" holds the limits of 2 lanes`) || !strings.Contains(cfg.Notes[1], `test.toml:19: limit_req_zone "all": key $server_name`) {
		t.Errorf("notes %q; want the shared key and the shared zone at their lines of the scenario file", cfg.Notes)
	}
	ms := runConfig(t, cfg)
	// 40 requests, 50 ms apart: nginx 2r/s with burst=3 nodelay lets 4 through
	// at once and then one each 500 ms; the /api/ lane also holds all to 1 a
	// second with burst=1; HAProxy counts every request, so after 4 in the
	// first second the client, sending 20 a second, stays over
	for i, w := range []int64{4 + 3, 2 + 1, 4} {
		if ms[i].Accepted != w {
			t.Errorf("lane %q accepted %d of 40, want %d", cfg.Lanes[i].Name, ms[i].Accepted, w)
		}
	}
}

func runConfig(t *testing.T, cfg *sim.Config) []sim.Metrics {
	t.Helper()
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	return r.Metrics()
}

// A product lane's configuration errors are placed at their lines: of the
// scenario file for a config written in it, of the file for a config_file;
// its keys at theirs.
func TestProductLaneErrors(t *testing.T) {
	files := map[string]string{
		"conf/nginx.conf":   "events {}\nhttp {\n  limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;\n  include sites/*.conf;\n  server { listen 8080; location / { limit_req zone=a burst=2; } }\n}\n",
		"conf/bad.conf":     "events {}\nhttp {\n  include sites/x.conf;\n}\n",
		"conf/sites/x.conf": "server {\n  listen 8081;\n  limit_req zone=b;\n}\n",
		"conf/empty.conf":   "events {}\nhttp {\n  server { listen 8080; limit_rate 10k; }\n}\n",
	}
	for _, c := range []struct{ name, lane, want string }{
		{"a typo in the config", "product = \"nginx\"\nconfig = '''\nevents {}\nhttp {\n    limit_req_zon $binary_remote_addr zone=a:1m rate=1r/s;\n}\n'''\n",
			`test.toml:18: scenario "s": lane 1: unknown directive "limit_req_zon"; did you mean limit_req_zone?`},
		{"a typo on the config's first line", "product = \"haproxy\"\nconfig = 'frontnd fe'\n",
			`test.toml:15: scenario "s": lane 1: unknown keyword 'frontnd' out of section`},
		{"an error in an included file", "name = \"prod\"\nproduct = \"nginx\"\nconfig_file = \"conf/bad.conf\"\n",
			`conf/sites/x.conf:3: scenario "s": lane "prod": limit_req zone=b: no limit_req_zone declares zone "b"`},
		{"a file that is not there", "product = \"nginx\"\nconfig_file = \"conf/nginx.cnf\"\n",
			`test.toml:15:15: scenario "s": lane 1: open dir/conf/nginx.cnf: file does not exist`},
		{"no product", "config_file = \"conf/nginx.conf\"\n",
			`test.toml:14:15: scenario "s": lane 1: a product's configuration needs its product: add product = "nginx" (` + strings.Join(all.Products.Names(), " or ") + `)`},
		{"no configuration", "product = \"haproxy\"\n",
			`test.toml:14:11: scenario "s": lane 1: a haproxy lane reads its configuration: give config`},
		{"both", "product = \"nginx\"\nconfig = 'events {}'\nconfig_file = \"conf/nginx.conf\"\n",
			`test.toml:16:15: scenario "s": lane 1: give the configuration once`},
		{"a policy beside it", "product = \"nginx\"\nconfig_file = \"conf/nginx.conf\"\nburst = 3\n",
			`test.toml:14:11: scenario "s": lane 1: a nginx lane takes its limits, and everything else about them, from its configuration: remove burst`},
		{"instances beside it", "product = \"nginx\"\nconfig_file = \"conf/nginx.conf\"\ninstances = 3\n",
			`test.toml:14:11: scenario "s": lane 1: a nginx lane takes its limits, and everything else about them, from its configuration: remove instances`},
		{"a misspelt product", "product = \"ngnix\"\nconfig_file = \"conf/nginx.conf\"\n",
			`did you mean "nginx"`},
		{"nothing limits", "product = \"nginx\"\nconfig_file = \"conf/empty.conf\"\n",
			`test.toml:15:15: scenario "s": lane 1: its nginx configuration limits no request (it has no limit_req in a server or location): conf/empty.conf:3: limit_rate 10k limits the response's bandwidth`},
		// Traefik takes a negative average as no limit (rate.Inf), as 0: the
		// configuration limits nothing, and the note says why at its line
		{"a negative Traefik average", "product = \"traefik\"\nconfig = '''\nhttp:\n  middlewares:\n    m:\n      rateLimit:\n        average: -5\n        period: 0\n'''\n",
			`scenario "s": lane 1: its traefik configuration limits no request (it has no rateLimit middleware with an average above 0): dir/test.toml:21: period 0 is a second to Traefik (rate_limiter.go:70, if period == 0 { period = time.Second }), and to the lane; dir/test.toml:20: average -5: Traefik limits nothing, as with 0 (rate_limiter.go:75-80`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, productDoc("[[scenario.lane]]\n"+c.lane), files)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant %q", err, c.want)
			}
		})
	}
}

// A product lane's limits are keyed as the trace is: a limit keyed by
// something else keeps the trace's key, and a note says so; a claim names the
// lanes a configuration describes.
func TestProductLaneKeysAndClaims(t *testing.T) {
	doc := `[[scenario]]
name = "s"

[scenario.policy]
limit = 5

[[scenario.lane]]
name = "api"
product = "nginx"
config = '''
events {}
http {
    limit_req_zone $http_x_api_key zone=k:1m rate=1r/s;
    server { listen 8080; limit_req zone=k burst=2 nodelay; }
}
'''

[[scenario.client]]
name = "log"
pattern = "trace"
file = "access.log"

[[scenario.claim]]
id = "held"
says = "the api lane refuses some"
lane = "api"
metric = "denied"
op = ">"
value = 0
`
	log := strings.Repeat(`10.0.0.1 - alice [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.0" 200 2326`+"\n", 10)
	c, err := parse(t, doc, map[string]string{"access.log": log})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("s", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range cfg.Notes {
		if strings.Contains(n, "test.toml:14: nginx keys this limit by $http_x_api_key (the log's user); the requests replayed are keyed by ip") {
			found = true
		}
	}
	if !found {
		t.Errorf("notes %q; want the key's difference at its line", cfg.Notes)
	}
	if ms := runConfig(t, cfg); ms[0].Accepted != 3 || ms[0].Denied != 7 {
		t.Errorf("the lane accepted %d and denied %d of 10 requests in one second, want 3 (burst=2 nodelay) and 7", ms[0].Accepted, ms[0].Denied)
	}
}

// Envoy's YAML becomes envoy-local lanes (the descriptors' buckets in order,
// slowest first, the default last) and envoy-global lanes (a rate_limit each),
// placed at the scenario file's lines.
func TestEnvoyProductLanes(t *testing.T) {
	doc := productDoc(`[[scenario.lane]]
product = "envoy-local"
config = '''
stat_prefix: rl
token_bucket: {max_tokens: 10, tokens_per_fill: 10, fill_interval: 1s}
filter_enabled: {default_value: {numerator: 100}}
filter_enforced: {default_value: {numerator: 100}}
descriptors:
- entries: [{key: path, value: /login}]
  token_bucket: {max_tokens: 2, tokens_per_fill: 2, fill_interval: 1s}
'''

[[scenario.lane]]
product = "envoy-global"
config = '''
domain: edge
descriptors:
- key: generic_key
  value: all
  rate_limit: {unit: second, requests_per_unit: 5}
  shadow_mode: false
'''
`)
	cfg := compileS(t, doc)
	var names []string
	for _, l := range cfg.Lanes {
		names = append(names, l.Name)
	}
	want := []string{"envoy-local: stat_prefix rl", "envoy-global: edge generic_key=all"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Fatalf("lanes %q, want %q", names, want)
	}
	local := cfg.Lanes[0]
	if len(local.Limits) != 2 || local.Combine.String() != "in-order" || local.Limits[0].Policy.Burst != 2 || local.Limits[1].Template.String() != "shared token_bucket" {
		t.Errorf("the local lane: %+v; want the descriptor's bucket (2) then the default, in order", local)
	}
	if len(cfg.Notes) != 2 || !strings.Contains(cfg.Notes[0], "test.toml:20: which requests carry a descriptor") || !strings.Contains(cfg.Notes[1], "test.toml:28: which of these descriptors") {
		t.Errorf("notes %q; want the descriptors' matching at their lines of the scenario file", cfg.Notes)
	}
	ms := runConfig(t, cfg)
	// 40 requests, 50 ms apart: the /login bucket lets 2 through and then
	// one each 500 ms (at 0.55s, 1.05s, 1.55s), before the default's 10;
	// the service's 5 a second counts in windows of the Unix epoch's seconds
	for i, w := range []int64{2 + 3, 5 + 5} {
		if ms[i].Accepted != w {
			t.Errorf("lane %q accepted %d of 40, want %d", cfg.Lanes[i].Name, ms[i].Accepted, w)
		}
	}
}

// Spring's, Traefik's and Kong's YAML become their lanes, with the file's
// parameters.
func TestGatewayProductLanes(t *testing.T) {
	doc := productDoc(`[[scenario.lane]]
product = "spring"
config = '''
spring:
  cloud:
    gateway:
      routes:
      - id: api
        filters:
        - name: RequestRateLimiter
          args: {redis-rate-limiter.replenishRate: 2, redis-rate-limiter.burstCapacity: 4}
'''

[[scenario.lane]]
product = "traefik"
config = '''
http:
  middlewares:
    rl:
      rateLimit: {average: 3, period: 1s, burst: 2}
'''

[[scenario.lane]]
product = "kong"
config = '''
plugins:
- name: rate-limiting
  config: {second: 5, policy: local, limit_by: ip}
'''
`)
	cfg := compileS(t, doc)
	var names []string
	for _, l := range cfg.Lanes {
		names = append(names, fmt.Sprintf("%s %s %d/%s", l.Name, l.Algorithm, l.Policy.Limit, l.Policy.Period))
	}
	want := []string{"spring: route api spring 2/1s", "traefik: middleware rl traefik 3/1s", "kong: rate-limiting kong 5/1s"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Fatalf("lanes %q, want %q", names, want)
	}
	ms := runConfig(t, cfg)
	// 40 requests, 50 ms apart, over 2 s: Kong's 5 a second in each of
	// the 2 seconds
	if ms[2].Accepted != 10 {
		t.Errorf("kong accepted %d of 40, want 10", ms[2].Accepted)
	}
}

// A compiled scenario lists every file on disk it was read from — the scenario
// file, its trace, a lane's config_file and what that includes — so that a
// command can keep its outputs off them (sim.Config.Files).
func TestCompileListsTheFilesItReads(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("conf/nginx.conf", "events {}\nhttp {\n  include zones/*.conf;\n  server { listen 8080; location / { limit_req zone=a burst=2; } }\n}\n")
	write("conf/zones/a.conf", "limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;\n")
	write("logs/t.csv", "time_ms,key\n0,a\n5,b\n")
	write("s.toml", `[[scenario]]
name = "s"

[scenario.policy]
limit = 5

[[scenario.lane]]
product = "nginx"
config_file = "conf/nginx.conf"

[[scenario.client]]
name = "log"
pattern = "trace"
file = "logs/t.csv"
`)
	c, err := Load(filepath.Join(dir, "s.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("s", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range cfg.Files {
		rel, err := filepath.Rel(dir, f)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.ToSlash(rel))
	}
	slices.Sort(got)
	if want := []string{"conf/nginx.conf", "conf/zones/a.conf", "logs/t.csv", "s.toml"}; !slices.Equal(got, want) {
		t.Errorf("Files = %v, want %v", got, want)
	}
}
