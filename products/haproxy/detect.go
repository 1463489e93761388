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
	for line := range bytes.Lines(data) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		word := t
		if i := bytes.IndexAny(t, " \t"); i >= 0 {
			word = t[:i]
		}
		switch string(word) {
		case "frontend", "backend", "listen", "defaults", "global", "peers", "userlist", "resolvers":
			if line[0] != ' ' && line[0] != '\t' && !bytes.ContainsAny(t, "{;") {
				n += 3
			}
		case "bind", "stick-table", "http-request", "tcp-request", "default_backend", "use_backend", "acl", "mode", "timeout", "maxconn", "server":
			if !bytes.HasSuffix(t, []byte(";")) && !bytes.HasSuffix(t, []byte("{")) {
				n++
			}
		}
	}
	return products.Sign{Count: n, Enough: n >= 3}
}
