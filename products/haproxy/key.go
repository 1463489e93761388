package haproxy

import (
	"fmt"
	"strings"

	"ratelab/products"
)

// keyOf maps a track-sc key — a sample fetch and its converters, like
// "src" or "req.hdr(x-api-key),lower" — to a log's fields.
func keyOf(expr string) products.Key {
	fetch, convs := splitConverters(expr)
	p := mapFetch(fetch)
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
		p = products.KeyPart{Note: fmt.Sprintf("the converter %s changes the key in a way ratelab does not evaluate", c)}
		break
	}
	return products.JoinKey(expr, []products.KeyPart{p})
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

// mapFetch maps one sample fetch.
func mapFetch(fetch string) products.KeyPart {
	name, args := fetchArgs(fetch)
	header := ""
	if len(args) > 0 {
		header = strings.ToLower(args[0])
	}
	switch name {
	case "src":
		return products.KeyPart{Trace: "ip", Mapped: true}
	case "req.hdr", "hdr", "req.fhdr", "hdr_ip", "req.hdr_ip":
		switch header {
		case "x-forwarded-for", "x-real-ip", "forwarded":
			return products.KeyPart{Trace: "ip", Mapped: true, Note: fmt.Sprintf("%s is a header the client (or a proxy) sends: the log's host field stands for it only when the log records that address", fetch)}
		case "host":
			return products.KeyPart{Shared: true, Mapped: true, Note: "the Host header is not in a Common/Combined Log: ratelab holds every request under one key, as HAProxy does for one host"}
		case "":
			return products.KeyPart{Note: fmt.Sprintf("%s names no header", fetch)}
		}
		return products.KeyPart{Trace: "user", Mapped: true, Note: fmt.Sprintf("the header %s is not in a Common/Combined Log: the log's user field stands for it (log it there, or in a JSON Lines/CSV field named user); a request without it has an empty key, which HAProxy does not track, and ratelab limits those as one key", header)}
	case "req.cook", "cook":
		return products.KeyPart{Trace: "user", Mapped: true, Note: fmt.Sprintf("the cookie %s is not in a Common/Combined Log: the log's user field stands for it", header)}
	case "path":
		return products.KeyPart{Trace: "path", Mapped: true}
	case "url", "base", "pathq":
		return products.KeyPart{Trace: "path", Mapped: true, Note: fmt.Sprintf("%s includes the query string (base: the host too); the log's path has neither", name)}
	case "method":
		return products.KeyPart{Trace: "method", Mapped: true}
	case "str":
		return products.KeyPart{Shared: true, Mapped: true, Note: "a constant: every request shares one key"}
	}
	return products.KeyPart{Note: fmt.Sprintf("no field of a request log stands for %s", fetch)}
}
