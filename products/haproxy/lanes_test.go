package haproxy

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// The lanes a haproxy.cfg maps to let through what HAProxy lets through: six
// requests from one client, back to back, against each frontend (measured on
// HAProxy 2.6.12 on loopback with this configuration: gt 2 with the track
// before the deny 2 of 6, looked up before the track 3 of 6,
// sc_http_req_rate(0) before any track 6 of 6: a deny that never refuses, no
// lane).
func TestLanesDecideAsTheServer(t *testing.T) {
	cfg, err := configtest.Read(Info, "haproxy.cfg", []byte(`defaults
    mode http
backend st
    stick-table type ip size 1k expire 30s store http_req_rate(10s)
frontend before
    bind 127.0.0.1:18091
    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 2 }
    http-request track-sc0 src table st
frontend after
    bind 127.0.0.1:18092
    http-request track-sc0 src table st
    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 2 }
frontend lookup
    bind 127.0.0.1:18093
    http-request deny deny_status 429 if { src_http_req_rate(st) gt 2 }
    http-request track-sc0 src table st
`), products.Options{})
	if err != nil {
		t.Fatal(err)
	}
	configtest.CheckAllowed(t, cfg, 6, map[string]int{"frontend after": 2, "frontend lookup": 3})
}

// The policy and options of a mapped lane are HAProxy's parameters in the
// lane's terms: the threshold becomes the limit the lane compares by where
// the track sits; a status deny does not send is 403's.
func TestMapping(t *testing.T) {
	src := products.Key{Expr: "src", Trace: "ip", Mapped: true}
	for _, c := range []configtest.Mapping{
		{Limit: products.Limit{Key: src, Params: &Limit{Table: "st", Period: 10 * time.Second, Expire: 30 * time.Second, Op: "ge", Threshold: 100, Counted: true, Status: 429}},
			Want: products.RatelabLimit{Name: "st", Rule: "http-request", Algorithm: algorithms.HAProxyName, Key: "{key}", Policy: algorithms.Policy{Limit: 99, Period: 10 * time.Second}, Options: algorithms.Options{TrackSC: algorithms.TrackBeforeDeny, Expire: 30 * time.Second, DenyStatus: 429}}},
		{Limit: products.Limit{Key: src, Params: &Limit{Table: "st", Period: time.Minute, Op: "gt", Threshold: 100, Status: 418, Action: "return"}},
			Want: products.RatelabLimit{Name: "st", Rule: "http-request return", Algorithm: algorithms.HAProxyName, Key: "{key}", Policy: algorithms.Policy{Limit: 101, Period: time.Minute}, Options: algorithms.Options{TrackSC: algorithms.TrackAfterDeny}},
			Note: "the lane answers a refusal with 403 (the status 418 is not one http-request deny sends)"},
		{Limit: products.Limit{Key: src, Params: &Limit{Table: "st", Period: time.Minute, Op: "ge", Threshold: 1, Counted: true, Cond: "if { sc0_http_req_rate ge 1 }", Status: 403}},
			Note: "if { sc0_http_req_rate ge 1 } refuses every request", NoLane: true},
	} {
		c.Check(t, Info)
	}
}
