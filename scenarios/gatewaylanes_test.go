package scenarios

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"ratelab/algorithms"
	"ratelab/present"
	"ratelab/sim"
)

// headerRows runs cfg with the headers in the request CSV, and returns its
// rows as column → value, header row first.
func headerRows(t *testing.T, cfg *sim.Config) []map[string]string {
	t.Helper()
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	w, err := present.NewRequestWriterWithHeaders(&b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.OnRows(w.Write)
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, c := range recs[0] {
			m[c] = rec[i]
		}
		rows = append(rows, m)
	}
	return rows
}

// A kong lane sends Kong's headers unless told otherwise: the spec's
// validate_headers (minute = 6, hour = 99999, seven requests in a second)
// through a scenario, each window's pair and RateLimit-* of the minute; a
// kong.yml plugin's lane too; hide_client_headers sends none, and a headers
// key beside it is refused.
func TestKongLaneSendsKongsHeaders(t *testing.T) {
	const head = `[[scenario]]
name = "s"
duration = "700ms"

[scenario.policy]
limit = 6
period = "1m"

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 10
`
	for _, tc := range []struct{ name, lane string }{
		{"kong lane", `[[scenario.lane]]
name = "kong"
algorithm = "kong"
kong_windows = { hour = 99999 }
`},
		{"kong.yml", `[[scenario.lane]]
product = "kong"
config = '''
plugins:
- name: rate-limiting
  config: {minute: 6, hour: 99999, policy: local}
'''
`},
	} {
		cfg := compileS(t, head+tc.lane)
		if cfg.Lanes[0].Headers != algorithms.HeadersKong {
			t.Fatalf("%s: headers %v, want kong", tc.name, cfg.Lanes[0].Headers)
		}
		var remaining []string
		for i, row := range headerRows(t, cfg) {
			remaining = append(remaining, row["X-RateLimit-Remaining-Minute"])
			if row["RateLimit-Limit"] != "6" || row["X-RateLimit-Limit-Hour"] != "99999" || row["RateLimit-Remaining"] != row["X-RateLimit-Remaining-Minute"] ||
				row["RateLimit-Reset"] != "60" || (row["allowed"] == "false") != (i == 6) || (row["Retry-After"] != "") != (i == 6) {
				t.Errorf("%s: request %d: %v", tc.name, i+1, row)
			}
		}
		if want := []string{"5", "4", "3", "2", "1", "0", "0"}; !slices.Equal(remaining, want) {
			t.Errorf("%s: X-RateLimit-Remaining-Minute %v, want %v", tc.name, remaining, want)
		}
	}

	hidden := compileS(t, head+`[[scenario.lane]]
name = "kong"
algorithm = "kong"
hide_client_headers = true
`)
	for i, row := range headerRows(t, hidden) {
		for col, v := range row {
			if v != "" && (strings.Contains(col, "RateLimit") || col == "Retry-After") {
				t.Errorf("hide_client_headers: request %d: %s = %q, want none", i+1, col, v)
			}
		}
	}
	yml := compileS(t, head+`[[scenario.lane]]
product = "kong"
config = '''
plugins:
- name: rate-limiting
  config: {minute: 6, hide_client_headers: true}
'''
`)
	if !yml.Lanes[0].Options.HideClientHeaders {
		t.Error("kong.yml: hide_client_headers: true is not the lane's")
	}
	c, err := parse(t, head+`[[scenario.lane]]
name = "kong"
algorithm = "kong"
hide_client_headers = true
headers = "legacy"
`, nil)
	if err == nil {
		_, err = c.Compile("s", Overrides{})
	}
	if err == nil || !strings.Contains(err.Error(), "hide_client_headers = true sends no rate-limit headers") {
		t.Errorf("headers beside hide_client_headers: %v", err)
	}
}

