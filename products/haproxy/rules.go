package haproxy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"ratelab/products"
)

// denies are the actions that refuse a request, and their default status.
var denies = map[string]int{"deny": 403, "tarpit": 500, "reject": 0, "silent-drop": 0, "return": 200}

// errCodes are the statuses HAProxy 2.6 has a default error page for
// (src/http.c: http_err_codes): deny and tarpit take only these unless the
// rule gives its own reply.
var errCodes = []int{200, 400, 401, 403, 404, 405, 407, 408, 410, 413, 421, 422, 425, 429, 500, 501, 502, 503, 504}

// rule reads a rule other than track-sc: a limit when it refuses requests on
// http_req_rate, warnings for what else it reads or does.
func (r *reader) rule(s *section, rule proxyRule, acls map[string][]aclDef, tracks []tracker, mode string) (*products.Limit, error) {
	c, err := parseCondition(rule, acls)
	if err != nil {
		return nil, err
	}
	// warnings for every counter the condition reads other than http_req_rate
	for _, a := range c.acls() {
		if a.rate == nil && a.counter != "" {
			r.warn(rule.place, "%s reads %s, a counter ratelab does not model (only http_req_rate)", rule.action, a.fetch)
		}
	}
	rates := c.rateACLs()
	if len(rates) == 0 {
		return nil, nil
	}
	status, isDeny := denies[rule.action]
	if !isDeny || rule.layer != "http" {
		where := "http-request " + rule.action
		if rule.layer != "http" {
			where = "tcp-request " + rule.layer + " " + rule.action
		}
		r.warn(rule.place, "%s reads http_req_rate but is not an http-request rule that refuses (deny, tarpit, reject, silent-drop, return): not modelled", where)
		return nil, nil
	}
	if len(rates) > 1 {
		r.warn(rule.place, "the condition reads http_req_rate %d times: not modelled", len(rates))
		return nil, nil
	}
	a := rates[0]
	if !a.rate.ok {
		r.warn(rule.place, "%s compares the rate as %q, which ratelab does not read (one operator, whole numbers: gt 100): not modelled", rule.action, strings.Join(a.words, " "))
		return nil, nil
	}
	op, threshold, ok := a.rate.op, a.rate.threshold, true
	negated := a.negated != rule.unless
	if negated {
		op, threshold, ok = negateOp(op, threshold)
	}
	if !ok || (op != "gt" && op != "ge") {
		r.warn(rule.place, "the condition %q refuses requests whose rate is %s, not those above a threshold: not modelled", rule.condText(), describeOp(op, threshold, negated))
		return nil, nil
	}
	if !c.single() {
		r.warn(rule.place, "the condition %q combines the rate with other ACLs; ratelab holds every request to the rate alone: not modelled", rule.condText())
	}
	// the status
	if v, ok := actionStatus(rule.args); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 200 || n > 599 {
			return nil, products.Errorf(rule.place, "Unexpected status code '%s' in http-request %s; use a status from 200 to 599 (429 for too many requests)", v, rule.action)
		}
		if (rule.action == "deny" || rule.action == "tarpit") && !slices.Contains(errCodes, n) && !hasReply(rule.args) {
			return nil, products.Errorf(rule.place, "status code '%d' not handled by default with 'default-errorfiles' argument; use one of %s, or give the reply (string, file, errorfile)", n, joinInts(errCodes))
		}
		status = n
	}
	switch rule.action {
	case "tarpit":
		r.warn(rule.place, "tarpit holds a refused request open for timeout tarpit before answering: the refusal is modelled, the wait is not")
	case "silent-drop":
		r.warn(rule.place, "silent-drop closes the connection without a response: modelled as a refusal with no status")
	case "reject":
		r.warn(rule.place, "reject closes the connection without a response: modelled as a refusal with no status")
	}
	lim := &Limit{Fetch: a.fetch, Op: op, Threshold: threshold, Cond: rule.condText(), Action: rule.action, Status: status, Counter: -1}
	key, tbl, err := r.rateSource(s, rule, a, tracks, lim)
	if err != nil || tbl == nil {
		return nil, err
	}
	lim.Table, lim.TablePlace, lim.TableType, lim.TableSize = tbl.name, tbl.place, tbl.typ, tbl.size
	lim.NoPurge, lim.Peers, lim.Expire = tbl.nopurge, tbl.peers, tbl.expire
	if !tbl.hasRate {
		r.warn(rule.place, "table %s (at %s) does not store http_req_rate, so %s finds no rate and the rule never refuses; add store http_req_rate(10s)", tbl.name, tbl.place, a.fetch)
		return nil, nil
	}
	lim.Period = tbl.period
	if tbl.peers != "" {
		r.warn(rule.place, "table %s is replicated to peers %s: the rate read here counts only this HAProxy's requests in ratelab", tbl.name, tbl.peers)
	}
	k := keyOf(key)
	switch {
	case !k.Mapped:
		r.warn(rule.place, "key %s — %s; the lane keys requests by the trace's own key", key, k.Note)
	case k.Note != "":
		r.warn(rule.place, "key %s — %s", key, k.Note)
	}
	return &products.Limit{Place: rule.place, Key: k, Params: lim}, nil
}

