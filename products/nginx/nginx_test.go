package nginx

import (
	"testing"

	"ratelab/internal/producttest"
	"ratelab/products/internal/configtest"
)

// ngxSite is a real-looking nginx.conf: three servers, one of them included
// from conf.d (ngxSiteSearch), limits at http, server and location levels.
var (
	ngxSite       = configtest.Testdata("nginx.conf")
	ngxSiteSearch = configtest.Testdata("conf.d/search.conf")
)

// The reader finds every context that limits, with nginx's inheritance (a
// context takes its parent's limit_req only when it has none of its own;
// status, dry run and log level are inherited one by one), names each lane
// after where it is set, and places every limit at its file:line (the line of
// the ; that ends a directive, as nginx -t does; a block's { line).
func TestNginxLanes(t *testing.T) {
	for _, c := range []configtest.Case{{
		Name:  "site",
		Main:  "nginx.conf",
		Files: map[string]string{"nginx.conf": ngxSite, "conf.d/search.conf": ngxSiteSearch, "conf.d/.swap.conf": "this is not read;\n"},
		Lanes: `
http @nginx.conf:4 [server search.example.com; server search.example.com location /.hidden; server example.com location /; server static.example.com]
  nginx.conf:9 key=$binary_remote_addr→ip zone=perip rate=10r/s burst=20 nodelay status=429
server search.example.com location /search @conf.d/search.conf:4
  conf.d/search.conf:5 key=$binary_remote_addr→ip zone=perip rate=10r/s burst=5 status=429
server example.com location /api/ @nginx.conf:21
  nginx.conf:22 key=$http_x_api_key→user zone=perkey rate=30r/m burst=10 delay=5 dry_run status=429
  nginx.conf:24 key=$server_name→shared zone=perserver rate=100r/s burst=50 dry_run status=429
server example.com location /api/ location /api/v2/ @nginx.conf:27
  nginx.conf:22 key=$http_x_api_key→user zone=perkey rate=30r/m burst=10 delay=5 dry_run status=503
  nginx.conf:24 key=$server_name→shared zone=perserver rate=100r/s burst=50 dry_run status=503
`,
		Warns: []string{
			`nginx.conf:5: zone "perip" holds the limits of 2 lanes`,
			`nginx.conf:6: the header X-Api-Key is not in a Common/Combined Log`,
			`nginx.conf:6: zone "perkey" holds the limits of 2 lanes (server example.com location /api/; server example.com location /api/ location /api/v2/)`,
			`nginx.conf:7: $server_name is the same for every request of a server`,
			`nginx.conf:7: zone "perserver" holds the limits of 2 lanes`,
		},
	}, {
		Name: "two limit_req and a dry run in one location, inherited by nothing else",
		Main: "nginx.conf",
		Files: map[string]string{"nginx.conf": `events {}
http {
    limit_req_zone $binary_remote_addr zone=ip:10m rate=5r/s;
    limit_req_zone $binary_remote_addr$uri zone=ipuri:10m rate=60r/m;
    server {
        listen 8080;
        location /login {
            limit_req zone=ip burst=3 delay=1;
            limit_req zone=ipuri nodelay;
            limit_req_dry_run on;
        }
    }
}
`},
		Lanes: `
server 8080 location /login @nginx.conf:7
  nginx.conf:8 key=$binary_remote_addr→ip zone=ip rate=5r/s burst=3 delay=1 dry_run status=503
  nginx.conf:9 key=$binary_remote_addr$uri→ip+path zone=ipuri rate=60r/m nodelay dry_run status=503
`,
		Warns: []string{`nginx.conf:4: $uri is the path after nginx normalises it`},
	}, {
		Name: "the last of nodelay and delay= wins; a server without locations handles its requests",
		Main: "nginx.conf",
		Files: map[string]string{"nginx.conf": `events {}
http {
    limit_req_zone $remote_addr zone=a:32k rate=1r/s;
    limit_req_zone $remote_user zone=b:64k rate=2r/s;
    server {
        server_name a.test;
        limit_req zone=a nodelay delay=3;
        limit_req zone=b delay=3 nodelay;
    }
}
`},
		Lanes: `
server a.test @nginx.conf:5
  nginx.conf:7 key=$remote_addr→ip zone=a rate=1r/s delay=3 status=503
  nginx.conf:8 key=$remote_user→user zone=b rate=2r/s nodelay status=503
`,
		Warns: []string{`nginx.conf:4: $remote_user is empty for a request without Basic authentication`},
	}, {
		Name: "http's limits reach no request when every server sets its own",
		Main: "nginx.conf",
		Files: map[string]string{"nginx.conf": `events {}
http {
    limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;
    limit_req zone=a;
    server {
        listen 8080;
        limit_req zone=a burst=2;
    }
}
`},
		Lanes: `
server 8080 @nginx.conf:5
  nginx.conf:7 key=$binary_remote_addr→ip zone=a rate=1r/s burst=2 status=503
`,
		Warns: []string{`nginx.conf:4: the limit_req of http apply to no request`},
	}} {
		t.Run(c.Name, func(t *testing.T) {
			_, main := c.Check(t, Info)
			c.CheckServer(t, main, "nginx -t", producttest.NginxTest)
		})
	}
}

