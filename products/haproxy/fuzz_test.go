package haproxy

import (
	"testing"

	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// No input makes the HAProxy reader panic, hang or answer without a place.
func FuzzHAProxyConfig(f *testing.F) {
	configtest.Fuzz(f, Info, []string{"", "frontend", "frontend fe\n http-request deny if {", "#\n'", "\\x",
		"backend st\n stick-table type ip size 1m expire 30s store http_req_rate(10s)\nfrontend fe\n http-request track-sc0 src table st\n http-request deny deny_status 429 if { sc_http_req_rate(0) gt 100 }\n",
		"frontend fe\n stick-table type ip size 1k store http_req_rate(1s)\n acl a sc0_http_req_rate 10:\n http-request track-sc0 src\n http-request deny unless !a || { src_http_req_rate lt 3 }\n",
		"peers p\n table t type ip size 1k store http_req_rate(1s)\nfrontend fe\n http-request deny if { src,table_http_req_rate(p/t) gt 1 }\n"},
		func(p products.Params) string {
			h, ok := p.(*Limit)
			switch {
			case !ok:
				return "want HAProxy's parameters"
			case h.Period <= 0 || (h.Op != "gt" && h.Op != "ge"):
				return "want a period and gt or ge"
			}
			return ""
		})
}
