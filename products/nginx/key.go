package nginx

import (
	"fmt"
	"slices"
	"strings"

	"ratelab/products"
)

// keyOf maps a limit_req_zone key — text and variables, like
// "$binary_remote_addr" or "$binary_remote_addr$uri" — to a log's fields.
// vars are the variables the configuration sets (map, geo, set…).
func keyOf(expr string, vars map[string]setVar) products.Key {
	names := variables(expr)
	if len(names) == 0 {
		p := products.KeyPart{Shared: true, Mapped: true}
		if expr == "" {
			p.Note = "the key is empty for every request, and nginx does not limit a request whose key is empty: this zone limits nothing"
			p.Mapped = false
		} else {
			p.Note = "a constant: every request shares one key"
		}
		return products.JoinKey(expr, []products.KeyPart{p})
	}
	var parts []products.KeyPart
	for _, name := range names {
		parts = append(parts, mapVariable(name, vars, 0))
	}
	return products.JoinKey(expr, parts)
}

// variables lists the variables of a complex value ($name, ${name}), in
// order.
func variables(expr string) []string {
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

// mapVariable maps one variable. depth bounds a map whose value is another
// map's variable.
func mapVariable(name string, vars map[string]setVar, depth int) products.KeyPart {
	if v, ok := vars[name]; ok && depth < 4 {
		return mapSetVariable(name, v, vars, depth)
	}
	switch {
	case name == "binary_remote_addr" || name == "remote_addr":
		return products.KeyPart{Trace: "ip", Mapped: true}
	case name == "realip_remote_addr":
		return products.KeyPart{Trace: "ip", Mapped: true, Note: "$realip_remote_addr is the address before the realip module replaced it: the log's host field must hold that address"}
	case name == "http_x_forwarded_for" || name == "http_x_real_ip" || name == "proxy_add_x_forwarded_for":
		return products.KeyPart{Trace: "ip", Mapped: true, Note: fmt.Sprintf("$%s is a header the client (or a proxy) sends: the log's host field stands for it only when nginx logs that address (real_ip_header)", name)}
	case name == "remote_user":
		return products.KeyPart{Trace: "user", Mapped: true, Note: "$remote_user is empty for a request without Basic authentication, and nginx does not limit a request whose key is empty; a log writes those as -, which ratelab limits as one key"}
	case strings.HasPrefix(name, "http_") || strings.HasPrefix(name, "cookie_"):
		what := "header " + headerName(name[len("http_"):])
		if strings.HasPrefix(name, "cookie_") {
			what = "cookie " + name[len("cookie_"):]
		}
		return products.KeyPart{Trace: "user", Mapped: true, Note: fmt.Sprintf("the %s is not in a Common/Combined Log: the log's user field stands for it (log it there, or in a JSON Lines/CSV field named user); nginx does not limit a request without it, ratelab limits those as one key", what)}
	case name == "uri" || name == "document_uri":
		return products.KeyPart{Trace: "path", Mapped: true, Note: fmt.Sprintf("$%s is the path after nginx normalises it (%%XX decoded, // merged); the log's path is as the client sent it", name)}
	case name == "request_uri":
		return products.KeyPart{Trace: "path", Mapped: true, Note: "$request_uri keeps the query string and the log's path drops it: /a?x=1 and /a?x=2 are two keys in nginx, one in ratelab"}
	case name == "request_method":
		return products.KeyPart{Trace: "method", Mapped: true}
	case name == "server_name":
		return products.KeyPart{Shared: true, Mapped: true, Note: "$server_name is the same for every request of a server: one key holds them all"}
	case name == "host" || name == "http_host":
		return products.KeyPart{Shared: true, Mapped: true, Note: fmt.Sprintf("$%s is the request's Host, which a Common/Combined Log does not record: ratelab holds every request under one key, as nginx does for a server with one name", name)}
	case name == "scheme" || name == "server_port" || name == "server_addr" || name == "server_protocol":
		return products.KeyPart{Shared: true, Mapped: true, Note: fmt.Sprintf("$%s is taken as the same for every request", name)}
	}
	return products.KeyPart{Note: fmt.Sprintf("no field of a request log stands for $%s", name)}
}

// mapSetVariable maps a variable the configuration sets: a map whose every
// non-empty value is one variable (often $binary_remote_addr, with "" for
// requests it lets through) maps to that variable; others are not mapped.
func mapSetVariable(name string, v setVar, vars map[string]setVar, depth int) products.KeyPart {
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
			if names := variables(inner[0]); len(names) == 1 && "$"+names[0] == inner[0] {
				p := mapVariable(names[0], vars, depth+1)
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
		return products.KeyPart{Note: fmt.Sprintf("$%s is set by the map at %s: the map decides each request's key (an empty value is not limited), which ratelab does not evaluate", name, v.place)}
	}
	return products.KeyPart{Note: fmt.Sprintf("$%s is set by %s at %s, which ratelab does not evaluate", name, v.by, v.place)}
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