// ngxIn wraps http-level text in a minimal configuration: events, then http
// from line 2, so the text's first line is line 3.
func ngxIn(http string) map[string]string {
	return map[string]string{"nginx.conf": "events {}\nhttp {\n" + http + "}\n"}
}

// A configuration nginx refuses is an error at the line nginx -t names (the
// line of the ; or { that ends the directive), saying what is wrong and the
// fix; nginx -t refuses each of these files at the same line.
func TestNginxErrors(t *testing.T) {
	zone := "limit_req_zone $binary_remote_addr zone=ip:10m rate=5r/s;\n"
	for _, c := range []configtest.Case{
		{Name: "a misspelt directive", Files: ngxIn(zone + "server {\n limit_rq zone=ip;\n}\n"),
			Err: `nginx.conf:5: unknown directive "limit_rq"; did you mean limit_req?`},
		{Name: "a misspelt zone", Files: ngxIn(zone + "server {\n location / { limit_req zone=ipp; }\n}\n"),
			Err: `nginx.conf:5: no limit_req_zone declares zone "ipp" (nginx -t: zero size shared memory zone "ipp"); did you mean zone=ip?`, NoLine: true},
		{Name: "a zone limited twice in one context", Files: ngxIn(zone + "limit_req zone=ip;\nlimit_req zone=ip burst=2;\n"),
			Err: `nginx.conf:5: "limit_req" directive is duplicate: zone "ip" is already limited in this context at`},
		{Name: "burst=0", Files: ngxIn(zone + "limit_req zone=ip burst=0;\n"),
			Err: `nginx.conf:4: invalid burst value "burst=0"; burst is a whole number > 0`},
		{Name: "delay=0", Files: ngxIn(zone + "limit_req zone=ip burst=3 delay=0;\n"),
			Err: `nginx.conf:4: invalid delay value "delay=0"`},
		{Name: "a fractional rate", Files: ngxIn("limit_req_zone $binary_remote_addr zone=ip:10m rate=1.5r/s;\n"),
			Err: `nginx.conf:3: invalid rate "rate=1.5r/s"; a rate is a whole number of requests a second or a minute`},
		{Name: "a rate per hour", Files: ngxIn("limit_req_zone $binary_remote_addr zone=ip:10m rate=10r/h;\n"),
			Err: `nginx.conf:3: invalid rate "rate=10r/h"`},
		{Name: "a zone without a size", Files: ngxIn("limit_req_zone $binary_remote_addr zone=ip rate=1r/s;\n"),
			Err: `nginx.conf:3: invalid zone size "zone=ip"; write zone=NAME:SIZE`},
		{Name: "a zone too small", Files: ngxIn("limit_req_zone $binary_remote_addr zone=ip:16k rate=1r/s;\n"),
			Err: `nginx.conf:3: zone "zone=ip:16k" is too small; nginx needs at least 32768 bytes`},
		{Name: "a zone without a rate", Files: ngxIn("limit_req_zone $binary_remote_addr zone=ip:1m;\n"),
			Err: `nginx.conf:3: invalid number of arguments in "limit_req_zone" directive`},
		{Name: "a zone declared twice", Files: ngxIn(zone + "limit_req_zone $remote_addr zone=ip:1m rate=1r/s;\n"),
			Err: `nginx.conf:4: limit_req_zone "ip" is already bound to key "$binary_remote_addr" at`},
		{Name: "limit_req in an if", Files: ngxIn(zone + "server {\n location / {\n  if ($arg_x) {\n   limit_req zone=ip;\n  }\n }\n}\n"),
			Err: `nginx.conf:7: "limit_req" directive is not allowed here (inside if)`},
		{Name: "limit_req_zone in a server", Files: ngxIn("server {\n" + zone + "}\n"),
			Err: `nginx.conf:4: "limit_req_zone" directive is not allowed here; it goes in the http block`},
		{Name: "limit_req outside http", Files: map[string]string{"nginx.conf": "events {}\nlimit_req zone=ip;\nhttp {\n" + zone + "}\n"},
			Err: `nginx.conf:2: "limit_req" directive is not allowed here`},
		{Name: "a status out of range", Files: ngxIn(zone + "limit_req zone=ip;\nlimit_req_status 600;\n"),
			Err: `nginx.conf:5: "limit_req_status" value must be between 400 and 599 (got 600)`},
		{Name: "a status twice", Files: ngxIn(zone + "limit_req_status 429;\nlimit_req_status 503;\n"),
			Err: `nginx.conf:5: "limit_req_status" directive is duplicate`},
		{Name: "dry run maybe", Files: ngxIn(zone + "limit_req_dry_run maybe;\n"),
			Err: `nginx.conf:4: invalid value in "limit_req_dry_run" directive, it must be "on" or "off"`},
		{Name: "log level debug", Files: ngxIn(zone + "limit_req_log_level debug;\n"),
			Err: `nginx.conf:4: invalid value in "limit_req_log_level" directive; it is info, notice, warn or error`},
		{Name: "four arguments", Files: ngxIn(zone + "limit_req zone=ip burst=5 nodelay delay=2;\n"),
			Err: `nginx.conf:4: invalid number of arguments in "limit_req" directive`},
		{Name: "no zone", Files: ngxIn(zone + "limit_req burst=5;\n"),
			Err: `nginx.conf:4: "limit_req" must have "zone" parameter`},
		{Name: "an unknown parameter", Files: ngxIn(zone + "limit_req zone=ip brust=5;\n"),
			Err: `nginx.conf:4: invalid parameter "brust=5" in limit_req`},
		{Name: "a directive without its ;", Files: ngxIn(zone + "server {\n limit_req zone=ip\n}\n"),
			Err: `nginx.conf:6: unexpected "}" after "limit_req": the directive before it needs its ;`},
		{Name: "a } too many", Files: map[string]string{"nginx.conf": "events {}\n}\nhttp {\n}\n"},
			Err: `nginx.conf:2: unexpected "}": no block is open here`},
		{Name: "a block never closed", Files: map[string]string{"nginx.conf": "events {}\nhttp {\n" + zone},
			Err: `nginx.conf:4: unexpected end of file, expecting "}" to close the block opened at line 2`},
		// ratelab names the line the quote opens at; nginx the end of the file
		{Name: "a quote never closed", Files: ngxIn(zone + "limit_req_zone \"$binary_remote_addr zone=a:1m rate=1r/s;\n"),
			Err: `nginx.conf:4: unexpected end of file: the quote opened here is never closed`, NoLine: true},
		{Name: "a missing include", Files: ngxIn(zone + "include missing.conf;\n"),
			Err: `nginx.conf:4: include "missing.conf":`},
		{Name: "an error in an included file", Files: map[string]string{
			"nginx.conf":    "events {}\nhttp {\n" + zone + "include conf.d/*.conf;\n}\n",
			"conf.d/a.conf": "server {\n  listen 8080;\n  limit_req zone=ip burst=-1;\n}\n"},
			Err: `conf.d/a.conf:3: invalid burst value "burst=-1"`},
	} {
		t.Run(c.Name, func(t *testing.T) {
			c.Main = "nginx.conf"
			_, main := c.Check(t, Info)
			c.CheckServer(t, main, "nginx -t", producttest.NginxTest)
		})
	}
}

