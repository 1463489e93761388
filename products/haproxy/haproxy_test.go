package haproxy

import (
	"testing"

	"ratelab/internal/producttest"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// hapIn puts sections after a defaults section of five lines (mode http, the
// three timeouts), so the text's first line is line 6.
func hapIn(text string) map[string]string {
	return map[string]string{"haproxy.cfg": "defaults\n    mode http\n    timeout client 5s\n    timeout server 5s\n    timeout connect 1s\n" + text}
}

const hapBackend = "backend be\n    server s1 127.0.0.1:8081\n"

// The reader finds every frontend, listen and backend that refuses requests on
// a stick table's http_req_rate, with the table's period and expire, the
// threshold as the rule compares it, and whether a refused request is counted
// (the track-sc rule runs before the rule that reads the rate).
func TestHAProxyLanes(t *testing.T) {
	for _, c := range []configtest.Case{{
		Name: "a table in a backend, tracked then read",
		Files: hapIn(`backend st_src
    stick-table type ip size 1m expire 30s store http_req_rate(10s)

frontend fe
    bind 127.0.0.1:8080
    http-request track-sc0 src table st_src
    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 100 }
    default_backend be
` + hapBackend),
		Lanes: `
frontend fe @haproxy.cfg:9
  haproxy.cfg:12 key=src→ip table=st_src period=10s gt 100 counted sc0 expire=30s deny 429
`,
	}, {
		Name: "its own table, sc0_http_req_rate, ge, an ACL by name",
		Files: hapIn(`listen api
    bind 127.0.0.1:8080
    stick-table type string len 64 size 100k expire 1m store http_req_rate(1m),conn_cur
    acl too_fast sc0_http_req_rate ge 600
    http-request track-sc0 req.hdr(x-api-key)
    http-request deny if too_fast
    server s1 127.0.0.1:8081
`),
		Lanes: `
listen api @haproxy.cfg:6
  haproxy.cfg:11 key=req.hdr(x-api-key)→user table=api period=1m0s ge 600 counted sc0 expire=1m0s deny 403
`,
		Warns: []string{"haproxy.cfg:11: key req.hdr(x-api-key) — the header x-api-key is not in a Common/Combined Log"},
	}, {
		Name: "a lookup before the track: refused requests are not counted",
		Files: hapIn(`frontend fe
    bind 127.0.0.1:8080
    stick-table type ip size 1m expire 10s store http_req_rate(10s)
    http-request deny deny_status 429 if { src_http_req_rate gt 20 }
    http-request track-sc0 src
    default_backend be
` + hapBackend),
		Lanes: `
frontend fe @haproxy.cfg:6
  haproxy.cfg:9 key=src→ip table=fe period=10s gt 20 not-counted expire=10s deny 429
`,
	}, {
		Name: "a connection tracked at the TCP layer, unless, a range, return",
		Files: hapIn(`backend per_ip
    stick-table type ipv6 size 200k expire 2m store http_req_rate(1m)
backend per_path
    stick-table type string size 10k store http_req_rate(1s)
frontend fe
    bind 127.0.0.1:8080
    tcp-request connection track-sc1 src table per_ip
    http-request track-sc2 path table per_path
    http-request deny deny_status 503 unless { sc_http_req_rate(1) le 300 }
    http-request return status 429 if { sc2_http_req_rate 50: }
    default_backend be
` + hapBackend),
		Lanes: `
frontend fe @haproxy.cfg:10
  haproxy.cfg:14 key=src→ip table=per_ip period=1m0s gt 300 counted sc1 expire=2m0s deny 503
  haproxy.cfg:15 key=path→path table=per_path period=1s ge 50 counted sc2 return 429
`,
		Warns: []string{"haproxy.cfg:10: frontend fe has 2 rules that refuse by rate: HAProxy refuses a request at the first that matches"},
	}, {
		Name: "a key converted by table_http_req_rate",
		Files: hapIn(`backend users
    stick-table type string size 10k expire 1h store http_req_rate(1h)
frontend fe
    bind 127.0.0.1:8080
    http-request track-sc0 req.hdr(x-user) table users
    http-request deny if { req.hdr(x-user),table_http_req_rate(users) gt 1000 }
    default_backend be
` + hapBackend),
		Lanes: `
frontend fe @haproxy.cfg:8
  haproxy.cfg:11 key=req.hdr(x-user)→user table=users period=1h0m0s gt 1000 counted expire=1h0m0s deny 403
`,
		Warns: []string{"haproxy.cfg:11: key req.hdr(x-user) — the header x-user is not in a Common/Combined Log"},
	}} {
		t.Run(c.Name, func(t *testing.T) {
			c.Main = "haproxy.cfg"
			_, main := c.Check(t, Info)
			c.CheckServer(t, main, "haproxy -c", producttest.HAProxyCheck)
		})
	}
}

// What a configuration does that ratelab does not model is a warning at its
// file:line; haproxy -c accepts each of these files.
func TestHAProxyWarnings(t *testing.T) {
	table := "    stick-table type ip size 100k expire 30s store http_req_rate(10s)\n"
	fe := "frontend fe\n    bind 127.0.0.1:8080\n" + table // lines 6-8
	for _, c := range []configtest.Case{
		{Name: "the deny before the track never refuses", Files: hapIn(fe + `    http-request deny if { sc_http_req_rate(0) gt 10 }
    http-request track-sc0 src
    default_backend be
` + hapBackend),
			Warns: []string{"haproxy.cfg:9: sc_http_req_rate(0) reads sticky counter 0, which no track-sc0 before this rule tracks (track-sc0 at haproxy.cfg:10 comes after it: move it before this rule): it finds no entry and the rule never refuses"}},
		{Name: "a table without http_req_rate", Files: hapIn(`frontend fe
    bind 127.0.0.1:8080
    stick-table type ip size 100k expire 30s store conn_rate(10s)
    http-request track-sc0 src
    http-request deny if { sc0_http_req_rate gt 10 }
    default_backend be
` + hapBackend),
			Warns: []string{"haproxy.cfg:10: table fe (at haproxy.cfg:8) does not store http_req_rate, so sc0_http_req_rate finds no rate and the rule never refuses"}},
		{Name: "other counters, actions and conditions", Files: hapIn(fe + `    acl api path_beg /api
    acl fast sc_http_req_rate(0) gt 50
    acl fast sc_http_req_rate(0) gt 40
    http-request track-sc0 src
    http-request deny if { sc_conn_rate(0) gt 10 }
    http-request tarpit if { sc_http_req_rate(0) gt 500 }
    http-request silent-drop if { sc_http_req_rate(0) gt 1000 }
    http-request set-var(txn.rate) sc_http_req_rate(0) if { sc_http_req_rate(0) gt 5 }
    http-request deny if api { sc_http_req_rate(0) gt 100 }
    http-request deny if fast
    http-request deny unless { sc_http_req_rate(0) gt 200 }
    http-request deny if { sc0_http_err_rate gt 10 } || { sc_http_req_rate(0) ge 300 }
    default_backend be
` + hapBackend),
			Lanes: `
frontend fe @haproxy.cfg:6
  haproxy.cfg:14 key=src→ip table=fe period=10s gt 500 counted sc0 expire=30s tarpit 500
  haproxy.cfg:15 key=src→ip table=fe period=10s gt 1000 counted sc0 expire=30s silent-drop
  haproxy.cfg:17 key=src→ip table=fe period=10s gt 100 counted sc0 expire=30s deny 403
  haproxy.cfg:20 key=src→ip table=fe period=10s ge 300 counted sc0 expire=30s deny 403
`,
			Warns: []string{
				"haproxy.cfg:6: frontend fe has 4 rules that refuse by rate",
				"haproxy.cfg:13: deny reads sc_conn_rate(0), a counter ratelab does not model",
				"haproxy.cfg:14: tarpit holds a refused request open",
				"haproxy.cfg:15: silent-drop closes the connection without a response",
				"haproxy.cfg:16: http-request set-var(txn.rate) reads http_req_rate but is not an http-request rule that refuses",
				`haproxy.cfg:17: the condition "if api { sc_http_req_rate(0) gt 100 }" combines the rate with other ACLs`,
				"haproxy.cfg:18: the condition reads http_req_rate 2 times: not modelled",
				`haproxy.cfg:19: the condition "unless { sc_http_req_rate(0) gt 200 }" refuses requests whose rate is at most 200, not those above a threshold`,
				"haproxy.cfg:20: deny reads sc0_http_err_rate, a counter ratelab does not model",
				`haproxy.cfg:20: the condition "if { sc0_http_err_rate gt 10 } || { sc_http_req_rate(0) ge 300 }" combines the rate with other ACLs`,
			}},
		{Name: "a conditional track, a peers table, a backend, a defaults rule", Files: map[string]string{"haproxy.cfg": `peers mypeers
    peer local 127.0.0.1:10000
    table shared type ip size 100k expire 1m store http_req_rate(10s)
defaults
    mode http
    timeout client 5s
    timeout server 5s
    timeout connect 1s
frontend fe
    bind 127.0.0.1:8080
    http-request track-sc0 src table mypeers/shared if { path_beg /api }
    http-request deny if { sc_http_req_rate(0) gt 10 }
    default_backend be
backend be
    stick-table type ip size 10k store http_req_rate(1s)
    http-request track-sc1 src
    http-request deny if { sc1_http_req_rate gt 5 }
    server s1 127.0.0.1:8081
`},
			Lanes: `
frontend fe @haproxy.cfg:9
  haproxy.cfg:12 key=src→ip table=mypeers/shared period=10s gt 10 counted sc0 expire=1m0s deny 403
backend be @haproxy.cfg:14
  haproxy.cfg:17 key=src→ip table=be period=1s gt 5 counted sc1 deny 403
`,
			Warns: []string{
				"haproxy.cfg:3: table mypeers/shared is replicated to the peers of section mypeers",
				`haproxy.cfg:11: track-sc0 counts only the requests that match "if { path_beg /api }"`,
				"haproxy.cfg:12: table mypeers/shared is replicated to peers mypeers",
				"haproxy.cfg:14: backend be holds the requests routed to it",
			}},
		{Name: "rules that read the rate elsewhere", Files: hapIn(`backend st
` + table + `frontend a
    bind 127.0.0.1:8080
    http-request track-sc0 src table st
    default_backend be
frontend b
    bind 127.0.0.1:8081
    tcp-request content reject if { src_http_req_rate(st) gt 100 }
    http-request deny if { src_http_req_rate(st) gt 50 }
    default_backend be
frontend c
    bind 127.0.0.1:8082
    mode tcp
    tcp-request connection track-sc0 src table st
    http-request deny if { sc_http_req_rate(0) gt 50 }
    default_backend be
` + hapBackend),
			Warns: []string{
				"haproxy.cfg:14: tcp-request content reject reads http_req_rate but is not an http-request rule that refuses",
				"haproxy.cfg:15: src_http_req_rate(st) looks src up in table st, which no track-sc of frontend b fills with that key",
				"haproxy.cfg:21: frontend c is in a proxy in mode tcp: HAProxy ignores http-request rules there",
			}},
	} {
		t.Run(c.Name, func(t *testing.T) {
			c.Main = "haproxy.cfg"
			_, main := c.Check(t, Info)
			c.CheckServer(t, main, "haproxy -c", producttest.HAProxyCheck)
		})
	}
}

// A configuration haproxy -c refuses is an error at the line it names.
func TestHAProxyErrors(t *testing.T) {
	table := "    stick-table type ip size 100k expire 30s store http_req_rate(10s)\n"
	fe := "frontend fe\n    bind 127.0.0.1:8080\n" + table // lines 6-8
	for _, c := range []configtest.Case{
		{Name: "track-sc3", Files: hapIn(fe + "    http-request track-sc3 src\n"),
			Err: "haproxy.cfg:9: 3 track-sc number exceeding 2 (MAX_SESS_STKCTR-1) value"},
		{Name: "an unknown table", Files: hapIn(fe + "    http-request track-sc0 src table st_scr\nbackend st_src\n" + table),
			Err: "haproxy.cfg:9: unable to find table 'st_scr' referenced by track-sc0; did you mean st_src?", NoLine: true},
		{Name: "no table to track in", Files: hapIn("frontend fe\n    bind 127.0.0.1:8080\n    http-request track-sc0 src\n"),
			Err: "haproxy.cfg:8: unable to find table 'fe' referenced by track-sc0: frontend fe has no stick-table", NoLine: true},
		{Name: "an ACL never declared", Files: hapIn(fe + "    acl too_fast sc_http_req_rate(0) gt 10\n    http-request track-sc0 src\n    http-request deny if to_fast\n"),
			Err: "haproxy.cfg:11: no such ACL : 'to_fast'; declare it with acl to_fast … in this section (its ACLs are too_fast)"},
		{Name: "a status without an error page", Files: hapIn(fe + "    http-request track-sc0 src\n    http-request deny deny_status 418 if { sc_http_req_rate(0) gt 10 }\n"),
			Err: "haproxy.cfg:10: status code '418' not handled by default with 'default-errorfiles' argument"},
		{Name: "a status out of range", Files: hapIn(fe + "    http-request track-sc0 src\n    http-request deny deny_status 600 if { sc_http_req_rate(0) gt 10 }\n"),
			Err: "haproxy.cfg:10: Unexpected status code '600'"},
		{Name: "a table without a size", Files: hapIn("backend st\n    stick-table type ip expire 30s store http_req_rate(10s)\n"),
			Err: "haproxy.cfg:7: stick-table: missing size"},
		{Name: "an unknown data type", Files: hapIn("backend st\n    stick-table type ip size 1k store http_req_rat(10s)\n"),
			Err: "haproxy.cfg:7: stick-table: unknown data type 'http_req_rat' in store"},
		{Name: "a bad expire", Files: hapIn("backend st\n    stick-table type ip size 1k expire 30x store http_req_rate(10s)\n"),
			Err: "haproxy.cfg:7: stick-table: invalid expire '30x'"},
		{Name: "two tables in one proxy", Files: hapIn("backend st\n" + table + table),
			Err: "haproxy.cfg:8: only one stick-table per proxy"},
		{Name: "a lookup in an unknown table", Files: hapIn(fe + "    http-request track-sc0 src\n    http-request deny if { src_http_req_rate(nosuch) gt 10 }\n"),
			Err: "haproxy.cfg:10: unable to find table 'nosuch' referenced in src_http_req_rate(nosuch)"},
		{Name: "a keyword out of section", Files: map[string]string{"haproxy.cfg": "    bind :80\nfrontend fe\n"},
			Err: "haproxy.cfg:1: unknown keyword 'bind' out of section"},
		{Name: "an unmatched quote", Files: hapIn(fe + "    http-request deny deny_status \"429 if { sc_http_req_rate(0) gt 10 }\n"),
			Err: "haproxy.cfg:9: unmatched quote"},
	} {
		t.Run(c.Name, func(t *testing.T) {
			c.Main = "haproxy.cfg"
			_, main := c.Check(t, Info)
			c.CheckServer(t, main, "haproxy -c", producttest.HAProxyCheck)
		})
	}
}

// A table smaller than a trace's keys is a warning at its line, saying what
// HAProxy does when it is full; one large enough is none.
func TestKeyWarnings(t *testing.T) {
	cfg, err := configtest.Read(Info, "haproxy.cfg", []byte("defaults\n mode http\nbackend st\n stick-table type ip size 1k nopurge store http_req_rate(10s)\nfrontend fe\n http-request track-sc0 src table st\n http-request deny if { sc_http_req_rate(0) gt 10 }\n"), products.Options{})
	if err != nil {
		t.Fatal(err)
	}
	configtest.CheckKeyWarnings(t, cfg, 1024, 20)
	configtest.CheckKeyWarnings(t, cfg, 1025, 20, "haproxy.cfg:4: table st holds 1024 entries and the trace has 1025 keys: when it is full, with nopurge HAProxy stores no new key")
}
