package products

import (
	"fmt"
	"slices"
	"strings"
)

// A product keys its limits by an expression of the request (nginx: a complex
// value of variables; HAProxy: a sample fetch); a request log has a few fields
// (a Common/Combined Log: the client's address, the authenticated user, the
// method and the path; JSON Lines and CSV: fields named the same). These
// functions say which fields stand for an expression, and how they differ.

// KeyPart is what one variable or fetch maps to.
type KeyPart struct {
	Trace  string // "ip", "user", "path", "method"; "" with shared or unmapped
	Shared bool   // the same for every request (of a server)
	Note   string // how the log's field differs, or why none stands for it
	Mapped bool
}

// JoinKey makes a Key of an expression's parts: the fields of the mapped parts
// joined by "+" (a shared part adds nothing), shared when every part is; the
// notes joined. One unmapped part leaves the key unmapped.
func JoinKey(expr string, parts []KeyPart) Key {
	k := Key{Expr: expr, Mapped: true}
	var fields, notes []string
	for _, p := range parts {
		if p.Note != "" && !slices.Contains(notes, p.Note) {
			notes = append(notes, p.Note)
		}
		if !p.Mapped {
			k.Mapped = false
			continue
		}
		if p.Trace != "" && !slices.Contains(fields, p.Trace) {
			fields = append(fields, p.Trace)
		}
	}
	k.Note = strings.Join(notes, "; ")
	switch {
	case !k.Mapped:
	case len(fields) == 0:
		k.Shared = true
	default:
		k.Trace = strings.Join(fields, "+")
	}
	return k
}

// nginxKey maps a limit_req_zone key — text and variables, like
// "$binary_remote_addr" or "$binary_remote_addr$uri" — to a log's fields.
// vars are the variables the configuration sets (map, geo, set…).
func nginxKey(expr string, vars map[string]ngxVar) Key {
	names := nginxVariables(expr)
	if len(names) == 0 {
		p := KeyPart{Shared: true, Mapped: true}
		if expr == "" {
			p.Note = "the key is empty for every request, and nginx does not limit a request whose key is empty: this zone limits nothing"
			p.Mapped = false
		} else {
			p.Note = "a constant: every request shares one key"
		}
		return JoinKey(expr, []KeyPart{p})
	}
	var parts []KeyPart
	for _, name := range names {
		parts = append(parts, nginxVariable(name, vars, 0))
	}
	return JoinKey(expr, parts)
}

// nginxVariables lists the variables of a complex value ($name, ${name}), in
// order.
func nginxVariables(expr string) []string {
	var out []string
	for i := 0; i < len(expr); i++ {
		if expr[i] != '$' {
			continue
		}
		j := i + 1
		brace := j < len(expr) && expr[j] == '{'
		if brace {
			j++
		}
		k := j
		for k < len(expr) && (expr[k] == '_' || expr[k] >= 'a' && expr[k] <= 'z' || expr[k] >= 'A' && expr[k] <= 'Z' || expr[k] >= '0' && expr[k] <= '9') {
			k++
		}
		if k > j {
			out = append(out, strings.ToLower(expr[j:k]))
		}
		if brace && k < len(expr) && expr[k] == '}' {
			k++
		}
		i = k - 1
	}
	return out
}

