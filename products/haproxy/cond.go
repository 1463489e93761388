package haproxy

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"ratelab/products"
)

// A rule's condition (doc/configuration.txt, 7.2 "Using ACLs to form
// conditions"): terms joined by || (or "or"), each term ACLs that must all
// match, each ACL named (acl NAME … in the proxy; several lines with one name
// match when any does) or anonymous ({ fetch operator value }), and ! before
// one negates it.

// condACL is one ACL a condition uses.
type condACL struct {
	fetch   string // the fetch (and converters) as written
	words   []string
	negated bool
	named   string // the ACL's name; "" for an anonymous one
	defs    int    // a named ACL's number of definitions
	place   products.Place
	rate    *rateCmp // set when it compares http_req_rate with integers
	counter string   // set when it reads another stick-table counter
}

// rateCmp is an ACL comparing an http_req_rate with a number.
type rateCmp struct {
	counter   int    // the sticky counter (sc_http_req_rate(N), scN_…); -1 for a lookup
	table     string // the table named in the fetch; "" for the default
	key       string // a lookup's key: src, or the expression before table_http_req_rate
	op        string // gt, ge, le, lt, eq
	threshold int64
	ok        bool // the comparison is one ratelab reads (an integer, one operator)
}

// cond is a condition: terms ORed, each ACLs ANDed.
type cond struct {
	terms [][]*condACL
}

func (c cond) acls() []*condACL {
	var out []*condACL
	for _, t := range c.terms {
		out = append(out, t...)
	}
	return out
}

// rateACLs are the ACLs that compare http_req_rate.
func (c cond) rateACLs() []*condACL {
	var out []*condACL
	for _, a := range c.acls() {
		if a.rate != nil {
			out = append(out, a)
		}
	}
	return out
}

// single says the condition is one ACL (a named one with one definition).
func (c cond) single() bool {
	return len(c.terms) == 1 && len(c.terms[0]) == 1 && (c.terms[0][0].named == "" || c.terms[0][0].defs == 1)
}

// predefinedACLs are the ACLs HAProxy defines itself.
var predefinedACLs = []string{"FALSE", "HTTP", "HTTP_1.0", "HTTP_1.1", "HTTP_2.0", "HTTP_3.0", "HTTP_CONTENT", "HTTP_URL_ABS", "HTTP_URL_SLASH",
	"HTTP_URL_STAR", "LOCALHOST", "METH_CONNECT", "METH_DELETE", "METH_GET", "METH_HEAD", "METH_OPTIONS", "METH_POST", "METH_PUT",
	"METH_TRACE", "RDP_COOKIE", "REQ_CONTENT", "TRUE", "WAIT_END"}

// parseCondition reads a rule's condition.
func parseCondition(rule proxyRule, acls map[string][]aclDef) (cond, error) {
	var c cond
	if rule.cond == nil {
		return c, nil
	}
	if len(rule.cond) == 0 {
		return c, products.Errorf(rule.place, "missing condition after '%s'; write if { sc_http_req_rate(0) gt 100 }", strings.Fields(rule.condText())[0])
	}
	term := []*condACL{}
	w := rule.cond
	for i := 0; i < len(w); i++ {
		x := w[i]
		if x == "||" || x == "or" {
			if len(term) == 0 {
				return c, products.Errorf(rule.place, "'%s' with nothing before it in the condition", x)
			}
			c.terms = append(c.terms, term)
			term = []*condACL{}
			continue
		}
		neg := false
		for strings.HasPrefix(x, "!") {
			neg = !neg
			x = x[1:]
			if x == "" {
				if i+1 >= len(w) {
					return c, products.Errorf(rule.place, "'!' with nothing after it in the condition")
				}
				i++
				x = w[i]
			}
		}
		if x == "{" {
			end := slices.Index(w[i+1:], "}")
			if end < 0 {
				return c, products.Errorf(rule.place, "unmatched '{' in the condition; close the anonymous ACL with ' }' (a word of its own)")
			}
			body := w[i+1 : i+1+end]
			if len(body) == 0 {
				return c, products.Errorf(rule.place, "an empty anonymous ACL '{ }'")
			}
			i += end + 1
			a := readACL(body, rule.place)
			a.negated = neg
			term = append(term, a)
			continue
		}
		if x == "}" || strings.HasPrefix(x, "{") {
			return c, products.Errorf(rule.place, "'%s' in the condition: the braces of an anonymous ACL are words of their own, { sc_http_req_rate(0) gt 100 }", x)
		}
		defs, ok := acls[x]
		if !ok {
			if slices.Contains(predefinedACLs, x) {
				term = append(term, &condACL{named: x, defs: 1, negated: neg, fetch: x})
				continue
			}
			var names []string
			for n := range acls {
				names = append(names, n)
			}
			slices.Sort(names)
			fix := "declare it with acl " + x + " … in this section"
			if len(names) > 0 {
				fix += " (its ACLs are " + strings.Join(names, ", ") + ")"
			}
			return c, products.Errorf(rule.place, "no such ACL : '%s'; %s", x, fix)
		}
		for _, d := range defs {
			a := readACL(d.words, d.place)
			a.named, a.defs, a.negated = x, len(defs), neg
			term = append(term, a)
		}
	}
	if len(term) == 0 {
		return c, products.Errorf(rule.place, "the condition ends with '||'")
	}
	c.terms = append(c.terms, term)
	return c, nil
}

