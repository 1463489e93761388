package haproxy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratelab/internal/producttest"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// hapSite is a haproxy.cfg with one rule that refuses by rate.
var hapSite = configtest.Testdata("haproxy.cfg")

// HAProxy's reader shows a haproxy.cfg's text as escapes where it puts names
// and values (a section's name, a key, a status, a keyword); reads its sample
// the same when it begins with a byte-order mark, with a note at the file's
// first line that HAProxy refuses it (held on the real server below); and its
// snippet is read back through haproxy -c (snippet_test.go)
// (configtest.Checks).
func TestChecks(t *testing.T) {
	configtest.Checks{
		Escapes: []configtest.Escapes{
			{Name: "haproxy section, key", Text: configtest.Raw(`backend stP
    stick-table type ip size 1m expire 30s store http_req_rate(10s)
frontend feP
    bind :80
    mode http
    http-request track-sc0 req.hdr(xP) table stP
    http-request deny if { sc_http_req_rate(0) gt 10 }
`), InLane: true, InNote: true, InLimitName: true},
			{Name: "haproxy status", Text: configtest.Raw(`frontend fe
    mode http
    stick-table type ip size 1m store http_req_rate(10s)
    http-request track-sc0 src
    http-request deny deny_status 4P if { sc_http_req_rate(0) gt 10 }
`), InError: true},
			{Name: "haproxy keyword", Text: configtest.Raw("Pglobal\n"), InError: true},
		},
		Marked: map[string]string{"haproxy.cfg": hapSite},
	}.Run(t, Info)
}

// HAProxy refuses a file that begins with a byte-order mark, as the note
// says: the mark is part of its first word (HAProxy 2.6: unknown keyword
// '\ufeffglobal' out of section); without the mark it reads the file.
func TestTheServerRefusesAByteOrderMark(t *testing.T) {
	hap := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(hap, []byte(configtest.BOM+hapSite), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := producttest.HAProxyCheck(t, hap); r.OK || !strings.Contains(r.Output, "unknown keyword") || r.Line != 1 {
		t.Errorf("haproxy -c on a file with a byte-order mark: ok %v at line %d:\n%s\nwant unknown keyword at line 1", r.OK, r.Line, r.Output)
	}
	if err := os.WriteFile(hap, []byte(hapSite), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := producttest.HAProxyCheck(t, hap); !r.OK {
		t.Errorf("haproxy -c refuses the file without the mark:\n%s", r.Output)
	}
}

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
