package nginx

import (
	"testing"

	"ratelab/products/internal/configtest"
)

// Config text reaches the terminal in a lane's name, a note and an error:
// nginx's reader, fed escape sequences and bidi controls where an nginx.conf
// puts names and values (a server_name, a zone, a location, an included
// file), shows them as escapes, never raw (configtest.Escapes).
func TestConfigTextIsShownAsEscapes(t *testing.T) {
	for _, c := range []configtest.Escapes{
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
	} {
		c.Check(t, Info)
	}
}