// nginxVariable maps one variable. depth bounds a map whose value is another
// map's variable.
func nginxVariable(name string, vars map[string]ngxVar, depth int) KeyPart {
	if v, ok := vars[name]; ok && depth < 4 {
		return nginxSetVariable(name, v, vars, depth)
	}
	switch {
	case name == "binary_remote_addr" || name == "remote_addr":
		return KeyPart{Trace: "ip", Mapped: true}
	case name == "realip_remote_addr":
		return KeyPart{Trace: "ip", Mapped: true, Note: "$realip_remote_addr is the address before the realip module replaced it: the log's host field must hold that address"}
	case name == "http_x_forwarded_for" || name == "http_x_real_ip" || name == "proxy_add_x_forwarded_for":
		return KeyPart{Trace: "ip", Mapped: true, Note: fmt.Sprintf("$%s is a header the client (or a proxy) sends: the log's host field stands for it only when nginx logs that address (real_ip_header)", name)}
	case name == "remote_user":
		return KeyPart{Trace: "user", Mapped: true, Note: "$remote_user is empty for a request without Basic authentication, and nginx does not limit a request whose key is empty; a log writes those as -, which ratelab limits as one key"}
	case strings.HasPrefix(name, "http_") || strings.HasPrefix(name, "cookie_"):
		what := "header " + headerName(name[len("http_"):])
		if strings.HasPrefix(name, "cookie_") {
			what = "cookie " + name[len("cookie_"):]
		}
		return KeyPart{Trace: "user", Mapped: true, Note: fmt.Sprintf("the %s is not in a Common/Combined Log: the log's user field stands for it (log it there, or in a JSON Lines/CSV field named user); nginx does not limit a request without it, ratelab limits those as one key", what)}
	case name == "uri" || name == "document_uri":
		return KeyPart{Trace: "path", Mapped: true, Note: fmt.Sprintf("$%s is the path after nginx normalises it (%%XX decoded, // merged); the log's path is as the client sent it", name)}
	case name == "request_uri":
		return KeyPart{Trace: "path", Mapped: true, Note: "$request_uri keeps the query string and the log's path drops it: /a?x=1 and /a?x=2 are two keys in nginx, one in ratelab"}
	case name == "request_method":
		return KeyPart{Trace: "method", Mapped: true}
	case name == "server_name":
		return KeyPart{Shared: true, Mapped: true, Note: "$server_name is the same for every request of a server: one key holds them all"}
	case name == "host" || name == "http_host":
		return KeyPart{Shared: true, Mapped: true, Note: fmt.Sprintf("$%s is the request's Host, which a Common/Combined Log does not record: ratelab holds every request under one key, as nginx does for a server with one name", name)}
	case name == "scheme" || name == "server_port" || name == "server_addr" || name == "server_protocol":
		return KeyPart{Shared: true, Mapped: true, Note: fmt.Sprintf("$%s is taken as the same for every request", name)}
	}
	return KeyPart{Note: fmt.Sprintf("no field of a request log stands for $%s", name)}
}

// nginxSetVariable maps a variable the configuration sets: a map whose every
// non-empty value is one variable (often $binary_remote_addr, with "" for
// requests it lets through) maps to that variable; others are not mapped.
func nginxSetVariable(name string, v ngxVar, vars map[string]ngxVar, depth int) KeyPart {
	if v.by == "map" {
		var inner []string
		empty := false
		for _, val := range v.values {
			if val == "" || val == `""` || val == "''" {
				empty = true
				continue
			}
			if !slices.Contains(inner, val) {
				inner = append(inner, val)
			}
		}
		if len(inner) == 1 {
			if names := nginxVariables(inner[0]); len(names) == 1 && "$"+names[0] == inner[0] {
				p := nginxVariable(names[0], vars, depth+1)
				if p.Mapped {
					note := fmt.Sprintf("$%s is set by the map at %s to %s", name, v.place, inner[0])
					if empty {
						note += " or to an empty key, which nginx does not limit (ratelab limits every request)"
					}
					if p.Note != "" {
						note += "; " + p.Note
					}
					p.Note = note
					return p
				}
			}
		}
		return KeyPart{Note: fmt.Sprintf("$%s is set by the map at %s: the map decides each request's key (an empty value is not limited), which ratelab does not evaluate", name, v.place)}
	}
	return KeyPart{Note: fmt.Sprintf("$%s is set by %s at %s, which ratelab does not evaluate", name, v.by, v.place)}
}

