package haproxy

import (
	"bytes"

	"ratelab/products"
)

// detect counts HAProxy's sections (a section keyword at the start of
// a line, three each) and its proxies' keywords, on lines that hold no braces
// or semicolons at their ends (nginx's); three, a section, are enough.
func detect(data []byte) products.Sign {
	n := 0
	for l := range products.TextLines(data) {
		switch string(l.Word) {
		case "frontend", "backend", "listen", "defaults", "global", "peers", "userlist", "resolvers":
			if l.Line[0] != ' ' && l.Line[0] != '\t' && !bytes.ContainsAny(l.Trimmed, "{;") {
				n += 3
			}
		case "bind", "stick-table", "http-request", "tcp-request", "default_backend", "use_backend", "acl", "mode", "timeout", "maxconn", "server":
			if !bytes.HasSuffix(l.Trimmed, []byte(";")) && !bytes.HasSuffix(l.Trimmed, []byte("{")) {
				n++
			}
		}
	}
	return products.Sign{Count: n, Enough: n >= 3}
}
