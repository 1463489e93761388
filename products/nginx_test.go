package products

import (
	"strconv"
	"strings"
	"testing"

	"ratelab/internal/producttest"
)

// ngxSite is a real-looking nginx.conf: three servers, one of them included
// from conf.d, limits at http, server and location levels.
const ngxSite = `worker_processes 1;
events { worker_connections 64; }

http {
    limit_req_zone $binary_remote_addr zone=perip:10m rate=10r/s;
    limit_req_zone $http_x_api_key zone=perkey:10m rate=30r/m;
    limit_req_zone $server_name zone=perserver:1m rate=100r/s;

    limit_req zone=perip burst=20 nodelay;
    limit_req_status 429;

    include conf.d/*.conf;

    server {
        listen 8080;
        server_name example.com www.example.com;

        location / {
        }

        location /api/ {
            limit_req zone=perkey burst=10 delay=5;
            limit_req zone=perserver
                      burst=50;
            limit_req_dry_run on;

            location /api/v2/ {
                limit_req_status 503;
            }
        }
    }

    server {
        listen 8081;
        server_name static.example.com;
        limit_req_log_level warn;
    }
}
`

const ngxSiteSearch = `server {
    listen 8082;
    server_name search.example.com;
    location /search {
        limit_req zone=perip burst=5;
    }
    location /.hidden { }
}
`

