package haproxy

import (
	"strconv"
	"strings"

	"ratelab/products"
)

// aclDef is one definition of a named ACL (several with one name are ORed).
type aclDef struct {
	name  string
	place products.Place
	words []string // fetch, flags, operator, values
}

// tracker is a track-sc rule.
type tracker struct {
	place   products.Place
	counter int
	key     string
	table   *stickTable
	layer   string // connection, session, content (tcp-request), http
	index   int    // its place among the http-request rules; -1 for tcp-request
	cond    string
}

// proxyRule is a rule of a proxy: http-request or tcp-request.
type proxyRule struct {
	place  products.Place
	words  []string
	layer  string // http, connection, session, content
	action string
	args   []string // the action's arguments, before if/unless
	unless bool
	cond   []string // the condition's words
	index  int      // among the http-request rules; -1 for tcp-request
}

// parseRule splits a rule into its action, arguments and condition.
func parseRule(l cfgLine) (proxyRule, bool) {
	w := l.words
	r := proxyRule{place: l.place, words: w, index: -1}
	switch {
	case w[0] == "http-request" && len(w) > 1:
		r.layer, r.action, w = "http", w[1], w[2:]
	case w[0] == "tcp-request" && len(w) > 2 && (w[1] == "connection" || w[1] == "session" || w[1] == "content"):
		r.layer, r.action, w = w[1], w[2], w[3:]
	default:
		return r, false
	}
	for i, x := range w {
		if x == "if" || x == "unless" {
			r.args, r.unless, r.cond = w[:i], x == "unless", w[i+1:]
			return r, true
		}
	}
	r.args = w
	return r, true
}

// condText is a rule's condition as written.
func (r proxyRule) condText() string {
	if r.cond == nil {
		return ""
	}
	kw := "if"
	if r.unless {
		kw = "unless"
	}
	return kw + " " + strings.Join(r.cond, " ")
}

// proxy reads a frontend, listen or backend section into a lane.
func (r *reader) proxy(s *section, mode string) error {
	acls := map[string][]aclDef{}
	var rules []proxyRule
	nHTTP := 0
	for _, l := range s.lines {
		switch l.words[0] {
		case "acl":
			if len(l.words) < 3 {
				return products.Errorf(l.place, "'acl' needs a name and a criterion: acl NAME FETCH [OPERATOR] VALUE…")
			}
			acls[l.words[1]] = append(acls[l.words[1]], aclDef{name: l.words[1], place: l.place, words: l.words[2:]})
		case "http-request", "tcp-request":
			rule, ok := parseRule(l)
			if !ok {
				continue
			}
			if rule.layer == "http" {
				rule.index = nHTTP
				nHTTP++
			}
			rules = append(rules, rule)
		case "http-response":
			if len(l.words) > 1 && strings.HasPrefix(l.words[1], "track-sc") {
				r.warn(l.place, "http-response %s tracks at the response: the request rates it counts are not modelled", l.words[1])
			}
		}
	}
	if mode != "http" {
		for _, rule := range rules {
			if rule.layer == "http" {
				r.warn(rule.place, "%s %s is in a proxy in mode %s: HAProxy ignores http-request rules there", s.kind, s.name, mode)
				break
			}
		}
	}
	// the trackers: tcp-request ones first (connection, session, content),
	// then http-request ones in order; the first for a counter wins
	var tracks []tracker
	for _, layer := range []string{"connection", "session", "content", "http"} {
		for _, rule := range rules {
			if rule.layer != layer || !strings.HasPrefix(rule.action, "track-sc") {
				continue
			}
			t, err := r.track(s, rule)
			if err != nil {
				return err
			}
			if rule.cond != nil {
				r.warn(rule.place, "%s counts only the requests that match %q: the rates it tracks are not those of every request (not modelled)", rule.action, rule.condText())
			}
			tracks = append(tracks, t)
		}
	}
	// check the conditions and find the limiting rules
	lane := products.Lane{Name: s.kind + " " + s.name, Place: s.place}
	for _, rule := range rules {
		if strings.HasPrefix(rule.action, "track-sc") {
			continue
		}
		lim, err := r.rule(s, rule, acls, tracks, mode)
		if err != nil {
			return err
		}
		if lim != nil {
			lane.Limits = append(lane.Limits, *lim)
		}
	}
	if len(lane.Limits) == 0 || mode != "http" {
		return nil
	}
	if len(lane.Limits) > 1 {
		r.warn(s.place, "%s has %d rules that refuse by rate: HAProxy refuses a request at the first that matches, and every table tracked before counts it whichever refused it", lane.Name, len(lane.Limits))
	}
	if s.kind == "backend" {
		r.warn(s.place, "backend %s holds the requests routed to it (use_backend, default_backend); ratelab gives its lane every request of the log", s.name)
	}
	r.cfg.Lanes = append(r.cfg.Lanes, lane)
	return nil
}

// track reads a track-sc rule.
func (r *reader) track(s *section, rule proxyRule) (tracker, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(rule.action, "track-sc"))
	if err != nil || n < 0 {
		return tracker{}, products.Errorf(rule.place, "Wrong track-sc number '%s'; use track-sc0, track-sc1 or track-sc2", rule.action)
	}
	if n > 2 {
		return tracker{}, products.Errorf(rule.place, "%d track-sc number exceeding 2 (MAX_SESS_STKCTR-1) value; use track-sc0, track-sc1 or track-sc2", n)
	}
	t := tracker{place: rule.place, counter: n, layer: rule.layer, index: rule.index, cond: rule.condText()}
	args := rule.args
	if len(args) == 0 {
		return t, products.Errorf(rule.place, "'%s' expects a key: %s src [table TABLE]", rule.action, rule.action)
	}
	t.key = args[0]
	tableName := s.name
	switch {
	case len(args) == 3 && args[1] == "table":
		tableName = args[2]
	case len(args) != 1:
		return t, products.Errorf(rule.place, "'%s %s' takes [table TABLE] after its key (got %q)", rule.action, t.key, strings.Join(args[1:], " "))
	}
	tbl, ok := r.tables[tableName]
	if !ok {
		if tableName == s.name {
			return t, products.Errorf(rule.place, "unable to find table '%s' referenced by %s: %s %s has no stick-table; add one, or name one with table TABLE", tableName, rule.action, s.kind, s.name)
		}
		return t, products.Errorf(rule.place, "unable to find table '%s' referenced by %s%s", tableName, rule.action, r.nearTable(tableName))
	}
	t.table = tbl
	return t, nil
}
