package nginx

import (
	"testing"

	"ratelab/products"
	"ratelab/products/internal/configtest"
)

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