// A Spring route's statusCode is its lane's deny_status: a refusal is that
// status, named as Spring's HttpStatus is, in the request CSV.
func TestSpringStatusCodeIsTheLanes(t *testing.T) {
	cfg := compileS(t, `[[scenario]]
name = "s"
duration = "1s"

[scenario.policy]
limit = 1

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 10

[[scenario.lane]]
product = "spring"
config = '''
spring:
  cloud:
    gateway:
      routes:
      - id: r
        filters:
        - name: RequestRateLimiter
          args:
            redis-rate-limiter.replenishRate: 1
            redis-rate-limiter.burstCapacity: 1
            statusCode: SERVICE_UNAVAILABLE
'''
`)
	if got := cfg.Lanes[0].Options.DenyStatus; got != 503 {
		t.Fatalf("deny_status %d, want 503", got)
	}
	statuses := map[string]int{}
	for _, row := range headerRows(t, cfg) {
		statuses[row["allowed"]+" "+row["http_status"]+" "+row["product_status"]]++
	}
	if statuses["true 200 allowed"] != 1 || statuses["false 503 SERVICE_UNAVAILABLE"] != 9 || len(statuses) != 2 {
		t.Errorf("statuses %v, want 1 allowed (200) and 9 refused with 503 SERVICE_UNAVAILABLE", statuses)
	}
}

// A lane whose product counts requests, not units (Info.CountsRequests) is
// refused a client that may send a request costing more than 1, at what sets
// the cost, naming the lane and the fix; a product that charges units (spring,
// guava, the token bucket) takes it.
func TestRequestCountingLanesRefuseCosts(t *testing.T) {
	const head = `[[scenario]]
name = "s"
duration = "2s"

[scenario.policy]
limit = 10
burst = 10
`
	client := func(extra string) string {
		return "\n[[scenario.client]]\nname = \"c\"\npattern = \"constant\"\nrate = 5\n" + extra
	}
	lane := func(body string) string { return "\n[[scenario.lane]]\n" + body }
	for _, tc := range []struct{ name, doc, want string }{
		{"nginx, cost", lane("algorithm = \"nginx\"\n") + client("cost = 3\n"),
			`client "c": cost = 3, but lane "nginx" runs nginx, which counts requests, not units: each request is 1 there, whatever it costs, so ratelab refuses to decide one that costs more; remove cost (1 is the default), or run the lane on an algorithm that charges units (token-bucket, say)`},
		{"haproxy, cost_distribution", lane("algorithm = \"haproxy\"\n") + client("cost_distribution = { distribution = \"uniform\", min = 1, max = 4 }\n"),
			`client "c": cost_distribution draws costs up to 4, but lane "haproxy" runs haproxy, which counts requests, not units`},
		{"kong, hand file", lane("algorithm = \"kong\"\nperiod = \"1s\"\n") + "\n[[scenario.client]]\nname = \"c\"\npattern = \"hand\"\nkey = \"a\"\nfile = \"sent.csv\"\n",
			`client "c": its file sends a request of cost 2 at 500ms, but lane "kong" runs kong, which counts requests, not units`},
		{"traefik, a limit's cost", lane("name = \"both\"\nalgorithm = \"token-bucket\"\n[[scenario.lane.limits]]\nname = \"units\"\n[[scenario.lane.limits]]\nname = \"gateway\"\nalgorithm = \"traefik\"\ncost = 2\n") + client(""),
			`lane "both": limit "gateway": cost = 2, but traefik counts requests, not units`},
		{"api-gateway, cost", lane("algorithm = \"api-gateway\"\n") + client("cost = 2\n"),
			`client "c": cost = 2, but lane "api-gateway" runs api-gateway, which counts requests, not units`},
		{"spring charges units", lane("algorithm = \"spring\"\n") + client("cost = 2\n"), ""},
		{"guava charges units", lane("algorithm = \"guava\"\n") + client("cost = 2\n"), ""},
		{"a traefik limit of cost 1 beside units", lane("name = \"both\"\nalgorithm = \"token-bucket\"\n[[scenario.lane.limits]]\nname = \"units\"\n[[scenario.lane.limits]]\nname = \"gateway\"\nalgorithm = \"traefik\"\ncost = 1\n") + client("cost = 2\n"), ""},
		{"nginx, cost 1", lane("algorithm = \"nginx\"\n") + client("cost = 1\n"), ""},
	} {
		c, err := parse(t, head+tc.doc, map[string]string{"sent.csv": "time_ms,key,cost\n100,a,1\n500,a,2\n"})
		if err == nil {
			_, err = c.Compile("s", Overrides{})
		}
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want it compiled", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s:\n got %v\nwant …%s…", tc.name, err, tc.want)
		}
	}
}
