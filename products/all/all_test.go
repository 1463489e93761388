package all

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratelab/products"
	"ratelab/products/haproxy"
	"ratelab/products/nginx"
)

// ngxSite and ngxSiteSearch are nginx's real-looking nginx.conf and the file
// it includes (products/nginx/testdata).
var (
	ngxSite       = testdata("nginx", "nginx.conf")
	ngxSiteSearch = testdata("nginx", "conf.d/search.conf")
)

// testdata is a file of a product's package's testdata/.
func testdata(pkg, name string) string {
	data, err := os.ReadFile(filepath.Join("..", pkg, "testdata", name))
	if err != nil {
		panic(err)
	}
	return string(data)
}

// A configuration's product is told by its content: nginx's directives end in
// ; and open blocks with {, haproxy.Info's sections start lines with a keyword; a
// request log or an empty file is neither.
func TestDetect(t *testing.T) {
	for i, c := range []struct {
		text string
		want *products.Info
		ok   bool
	}{
		{ngxSite, nginx.Info, true},
		{ngxSiteSearch, nginx.Info, true},
		{"limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;\n", nginx.Info, true},
		{"global\n    daemon\ndefaults\n    mode http\nfrontend fe\n    bind :80\n    http-request deny if { sc_http_req_rate(0) gt 10 }\n", haproxy.Info, true},
		{"# rate limits\nbackend st\n  stick-table type ip size 1m store http_req_rate(10s)\n", haproxy.Info, true},
		{"frontend fe\n  http-request track-sc0 src\n  http-request deny if { sc0_http_req_rate gt 5 }\n  http-request deny if { sc0_http_req_rate gt 5 }\n", haproxy.Info, true},
		{`127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326` + "\n", nil, false},
		{"", nil, false},
		// nginx written several directives to a line: its blocks tell it
		{"events {}\nhttp { server { location / { limit_req zone=nope burst=5; } } }\n", nginx.Info, true},
		{"http { limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s; server { listen 80; } }", nginx.Info, true},
		{"events{} http{ server{ listen 80; location /api/ { limit_req zone=a; } } }\n", nginx.Info, true},
		{`{"time": 1, "key": "a"}` + "\n", nil, false},
		// the typed_config alone has no @type: --config-format envoy-local
		{"stat_prefix: rl\ntoken_bucket: {max_tokens: 1, fill_interval: 1s}\n", nil, false},
		// JSON of no product's
		{`{"a": 1}`, nil, false},
	} {
		got, ok := Products.Detect([]byte(c.text))
		if got != c.want || ok != c.ok {
			t.Errorf("case %d: Detect = %v, %v; want %v, %v", i, got, ok, c.want, c.ok)
		}
	}
}

// Read tells the product when it is not given, and a file neither product's
// is an error that says how to name it.
func TestReadTellsTheProduct(t *testing.T) {
	c, err := Products.Read("site.conf", []byte(ngxSiteSearch+"limit_req_zone $binary_remote_addr zone=perip:1m rate=1r/s;\n"), products.Options{})
	if err == nil || !strings.Contains(err.Error(), "site.conf:1: \"server\" directive is not allowed here, outside http") || !strings.Contains(err.Error(), "read that one") {
		t.Errorf("a server block outside http: %v, %v; want nginx's refusal at site.conf:1, and which file to read", c, err)
	}
	c, err = Products.Read("lb.cfg", []byte("defaults\n mode http\nfrontend fe\n stick-table type ip size 1k store http_req_rate(1s)\n http-request track-sc0 src\n http-request deny if { sc0_http_req_rate gt 1 }\n"), products.Options{})
	if err != nil || c.Product != haproxy.Info || len(c.Lanes) != 1 {
		t.Errorf("a haproxy.cfg: %+v, %v; want one haproxy.Info lane", c, err)
	}
	_, err = Products.Read("access.log", []byte(`127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326`+"\n"), products.Options{})
	if err == nil || !strings.Contains(err.Error(), "access.log: not a configuration ratelab tells by its content") || !strings.Contains(err.Error(), "nginx or haproxy or envoy-local or envoy-global or cloudflare or api-gateway or spring or traefik or kong") {
		t.Errorf("a log: %v; want an error naming the file and the products", err)
	}
	for _, name := range []string{"nginx", "NGINX", "haproxy"} {
		if _, err := Products.Lookup(name); err != nil {
			t.Errorf("Products.Lookup(%q): %v", name, err)
		}
	}
	if _, err := Products.Lookup("envoy"); err == nil || !strings.Contains(err.Error(), "use nginx or haproxy") {
		t.Errorf("Products.Lookup(envoy): %v; want the products named", err)
	}
}

// Each product's sample configurations (every file of its package's
// testdata) are told as its own by their content, among every product's, and
// so they are when the file begins with a byte-order mark.
func TestSamplesAreToldByTheirContent(t *testing.T) {
	samples := 0
	for _, p := range Products {
		dir := filepath.Join("../..", packageDir(p.Read), "testdata")
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			samples++
			for _, mark := range []string{"", "\uFEFF"} {
				got, _ := Products.Detect(append([]byte(mark), data...))
				if got == nil || packageDir(got.Read) != packageDir(p.Read) {
					t.Errorf("%s (mark %q) is told as %v, want %s's", path, mark, got, packageDir(p.Read))
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	if samples < len(Products) {
		t.Errorf("%d samples for %d products: each product's package has some in testdata/", samples, len(Products))
	}
}