// What a configuration does that changes limiting and that ratelab does not
// model is a warning at its file:line (nginx -t accepts each of these files,
// but for NGINX Plus's sync and a Lua module's directive).
func TestNginxWarnings(t *testing.T) {
	zone := "limit_req_zone $binary_remote_addr zone=ip:10m rate=5r/s;\n"
	for _, c := range []configtest.Case{
		{Name: "connections and bandwidth", Files: ngxIn(zone + "limit_conn_zone $binary_remote_addr zone=conn:10m;\n" +
			"server {\n listen 8080;\n limit_req zone=ip;\n limit_conn conn 10;\n location /dl/ { limit_rate 50k; limit_rate_after 1m; }\n}\n"),
			Lanes: "server 8080 @nginx.conf:5 [server 8080; server 8080 location /dl/]\n  nginx.conf:7 key=$binary_remote_addr→ip zone=ip rate=5r/s status=503\n",
			Warns: []string{
				"nginx.conf:8: limit_conn conn 10 limits concurrent connections per key",
				"nginx.conf:9: limit_rate 50k limits the response's bandwidth, not the requests",
				"nginx.conf:9: limit_rate_after 1m limits the response's bandwidth",
			}},
		{Name: "keys", Files: ngxIn(`limit_req_zone $arg_token zone=arg:1m rate=1r/s;
limit_req_zone $cookie_session zone=cookie:1m rate=1r/s;
limit_req_zone $request_uri zone=uri:1m rate=1r/s;
limit_req_zone $host zone=host:1m rate=1r/s;
limit_req_zone global zone=const:1m rate=1r/s;
limit_req_zone "" zone=empty:1m rate=1r/s;
limit_req_zone $request_method zone=method:1m rate=1r/s;
server {
 listen 8080;
 limit_req zone=arg; limit_req zone=cookie; limit_req zone=uri; limit_req zone=host;
 limit_req zone=const; limit_req zone=empty; limit_req zone=method;
}
`),
			Lanes: `
server 8080 @nginx.conf:10
  nginx.conf:12 key=$arg_token→? zone=arg rate=1r/s status=503
  nginx.conf:12 key=$cookie_session→user zone=cookie rate=1r/s status=503
  nginx.conf:12 key=$request_uri→path zone=uri rate=1r/s status=503
  nginx.conf:12 key=$host→shared zone=host rate=1r/s status=503
  nginx.conf:13 key=global→shared zone=const rate=1r/s status=503
  nginx.conf:13 key=→? zone=empty rate=1r/s status=503
  nginx.conf:13 key=$request_method→method zone=method rate=1r/s status=503
`,
			Warns: []string{
				"nginx.conf:3: no field of a request log stands for $arg_token; the lane keys requests by the trace's own key",
				"nginx.conf:4: the cookie session is not in a Common/Combined Log",
				"nginx.conf:5: $request_uri keeps the query string",
				"nginx.conf:6: $host is the request's Host",
				"nginx.conf:7: a constant: every request shares one key",
				"nginx.conf:8: the key is empty for every request",
			}},
		{Name: "keys a map or set decides", Files: ngxIn(`map $http_x_tier $tier_key {
  default $binary_remote_addr;
  "gold"  "";
}
map $http_x_tier $mixed_key {
  default $binary_remote_addr;
  "gold"  $http_x_api_key;
}
limit_req_zone $tier_key zone=tier:1m rate=1r/s;
limit_req_zone $mixed_key zone=mixed:1m rate=1r/s;
limit_req_zone $set_key zone=set:1m rate=1r/s;
server {
 listen 8080;
 set $set_key $remote_addr;
 limit_req zone=tier; limit_req zone=mixed; limit_req zone=set;
}
`),
			Lanes: `
server 8080 @nginx.conf:14
  nginx.conf:17 key=$tier_key→ip zone=tier rate=1r/s status=503
  nginx.conf:17 key=$mixed_key→? zone=mixed rate=1r/s status=503
  nginx.conf:17 key=$set_key→? zone=set rate=1r/s status=503
`,
			Warns: []string{
				"nginx.conf:11: $tier_key is set by the map at nginx.conf:3 to $binary_remote_addr or to an empty key, which nginx does not limit",
				"nginx.conf:12: $mixed_key is set by the map at nginx.conf:7: the map decides each request's key",
				"nginx.conf:13: $set_key is set by set at nginx.conf:16, which ratelab does not evaluate",
			}},
		{Name: "NGINX Plus's sync", Refuses: true, Files: ngxIn("limit_req_zone $binary_remote_addr zone=ip:10m rate=5r/s sync;\nlimit_req zone=ip;\nserver { listen 8080; }\n"),
			Lanes: "http @nginx.conf:2 [server 8080]\n  nginx.conf:4 key=$binary_remote_addr→ip zone=ip rate=5r/s status=503 sync\n",
			Warns: []string{`nginx.conf:3: limit_req_zone "ip": sync (NGINX Plus; stock nginx refuses it) shares the zone's state across a cluster`}},
		{Name: "what runs before limit_req", Files: ngxIn(zone + `limit_req zone=ip;
server {
  listen 8080;
  location /health { return 200; }
  location /old { rewrite ^/old/(.*)$ /new/$1 last; }
  location /maybe {
    if ($arg_debug) { return 403; }
    if ($arg_x) { add_header X-X 1; }
  }
  location /new { }
}
server {
  listen 8081;
  return 301 https://example.com$request_uri;
}
`),
			Lanes: "http @nginx.conf:2 [server 8080; server 8080 location /health; server 8080 location /old; server 8080 location /maybe; server 8080 location /new; server 8081]\n  nginx.conf:4 key=$binary_remote_addr→ip zone=ip rate=5r/s status=503\n",
			Warns: []string{
				"nginx.conf:7: server 8080 location /health: return ends the request in the rewrite phase, before limit_req runs",
				"nginx.conf:8: server 8080 location /old: rewrite ^/old/(.*)$ /new/$1 last — a request it rewrites with last is limited by the location it lands in",
				"nginx.conf:10: server 8080 location /maybe: the if block here returns or rewrites",
				"nginx.conf:17: server 8081: return ends the request in the rewrite phase",
			}},
		{Name: "internal redirects and subrequests", Files: ngxIn(zone + `server {
  listen 8080;
  location / { try_files $uri @app; auth_request /auth; mirror /mirror; }
  location @app { limit_req zone=ip burst=5; }
  location /auth { internal; limit_req zone=ip; }
  location /mirror { internal; }
}
`),
			Lanes: `
server 8080 location @app @nginx.conf:7
  nginx.conf:7 key=$binary_remote_addr→ip zone=ip rate=5r/s burst=5 status=503
server 8080 location /auth @nginx.conf:8
  nginx.conf:8 key=$binary_remote_addr→ip zone=ip rate=5r/s status=503
`,
			Warns: []string{
				`nginx.conf:3: zone "ip" holds the limits of 2 lanes`,
				"nginx.conf:6: auth_request /auth makes subrequests",
				"nginx.conf:6: mirror /mirror makes subrequests",
				"nginx.conf:7: server 8080 location @app is a named location, reached only by an internal redirect",
				"nginx.conf:8: server 8080 location /auth is internal",
			}},
		{Name: "Lua", Refuses: true, Files: ngxIn(zone + "server {\n listen 8080;\n limit_req zone=ip;\n access_by_lua_block { local lim = require \"resty.limit.req\" }\n}\n"),
			Lanes: "server 8080 @nginx.conf:4\n  nginx.conf:6 key=$binary_remote_addr→ip zone=ip rate=5r/s status=503\n",
			Warns: []string{"nginx.conf:7: server 8080: access_by_lua_block runs Lua code around limit_req"}},
		// (nginx -t is not asked: stream is a module Debian's nginx loads
		// from a package of its own, which may not be installed)
		{Name: "a zone no limit uses, and stream's connections", NoCheck: true, Files: map[string]string{"nginx.conf": "events {}\nhttp {\n" + zone + "}\n" +
			"stream {\n limit_conn_zone $binary_remote_addr zone=s:1m;\n server { listen 9000; limit_conn s 1; proxy_pass 127.0.0.1:9001; }\n}\n"},
			Warns: []string{
				`nginx.conf:3: limit_req_zone "ip" is used by no limit_req: it limits nothing`,
				"nginx.conf:7: limit_conn s 1 limits a stream (TCP/UDP) server's concurrent connections",
			}},
	} {
		t.Run(c.Name, func(t *testing.T) {
			c.Main = "nginx.conf"
			_, main := c.Check(t, Info)
			c.CheckServer(t, main, "nginx -t", producttest.NginxTest)
		})
	}
}