// readACL reads an ACL's words: fetch, flags, operator, values.
func readACL(words []string, place products.Place) *condACL {
	a := &condACL{fetch: words[0], words: words, place: place}
	base, convs := splitConverters(a.fetch)
	var rf *rateCmp
	switch m := (struct{ sc, scN, src []string }{scFetch.FindStringSubmatch(base), scNFetch.FindStringSubmatch(base), srcFetch.FindStringSubmatch(base)}); {
	case m.sc != nil:
		n, _ := strconv.Atoi(m.sc[1])
		rf = &rateCmp{counter: n, table: strings.TrimSpace(m.sc[2])}
	case m.scN != nil:
		n, _ := strconv.Atoi(m.scN[1])
		rf = &rateCmp{counter: n, table: strings.TrimSpace(m.scN[2])}
	case m.src != nil:
		rf = &rateCmp{counter: -1, table: strings.TrimSpace(m.src[1]), key: "src"}
	case len(convs) == 1 && tableConv.MatchString(convs[0]):
		rf = &rateCmp{counter: -1, table: strings.TrimSpace(tableConv.FindStringSubmatch(convs[0])[1]), key: base}
		convs = nil
	}
	if rf != nil && len(convs) > 0 {
		a.counter = a.fetch // a rate with converters: not a plain comparison
		return a
	}
	if rf == nil {
		for _, part := range append([]string{base}, convs...) {
			if m := otherCount.FindStringSubmatch(part); m != nil && isCounter(m[2]) {
				a.counter = part
				break
			}
		}
		return a
	}
	// flags, operator, values
	i := 1
	matchInt := true
	for i < len(words) && strings.HasPrefix(words[i], "-") {
		f := words[i]
		i++
		if f == "--" {
			break
		}
		if f == "-m" || f == "-f" || f == "-u" {
			if f == "-f" || (f == "-m" && (i >= len(words) || words[i] != "int")) {
				matchInt = false
			}
			i++
		}
	}
	rest := words[min(i, len(words)):]
	op := ""
	if len(rest) > 0 && slices.Contains([]string{"eq", "ge", "gt", "le", "lt"}, rest[0]) {
		op, rest = rest[0], rest[1:]
	}
	rf.op = op
	a.rate = rf
	if !matchInt || len(rest) == 0 {
		return a
	}
	if op == "" {
		// a range: N: is at least N, :N at most N, N exactly N
		if len(rest) != 1 {
			return a
		}
		v := rest[0]
		lo, hi, isRange := strings.Cut(v, ":")
		switch {
		case !isRange:
			n, ok := products.ParseDigits(v)
			rf.op, rf.threshold, rf.ok = "eq", n, ok
		case hi == "":
			n, ok := products.ParseDigits(lo)
			rf.op, rf.threshold, rf.ok = "ge", n, ok
		case lo == "":
			n, ok := products.ParseDigits(hi)
			rf.op, rf.threshold, rf.ok = "le", n, ok
		default:
			rf.op = "in " + v
		}
		return a
	}
	// with an operator, the ACL matches when the rate compares so with any
	// value: for gt and ge the smallest counts, for lt and le the largest
	var best int64
	for j, v := range rest {
		n, ok := products.ParseDigits(v)
		if !ok {
			return a
		}
		switch {
		case j == 0, (op == "gt" || op == "ge") && n < best, (op == "lt" || op == "le") && n > best:
			best = n
		}
	}
	if op == "eq" && len(rest) > 1 {
		return a
	}
	rf.threshold, rf.ok = best, true
	return a
}

// isCounter says a fetch's suffix (after sc_, scN_, src_, table_) names a
// stick-table counter.
func isCounter(name string) bool {
	for _, p := range []string{"conn_", "sess_", "http_", "bytes_", "kbytes_", "gpc", "gpt", "get_gp", "inc_gpc", "clr_gpc", "trackers", "tracked", "server_id", "expire", "idle"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

var (
	scFetch    = regexp.MustCompile(`^sc_http_req_rate\((\d+)(?:,\s*([^)]+))?\)$`)
	scNFetch   = regexp.MustCompile(`^sc(\d)_http_req_rate(?:\(([^)]*)\))?$`)
	srcFetch   = regexp.MustCompile(`^src_http_req_rate(?:\(([^)]*)\))?$`)
	tableConv  = regexp.MustCompile(`^table_http_req_rate\(([^)]+)\)$`)
	otherCount = regexp.MustCompile(`^(sc\d?_|src_|table_)(\w+)`)
)