// headerName writes a header variable's name as the header: x_api_key is
// X-Api-Key.
func headerName(v string) string {
	parts := strings.Split(v, "_")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "-")
}

// haproxyKey maps a track-sc key — a sample fetch and its converters, like
// "src" or "req.hdr(x-api-key),lower" — to a log's fields.
func haproxyKey(expr string) Key {
	fetch, convs := splitConverters(expr)
	p := haproxyFetch(fetch)
	for _, c := range convs {
		name := c
		if i := strings.IndexByte(c, '('); i >= 0 {
			name = c[:i]
		}
		switch name {
		case "lower", "upper":
			if p.Mapped && p.Trace != "ip" {
				continue // case does not split a log's clients differently
			}
		}
		p = KeyPart{Note: fmt.Sprintf("the converter %s changes the key in a way ratelab does not evaluate", c)}
		break
	}
	return JoinKey(expr, []KeyPart{p})
}

// splitConverters splits "fetch(args),conv1(args),conv2" at its top-level
// commas.
func splitConverters(expr string) (string, []string) {
	var parts []string
	depth, from := 0, 0
	for i := 0; i < len(expr); i++ {
		switch expr[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, expr[from:i])
				from = i + 1
			}
		}
	}
	parts = append(parts, expr[from:])
	return parts[0], parts[1:]
}

// fetchArgs splits "name(a,b)" into its name and arguments.
func fetchArgs(fetch string) (string, []string) {
	open := strings.IndexByte(fetch, '(')
	if open < 0 || !strings.HasSuffix(fetch, ")") {
		return fetch, nil
	}
	inner := fetch[open+1 : len(fetch)-1]
	if inner == "" {
		return fetch[:open], nil
	}
	args := strings.Split(inner, ",")
	for i := range args {
		args[i] = strings.TrimSpace(args[i])
	}
	return fetch[:open], args
}

// haproxyFetch maps one sample fetch.
func haproxyFetch(fetch string) KeyPart {
	name, args := fetchArgs(fetch)
	header := ""
	if len(args) > 0 {
		header = strings.ToLower(args[0])
	}
	switch name {
	case "src":
		return KeyPart{Trace: "ip", Mapped: true}
	case "req.hdr", "hdr", "req.fhdr", "hdr_ip", "req.hdr_ip":
		switch header {
		case "x-forwarded-for", "x-real-ip", "forwarded":
			return KeyPart{Trace: "ip", Mapped: true, Note: fmt.Sprintf("%s is a header the client (or a proxy) sends: the log's host field stands for it only when the log records that address", fetch)}
		case "host":
			return KeyPart{Shared: true, Mapped: true, Note: "the Host header is not in a Common/Combined Log: ratelab holds every request under one key, as HAProxy does for one host"}
		case "":
			return KeyPart{Note: fmt.Sprintf("%s names no header", fetch)}
		}
		return KeyPart{Trace: "user", Mapped: true, Note: fmt.Sprintf("the header %s is not in a Common/Combined Log: the log's user field stands for it (log it there, or in a JSON Lines/CSV field named user); a request without it has an empty key, which HAProxy does not track, and ratelab limits those as one key", header)}
	case "req.cook", "cook":
		return KeyPart{Trace: "user", Mapped: true, Note: fmt.Sprintf("the cookie %s is not in a Common/Combined Log: the log's user field stands for it", header)}
	case "path":
		return KeyPart{Trace: "path", Mapped: true}
	case "url", "base", "pathq":
		return KeyPart{Trace: "path", Mapped: true, Note: fmt.Sprintf("%s includes the query string (base: the host too); the log's path has neither", name)}
	case "method":
		return KeyPart{Trace: "method", Mapped: true}
	case "str":
		return KeyPart{Shared: true, Mapped: true, Note: "a constant: every request shares one key"}
	}
	return KeyPart{Note: fmt.Sprintf("no field of a request log stands for %s", fetch)}
}
