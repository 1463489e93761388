package nginx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratelab/internal/producttest"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// nginx's reader shows an nginx.conf's text as escapes where it puts names and
// values (a server_name, a zone, a location, an included file's name); reads
// its sample the same when it, or a file it includes, begins with a byte-order
// mark, with a note at the marked file's first line that nginx refuses it
// (held on the real server below); and its snippet is read back through nginx
// -t (snippet_test.go) (configtest.Checks).
func TestChecks(t *testing.T) {
	configtest.Checks{
		Escapes: []configtest.Escapes{
			{Name: "nginx server_name, limit_conn, location", Text: configtest.Raw(`http {
    limit_req_zone $binary_remote_addr zone=one:10m rate=10r/s;
    server {
        listen 80;
        server_name "exampleP";
        limit_conn "connP" 5;
        location "/P" {
            limit_req zone=one;
            return 200;
        }
    }
}
`), InLane: true, InNote: true},
			{Name: "nginx zone", Text: configtest.Raw(`http {
    limit_req_zone $binary_remote_addr "zone=zP:10m" rate=10r/s;
    limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;
    server { listen 80; location / { limit_req "zone=zP"; limit_req zone=one; } }
}
`), InLimitName: true},
			{Name: "nginx unknown zone", Text: configtest.Raw("http {\n server { location / { limit_req \"zone=nopeP\"; } }\n}\n"), InError: true},
			{Name: "nginx included file", Text: configtest.Raw("http {\n include \"/nowhereP/*.conf\";\n include \"/nowhereP.conf\";\n}\n"), InError: true},
		},
		Marked:   map[string]string{"nginx.conf": ngxSite},
		Included: true,
	}.Run(t, Info)
}

// nginx refuses a file that begins with a byte-order mark, as the note says:
// the mark is part of its first word (nginx 1.22: unknown directive
// "\ufeffevents").
func TestTheServerRefusesAByteOrderMark(t *testing.T) {
	ngx := filepath.Join(t.TempDir(), "nginx.conf")
	if err := os.WriteFile(ngx, []byte(configtest.BOM+"events {}\nhttp {\n    limit_req_zone $binary_remote_addr zone=one:1m rate=1r/s;\n    server { listen 127.0.0.1:8080; location / { limit_req zone=one; } }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := producttest.NginxTest(t, ngx); r.OK || !strings.Contains(r.Output, "unknown directive") || r.Line != 1 {
		t.Errorf("nginx -t on a file with a byte-order mark: ok %v at line %d:\n%s\nwant unknown directive at line 1", r.OK, r.Line, r.Output)
	}
}

// No input makes the nginx reader panic, hang or answer without a place.
func FuzzNginxConfig(f *testing.F) {
	configtest.Fuzz(f, Info, []string{ngxSite, ngxSiteSearch, "", "}", "{", ";", "http {", `"`, "http { limit_req zone=a; }",
		"events {}\nhttp {\nlimit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;\nlimit_req zone=a burst=2 nodelay;\nserver { location / { limit_req zone=a delay=1; } }\n}\n",
		"http { content_by_lua_block { ngx.say(\"}\") } }", "http { server { location ~ \"^/x{2}$\" { } } }", "http { map $a $b { default ${c}; } }",
		"http { include a.conf; }", "http { limit_req_zone $x zone=a:1m rate=1r/m sync; server { limit_req zone=a; } }"},
		func(p products.Params) string {
			n, ok := p.(*Limit)
			switch {
			case !ok:
				return "want nginx's parameters"
			case n.Rate <= 0 || n.RateMilli() < 0 || n.Burst < 0 || n.Delay < 0 || n.Status < 400 || n.Status > 599:
				return "parameters nginx refuses"
			}
			return ""
		})
}