// The reader finds every context that limits, with nginx's inheritance (a
// context takes its parent's limit_req only when it has none of its own;
// status, dry run and log level are inherited one by one), names each lane
// after where it is set, and places every limit at its file:line (the line of
// the ; that ends a directive, as nginx -t does; a block's { line).
func TestNginxLanes(t *testing.T) {
	for _, c := range []confCase{{
		name:  "site",
		main:  "nginx.conf",
		files: map[string]string{"nginx.conf": ngxSite, "conf.d/search.conf": ngxSiteSearch, "conf.d/.swap.conf": "this is not read;\n"},
		lanes: `
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
		warns: []string{
			`nginx.conf:5: zone "perip" holds the limits of 2 lanes`,
			`nginx.conf:6: the header X-Api-Key is not in a Common/Combined Log`,
			`nginx.conf:6: zone "perkey" holds the limits of 2 lanes (server example.com location /api/; server example.com location /api/ location /api/v2/)`,
			`nginx.conf:7: $server_name is the same for every request of a server`,
			`nginx.conf:7: zone "perserver" holds the limits of 2 lanes`,
		},
	}, {
		name: "two limit_req and a dry run in one location, inherited by nothing else",
		main: "nginx.conf",
		files: map[string]string{"nginx.conf": `events {}
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
		lanes: `
server 8080 location /login @nginx.conf:7
  nginx.conf:8 key=$binary_remote_addr→ip zone=ip rate=5r/s burst=3 delay=1 dry_run status=503
  nginx.conf:9 key=$binary_remote_addr$uri→ip+path zone=ipuri rate=60r/m nodelay dry_run status=503
`,
		warns: []string{`nginx.conf:4: $uri is the path after nginx normalises it`},
	}, {
		name: "the last of nodelay and delay= wins; a server without locations handles its requests",
		main: "nginx.conf",
		files: map[string]string{"nginx.conf": `events {}
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
		lanes: `
server a.test @nginx.conf:5
  nginx.conf:7 key=$remote_addr→ip zone=a rate=1r/s delay=3 status=503
  nginx.conf:8 key=$remote_user→user zone=b rate=2r/s nodelay status=503
`,
		warns: []string{`nginx.conf:4: $remote_user is empty for a request without Basic authentication`},
	}, {
		name: "http's limits reach no request when every server sets its own",
		main: "nginx.conf",
		files: map[string]string{"nginx.conf": `events {}
http {
    limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;
    limit_req zone=a;
    server {
        listen 8080;
        limit_req zone=a burst=2;
    }
}
`},
		lanes: `
server 8080 @nginx.conf:5
  nginx.conf:7 key=$binary_remote_addr→ip zone=a rate=1r/s burst=2 status=503
`,
		warns: []string{`nginx.conf:4: the limit_req of http apply to no request`},
	}} {
		t.Run(c.name, func(t *testing.T) {
			_, main := c.check(t, Nginx)
			checkNginx(t, c, main)
		})
	}
}

// checkNginx runs nginx -t on the case's main file: it accepts what the reader
// accepts, refuses what it refuses, at the same line.
func checkNginx(t *testing.T, c confCase, main string) {
	t.Helper()
	r := producttest.NginxTest(t, main)
	switch {
	case c.refuses:
		if r.OK {
			t.Errorf("nginx -t accepts it; the case says it refuses it")
		}
	case c.err == "" && !r.OK:
		t.Errorf("nginx -t refuses what ratelab reads:\n%s", r.Output)
	case c.err != "" && r.OK:
		t.Errorf("nginx -t accepts what ratelab refuses (%s)", c.err)
	case c.err != "" && !c.noLine:
		place := strings.SplitN(c.err, " ", 2)[0]
		want := strings.TrimSuffix(place, ":")
		got := r.File + ":" + strconv.Itoa(r.Line)
		if !strings.HasSuffix(got, "/"+want) {
			t.Errorf("nginx -t places the error at %s, ratelab at %s:\n%s", got, want, r.Output)
		}
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
	for _, c := range []confCase{
		{name: "a misspelt directive", files: ngxIn(zone + "server {\n limit_rq zone=ip;\n}\n"),
			err: `nginx.conf:5: unknown directive "limit_rq"; did you mean limit_req?`},
		{name: "a misspelt zone", files: ngxIn(zone + "server {\n location / { limit_req zone=ipp; }\n}\n"),
			err: `nginx.conf:5: no limit_req_zone declares zone "ipp" (nginx -t: zero size shared memory zone "ipp"); did you mean zone=ip?`, noLine: true},
		{name: "a zone limited twice in one context", files: ngxIn(zone + "limit_req zone=ip;\nlimit_req zone=ip burst=2;\n"),
			err: `nginx.conf:5: "limit_req" directive is duplicate: zone "ip" is already limited in this context at`},
		{name: "burst=0", files: ngxIn(zone + "limit_req zone=ip burst=0;\n"),
			err: `nginx.conf:4: invalid burst value "burst=0"; burst is a whole number > 0`},
		{name: "delay=0", files: ngxIn(zone + "limit_req zone=ip burst=3 delay=0;\n"),
			err: `nginx.conf:4: invalid delay value "delay=0"`},
		{name: "a fractional rate", files: ngxIn("limit_req_zone $binary_remote_addr zone=ip:10m rate=1.5r/s;\n"),
			err: `nginx.conf:3: invalid rate "rate=1.5r/s"; a rate is a whole number of requests a second or a minute`},
		{name: "a rate per hour", files: ngxIn("limit_req_zone $binary_remote_addr zone=ip:10m rate=10r/h;\n"),
			err: `nginx.conf:3: invalid rate "rate=10r/h"`},
		{name: "a zone without a size", files: ngxIn("limit_req_zone $binary_remote_addr zone=ip rate=1r/s;\n"),
			err: `nginx.conf:3: invalid zone size "zone=ip"; write zone=NAME:SIZE`},
		{name: "a zone too small", files: ngxIn("limit_req_zone $binary_remote_addr zone=ip:16k rate=1r/s;\n"),
			err: `nginx.conf:3: zone "zone=ip:16k" is too small; nginx needs at least 32768 bytes`},
		{name: "a zone without a rate", files: ngxIn("limit_req_zone $binary_remote_addr zone=ip:1m;\n"),
			err: `nginx.conf:3: invalid number of arguments in "limit_req_zone" directive`},
		{name: "a zone declared twice", files: ngxIn(zone + "limit_req_zone $remote_addr zone=ip:1m rate=1r/s;\n"),
			err: `nginx.conf:4: limit_req_zone "ip" is already bound to key "$binary_remote_addr" at`},
		{name: "limit_req in an if", files: ngxIn(zone + "server {\n location / {\n  if ($arg_x) {\n   limit_req zone=ip;\n  }\n }\n}\n"),
			err: `nginx.conf:7: "limit_req" directive is not allowed here (inside if)`},
		{name: "limit_req_zone in a server", files: ngxIn("server {\n" + zone + "}\n"),
			err: `nginx.conf:4: "limit_req_zone" directive is not allowed here; it goes in the http block`},
		{name: "limit_req outside http", files: map[string]string{"nginx.conf": "events {}\nlimit_req zone=ip;\nhttp {\n" + zone + "}\n"},
			err: `nginx.conf:2: "limit_req" directive is not allowed here`},
		{name: "a status out of range", files: ngxIn(zone + "limit_req zone=ip;\nlimit_req_status 600;\n"),
			err: `nginx.conf:5: "limit_req_status" value must be between 400 and 599 (got 600)`},
		{name: "a status twice", files: ngxIn(zone + "limit_req_status 429;\nlimit_req_status 503;\n"),
			err: `nginx.conf:5: "limit_req_status" directive is duplicate`},
		{name: "dry run maybe", files: ngxIn(zone + "limit_req_dry_run maybe;\n"),
			err: `nginx.conf:4: invalid value in "limit_req_dry_run" directive, it must be "on" or "off"`},
		{name: "log level debug", files: ngxIn(zone + "limit_req_log_level debug;\n"),
			err: `nginx.conf:4: invalid value in "limit_req_log_level" directive; it is info, notice, warn or error`},
		{name: "four arguments", files: ngxIn(zone + "limit_req zone=ip burst=5 nodelay delay=2;\n"),
			err: `nginx.conf:4: invalid number of arguments in "limit_req" directive`},
		{name: "no zone", files: ngxIn(zone + "limit_req burst=5;\n"),
			err: `nginx.conf:4: "limit_req" must have "zone" parameter`},
		{name: "an unknown parameter", files: ngxIn(zone + "limit_req zone=ip brust=5;\n"),
			err: `nginx.conf:4: invalid parameter "brust=5" in limit_req`},
		{name: "a directive without its ;", files: ngxIn(zone + "server {\n limit_req zone=ip\n}\n"),
			err: `nginx.conf:6: unexpected "}" after "limit_req": the directive before it needs its ;`},
		{name: "a } too many", files: map[string]string{"nginx.conf": "events {}\n}\nhttp {\n}\n"},
			err: `nginx.conf:2: unexpected "}": no block is open here`},
		{name: "a block never closed", files: map[string]string{"nginx.conf": "events {}\nhttp {\n" + zone},
			err: `nginx.conf:4: unexpected end of file, expecting "}" to close the block opened at line 2`},
		// ratelab names the line the quote opens at; nginx the end of the file
		{name: "a quote never closed", files: ngxIn(zone + "limit_req_zone \"$binary_remote_addr zone=a:1m rate=1r/s;\n"),
			err: `nginx.conf:4: unexpected end of file: the quote opened here is never closed`, noLine: true},
		{name: "a missing include", files: ngxIn(zone + "include missing.conf;\n"),
			err: `nginx.conf:4: include "missing.conf":`},
		{name: "an error in an included file", files: map[string]string{
			"nginx.conf":    "events {}\nhttp {\n" + zone + "include conf.d/*.conf;\n}\n",
			"conf.d/a.conf": "server {\n  listen 8080;\n  limit_req zone=ip burst=-1;\n}\n"},
			err: `conf.d/a.conf:3: invalid burst value "burst=-1"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.main = "nginx.conf"
			_, main := c.check(t, Nginx)
			checkNginx(t, c, main)
		})
	}
}
