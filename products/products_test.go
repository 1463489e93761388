package products

import (
	"fmt"
	"os"
	"path/filepath"
	"ratelab/internal/check"
	"strings"
	"testing"
)

// A configuration's product is told by its content: nginx's directives end in
// ; and open blocks with {, HAProxy's sections start lines with a keyword; a
// request log or an empty file is neither.
func TestDetect(t *testing.T) {
	for i, c := range []struct {
		text string
		want *Info
		ok   bool
	}{
		{ngxSite, Nginx, true},
		{ngxSiteSearch, Nginx, true},
		{"limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;\n", Nginx, true},
		{"global\n    daemon\ndefaults\n    mode http\nfrontend fe\n    bind :80\n    http-request deny if { sc_http_req_rate(0) gt 10 }\n", HAProxy, true},
		{"# rate limits\nbackend st\n  stick-table type ip size 1m store http_req_rate(10s)\n", HAProxy, true},
		{"frontend fe\n  http-request track-sc0 src\n  http-request deny if { sc0_http_req_rate gt 5 }\n  http-request deny if { sc0_http_req_rate gt 5 }\n", HAProxy, true},
		{`127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326` + "\n", nil, false},
		{"", nil, false},
		// nginx written several directives to a line: its blocks tell it
		{"events {}\nhttp { server { location / { limit_req zone=nope burst=5; } } }\n", Nginx, true},
		{"http { limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s; server { listen 80; } }", Nginx, true},
		{"events{} http{ server{ listen 80; location /api/ { limit_req zone=a; } } }\n", Nginx, true},
		{`{"time": 1, "key": "a"}` + "\n", nil, false},
	} {
		got, ok := Detect([]byte(c.text))
		if got != c.want || ok != c.ok {
			t.Errorf("case %d: Detect = %v, %v; want %v, %v", i, got, ok, c.want, c.ok)
		}
	}
}

// Read tells the product when it is not given, and a file neither product's
// is an error that says how to name it.
func TestReadTellsTheProduct(t *testing.T) {
	c, err := Read("site.conf", []byte(ngxSiteSearch+"limit_req_zone $binary_remote_addr zone=perip:1m rate=1r/s;\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), "site.conf:1: \"server\" directive is not allowed here, outside http") || !strings.Contains(err.Error(), "read that one") {
		t.Errorf("a server block outside http: %v, %v; want nginx's refusal at site.conf:1, and which file to read", c, err)
	}
	c, err = Read("lb.cfg", []byte("defaults\n mode http\nfrontend fe\n stick-table type ip size 1k store http_req_rate(1s)\n http-request track-sc0 src\n http-request deny if { sc0_http_req_rate gt 1 }\n"), Options{})
	if err != nil || c.Product != HAProxy || len(c.Lanes) != 1 {
		t.Errorf("a haproxy.cfg: %+v, %v; want one HAProxy lane", c, err)
	}
	_, err = Read("access.log", []byte(`127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326`+"\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), "access.log: not a configuration ratelab tells by its content") || !strings.Contains(err.Error(), "nginx or haproxy or envoy-local or envoy-global or cloudflare or api-gateway or spring or traefik or kong") {
		t.Errorf("a log: %v; want an error naming the file and the products", err)
	}
	for _, name := range []string{"nginx", "NGINX", "haproxy"} {
		if _, err := every.Lookup(name); err != nil {
			t.Errorf("every.Lookup(%q): %v", name, err)
		}
	}
	if _, err := every.Lookup("envoy"); err == nil || !strings.Contains(err.Error(), "use nginx or haproxy") {
		t.Errorf("every.Lookup(envoy): %v; want the products named", err)
	}
}

// A file larger than a configuration can be is refused after reading just past
// MaxFileSize, whatever it is: /dev/zero never ends, and read whole it ran the
// process out of memory (--config /dev/zero, an include of it).
func TestReadLimitedStopsAtTheLimit(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	if _, err := ReadLimited("/dev/zero"); err == nil || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Errorf("ReadLimited(/dev/zero) = %v, want larger than 16 MiB", err)
	}
	dir := t.TempDir()
	main := filepath.Join(dir, "nginx.conf")
	check.Setup(t, os.WriteFile(main, []byte("events {}\nhttp {\n    include /dev/zero;\n}\n"), 0o644))
	if _, err := ReadFile(main, Options{Product: Nginx}); err == nil || !strings.Contains(err.Error(), "nginx.conf:3") || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Errorf("an include of /dev/zero: %v, want nginx.conf:3 … larger than 16 MiB", err)
	}
}

// A YAML document whose aliases name aliases many times over (a few hundred
// bytes that would expand to 9^10 nodes) is refused at once, not expanded
// until memory runs out.
func TestYAMLAliasBombRefused(t *testing.T) {
	doc := "a0: &a0 [x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i < 10; i++ {
		doc += fmt.Sprintf("a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 9), ", "))
	}
	doc += "plugins:\n- name: rate-limiting\n  config: {minute: 6, policy: local}\n"
	_, err := Read("kong.yml", []byte(doc), Options{})
	if err == nil || !strings.Contains(err.Error(), "aliases expand to more than") {
		t.Fatalf("Read(a billion laughs) = %v, want a refusal of the aliases' expansion", err)
	}
}