// A zone holds about 8,000 $binary_remote_addr states a megabyte, as the
// module's documentation says; a longer key, fewer.
func TestNginxZoneCapacity(t *testing.T) {
	for i, c := range []struct {
		size     int64
		keyBytes int
		min, max int64
	}{
		{1 << 20, 4, 7900, 8192},    // "about 8 thousand 128-byte states"
		{10 << 20, 4, 80000, 81920}, // ten times that
		{1 << 20, 48, 7900, 8192},   // 80+48 = 128 bytes: still one chunk
		{1 << 20, 49, 3950, 4096},   // 129 bytes take a 256-byte chunk
		{zoneMinSize, 4, 0, 256},    // the smallest zone: 8 pages, two of them the pool's
	} {
		got := Limit{ZoneSize: c.size}.ZoneCapacity(c.keyBytes)
		if got < c.min || got > c.max {
			t.Errorf("case %d: ZoneCapacity(%d bytes, %d-byte keys) = %d, want %d to %d", i, c.size, c.keyBytes, got, c.min, c.max)
		}
	}
}

// A zone smaller than a trace's keys is a warning at its line, saying what
// nginx does when it is full; one large enough is none.
func TestKeyWarnings(t *testing.T) {
	cfg := configtest.MustRead(t, Info, "nginx.conf", "events {}\nhttp {\nlimit_req_zone $binary_remote_addr zone=ip:1m rate=1r/s;\nlimit_req_zone $http_x_key zone=k:1m rate=1r/s;\nserver { limit_req zone=ip; limit_req zone=k; }\n}\n", false)
	configtest.CheckKeyWarnings(t, cfg, 1000, 20)
	configtest.CheckKeyWarnings(t, cfg, 5000, 60, `nginx.conf:4: zone "k" (1.0MiB) holds about 4032 keys of 60 bytes and the trace has 5000`)
	configtest.CheckKeyWarnings(t, cfg, 9000, 20, `nginx.conf:3: zone "ip" (1.0MiB) holds about 8064 keys of 4 bytes`, `nginx.conf:4: zone "k"`)
}
