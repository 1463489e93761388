package present

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

// The headers of a plain lane, a sharded lane (its shard's share) and a lane of
// several limits (a member per limit asked), each in its family; and as CSV
// columns after the others, a lane filling only its own family's.
func TestResponseHeaders(t *testing.T) {
	p := algorithms.Policy{Limit: 100, Period: time.Second, Burst: 20}
	plain := lane("plain", "token-bucket")
	shards := lane("shards", "token-bucket")
	shards.Shards, shards.Headers = 8, algorithms.HeadersLegacy
	multi := lane("multi", "token-bucket")
	multi.Headers = algorithms.HeadersDraft
	multi.Limits = []sim.LimitConfig{
		{Name: "rpm", Algorithm: "token-bucket", Policy: algorithms.Policy{Limit: 60, Period: time.Minute, Burst: 60}},
		{Name: "tpm", Algorithm: "token-bucket", Policy: algorithms.Policy{Limit: 1000, Period: time.Minute, Burst: 1000}},
	}
	x := lane("x", "gcra")
	x.Headers = algorithms.HeadersX
	cfg := newConfig(p, time.Second, []sim.LaneConfig{plain, shards, multi, x}, sim.Client{Name: "c"})
	for _, tc := range []struct {
		row  sim.Row
		want string
	}{
		{sim.Row{Lane: 0, Allowed: true, Remaining: 19, Limit: 20, ResetAfter: 10 * time.Millisecond, Shard: -1},
			`RateLimit-Policy: "default";q=100;w=1|RateLimit: "default";r=19;t=1`},
		{sim.Row{Lane: 1, Remaining: 0.5, Limit: 3, RetryAfter: 20 * time.Millisecond, ResetAfter: 200 * time.Millisecond, Shard: 5},
			"RateLimit-Limit: 12|RateLimit-Remaining: 0|RateLimit-Reset: 1|Retry-After: 1"},
		{sim.Row{Lane: 2, RetryAfter: 3 * time.Second, Shard: -1, Limits: []algorithms.Decision{{Allowed: true, Remaining: 10, Limit: 60, ResetAfter: 50 * time.Second}, {Remaining: 7, Limit: 1000, RetryAfter: 3 * time.Second, ResetAfter: 60 * time.Second}}},
			`RateLimit-Policy: "rpm";q=60;w=60, "tpm";q=1000;w=60|RateLimit: "rpm";r=10;t=50, "tpm";r=7;t=60|Retry-After: 3`},
		{sim.Row{Lane: 2, RetryAfter: time.Second, Shard: -1, Limits: []algorithms.Decision{{Remaining: 0, Limit: 60, RetryAfter: time.Second, ResetAfter: 60 * time.Second}, {}}},
			`RateLimit-Policy: "rpm";q=60;w=60|RateLimit: "rpm";r=0;t=60|Retry-After: 1`},
		{sim.Row{At: 2 * time.Second, Lane: 3, Allowed: true, Remaining: 4, Limit: 20, ResetAfter: 1500 * time.Millisecond, Shard: -1},
			"X-RateLimit-Limit: 100|X-RateLimit-Remaining: 4|X-RateLimit-Reset: 1767225604|X-RateLimit-Used: 96|X-RateLimit-Resource: default"},
	} {
		var got []string
		for _, h := range ResponseHeaders(cfg, tc.row) {
			got = append(got, h.Name+": "+h.Value)
		}
		if strings.Join(got, "|") != tc.want {
			t.Errorf("lane %s: got\n  %s\nwant\n  %s", cfg.Lanes[tc.row.Lane].Name, strings.Join(got, "|"), tc.want)
		}
	}

	var b bytes.Buffer
	w, err := NewRequestWriterWithHeaders(&b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]sim.Row{{Lane: 1, Remaining: 0.5, Limit: 3, RetryAfter: 20 * time.Millisecond, Shard: 5}, {Lane: 3, Allowed: true, Remaining: 4, Shard: -1}})
	w.Flush()
	records, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := strings.Join(records[0], ",")
	if want := RequestColumns + "," + RequestRuleColumns + ",RateLimit-Policy,RateLimit,RateLimit-Limit,RateLimit-Remaining,RateLimit-Reset,X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset,X-RateLimit-Used,X-RateLimit-Resource,Retry-After"; header != want {
		t.Errorf("columns:\n%s\nwant\n%s", header, want)
	}
	if got := strings.Join(records[1][21:], "|"); got != "||12|0|0||||||1" {
		t.Errorf("the sharded lane's row fills the legacy columns only: %q", got)
	}
	if len(records[2]) != len(records[0]) {
		t.Errorf("a row of %d cells under %d columns", len(records[2]), len(records[0]))
	}
	var plainCSV bytes.Buffer
	w, _ = NewRequestWriter(&plainCSV, cfg)
	w.Flush()
	if plainCSV.String() != RequestColumns+","+RequestRuleColumns+"\n" {
		t.Errorf("without headers the columns are the thirteen of the contract, the six of the fate and the two of the rule: %q", plainCSV.String())
	}
}

// A haproxy lane takes headers like any lane. HAProxy sends none of its own (a
// configuration adds them, http-response set-header with
// %[sc_http_req_rate(0)]), so ratelab's say what its decision would let a server
// say: the threshold less the rate left, the wait until the rate reads 0, and a
// refusal's exact wait rounded up to the second.
func TestHAProxyLaneHeaders(t *testing.T) {
	p := algorithms.Policy{Limit: 3, Period: 10 * time.Second}
	hx := lane("hx", algorithms.HAProxyName)
	hx.Options, hx.Headers = algorithms.Options{}, algorithms.HeadersLegacy
	cfg := newConfig(p, time.Minute, []sim.LaneConfig{hx}, sim.Client{Name: "c"})
	lim, err := algorithms.New(algorithms.HAProxyName, p, hx.Options)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		want string
	}{
		{"RateLimit-Limit: 3|RateLimit-Remaining: 2|RateLimit-Reset: 21"},                 // rate 1; it reads 0 at 23.001 s
		{"RateLimit-Limit: 3|RateLimit-Remaining: 1|RateLimit-Reset: 16"},                 // 2; ⌊2 × (23000 − u) / 10000⌋ = 0 from 18.001 s
		{"RateLimit-Limit: 3|RateLimit-Remaining: 0|RateLimit-Reset: 17"},                 // 3; from 19.667 s
		{"RateLimit-Limit: 3|RateLimit-Remaining: 0|RateLimit-Reset: 18|Retry-After: 13"}, // 4: denied until 15.501 s; 0 from 20.501 s
	} {
		d := lim.Allow("c", 3*time.Second, 1)
		row := sim.Row{At: 3 * time.Second, Allowed: d.Allowed, Remaining: d.Remaining, Limit: d.Limit, RetryAfter: d.RetryAfter, ResetAfter: d.ResetAfter, Shard: -1}
		var got []string
		for _, h := range ResponseHeaders(cfg, row) {
			got = append(got, h.Name+": "+h.Value)
		}
		if strings.Join(got, "|") != tc.want {
			t.Errorf("%+v: got %s, want %s", d, strings.Join(got, "|"), tc.want)
		}
	}
}