// rateSource finds the table and key a rate ACL reads, and whether the
// request is counted before: it fills lim's Counter, Track and Counted.
func (r *reader) rateSource(s *section, rule proxyRule, a *condACL, tracks []tracker, lim *Limit) (string, *stickTable, error) {
	rf := a.rate
	if rf.counter >= 0 {
		if rf.counter > 2 {
			return "", nil, products.Errorf(rule.place, "%s: sticky counter %d does not exist; HAProxy 2.6 has sc0, sc1 and sc2", a.fetch, rf.counter)
		}
		lim.Counter = rf.counter
		var tr *tracker
		for i := range tracks {
			t := &tracks[i]
			if t.counter == rf.counter && (t.layer != "http" || t.index < rule.index) {
				tr = t
				break
			}
		}
		if tr == nil {
			later := ""
			for _, t := range tracks {
				if t.counter == rf.counter {
					later = fmt.Sprintf(" (track-sc%d at %s comes after it: move it before this rule)", rf.counter, t.place)
					break
				}
			}
			r.warn(rule.place, "%s reads sticky counter %d, which no track-sc%d before this rule tracks%s: it finds no entry and the rule never refuses", a.fetch, rf.counter, rf.counter, later)
			return "", nil, nil
		}
		tbl := tr.table
		if rf.table != "" {
			t, ok := r.tables[rf.table]
			if !ok {
				return "", nil, products.Errorf(rule.place, "unable to find table '%s' referenced in %s%s", rf.table, a.fetch, r.nearTable(rf.table))
			}
			if t != tbl {
				r.warn(rule.place, "%s looks the key tracked in %s up in table %s: read in %s, counted where it is tracked or nowhere; not modelled", a.fetch, tbl.name, t.name, t.name)
			}
			tbl = t
		}
		lim.Track, lim.Counted = tr.place, true
		return tr.key, tbl, nil
	}
	// a lookup: src_http_req_rate([table]) or KEY,table_http_req_rate(table)
	name := rf.table
	if name == "" {
		name = s.name
	}
	tbl, ok := r.tables[name]
	if !ok {
		if rf.table == "" {
			return "", nil, products.Errorf(rule.place, "%s has no table: %s %s has no stick-table; name one, src_http_req_rate(TABLE)", a.fetch, s.kind, s.name)
		}
		return "", nil, products.Errorf(rule.place, "unable to find table '%s' referenced in %s%s", name, a.fetch, r.nearTable(name))
	}
	for _, t := range tracks {
		if t.table != tbl || t.key != rf.key {
			continue
		}
		if t.layer != "http" || t.index < rule.index {
			lim.Track, lim.Counted = t.place, true
		} else {
			lim.Track = t.place // after: refused requests never reach it
		}
		break
	}
	if lim.Track == (products.Place{}) {
		other := ""
		for _, t := range tracks {
			if t.table == tbl {
				other = fmt.Sprintf(" (track-sc%d at %s tracks %s there, not %s)", t.counter, t.place, t.key, rf.key)
				break
			}
		}
		r.warn(rule.place, "%s looks %s up in table %s, which no track-sc of %s %s fills with that key%s: requests are counted only where another proxy tracks them, if any; not modelled", a.fetch, rf.key, tbl.name, s.kind, s.name, other)
		return "", nil, nil
	}
	return rf.key, tbl, nil
}

// actionStatus is a deny's deny_status or status.
func actionStatus(args []string) (string, bool) {
	for i, a := range args {
		if (a == "deny_status" || a == "status") && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// hasReply says a rule gives its own reply (no default error page needed).
func hasReply(args []string) bool {
	for _, a := range args {
		switch a {
		case "errorfile", "errorfiles", "file", "lf-file", "string", "lf-string":
			return true
		}
	}
	return false
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// negateOp turns "not (rate OP n)" into a comparison the other way: not le n
// is gt n, not lt n is ge n; false when it is not one (not gt n is le n).
func negateOp(op string, n int64) (string, int64, bool) {
	switch op {
	case "le":
		return "gt", n, true
	case "lt":
		return "ge", n, true
	case "gt":
		return "le", n, true
	case "ge":
		return "lt", n, true
	}
	return op, n, false
}

func describeOp(op string, n int64, negated bool) string {
	words := map[string]string{"gt": "above %d", "ge": "at least %d", "le": "at most %d", "lt": "below %d", "eq": "exactly %d"}
	w, ok := words[op]
	if !ok {
		return "matched by " + op
	}
	s := fmt.Sprintf(w, n)
	if negated && op == "eq" {
		s = "not " + s
	}
	return s
}
