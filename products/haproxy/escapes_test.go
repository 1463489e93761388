package haproxy

import (
	"testing"

	"ratelab/products/internal/configtest"
)

// Config text reaches the terminal in a lane's name, a note and an error:
// HAProxy's reader, fed escape sequences and bidi controls where a haproxy.cfg
// puts names and values (a section's name, a key, a status, a keyword),
// shows them as escapes, never raw (configtest.Escapes).
func TestConfigTextIsShownAsEscapes(t *testing.T) {
	for _, c := range []configtest.Escapes{
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
	} {
		c.Check(t, Info)
	}
}
