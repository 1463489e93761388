package products

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/suggest"
)

// HAProxy is HAProxy's stick tables with http_req_rate, read from a
// haproxy.cfg.
var HAProxy = &Info{Name: algorithms.HAProxyName, File: "a haproxy.cfg", Shows: "sections: global, defaults, frontend, backend, listen",
	Limiting: "http-request deny on http_req_rate", Detect: detectHAProxy, Read: readHAProxy, ByteOrderMark: haproxyMarkRefused,
	Lanes: haproxyLanes, KeyWarnings: haproxyKeyWarnings,
	Target: &Target{Variants: []Variant{{TrackSC: algorithms.TrackBeforeDeny}, {TrackSC: algorithms.TrackAfterDeny}},
		Periods:  []time.Duration{time.Second, 10 * time.Second, time.Minute, 10 * time.Minute, time.Hour},
		Writable: "http_req_rate(<period>) in whole milliseconds",
		Period:   func(d time.Duration) bool { return d%time.Millisecond == 0 && d <= math.MaxInt32*time.Millisecond },
		MaxLimit: math.MaxInt32, Write: writeHAProxy}}

// haproxyMarkRefused is what HAProxy says of a file that begins with a
// byte-order mark: it reads the mark as part of the first keyword
// (src/cfgparse.c has no case for it; HAProxy 2.6 -c says unknown keyword
// '\ufeffglobal' out of section).
const haproxyMarkRefused = "unknown keyword out of section, the mark taken as part of the first keyword"

// HAProxyLimit is one rule that refuses a request when a stick table's
// http_req_rate is above a threshold, in HAProxy's terms, as HAProxy 2.6 reads
// it (doc/configuration.txt: stick-table, http-request track-sc0, http-request
// deny, sc_http_req_rate, src_http_req_rate; src/stick_table.c,
// src/http_act.c):
//
//	backend st_src
//	    stick-table type ip size 1m expire 30s store http_req_rate(10s)
//	frontend fe
//	    http-request track-sc0 src table st_src
//	    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 100 }
type HAProxyLimit struct {
	// Table is the stick table the rate is read from: a proxy's name, or
	// peers/name for a table of a peers section. TablePlace is its
	// stick-table line.
	Table      string
	TablePlace Place
	// TableType is its key type (ip, ipv6, integer, string, binary) and
	// TableSize the most entries it holds; NoPurge says a full table refuses
	// new entries instead of purging the oldest; Peers names the peers
	// section it is replicated to ("" for none).
	TableType string
	TableSize int64
	NoPurge   bool
	Peers     string
	// Period is http_req_rate(<period>): the rate is requests over this long,
	// counted in fixed periods aligned to the entry's first request, the
	// previous period weighted by the share of the current one still ahead.
	Period time.Duration
	// Expire is the table's expire: an entry not refreshed by a track-sc rule
	// for this long is removed (and starts from zero). 0: never, until the
	// table is full.
	Expire time.Duration
	// Fetch is the rate as the rule reads it: sc_http_req_rate(0),
	// sc0_http_req_rate, src_http_req_rate(st_src), or a key converted by
	// table_http_req_rate(st_src).
	Fetch string
	// Op and Threshold say when the rule refuses: Op "gt" (rate > Threshold)
	// or "ge" (rate >= Threshold), with a negation or unless undone
	// (unless { … le 10 } is gt 10). Cond is the condition as written.
	Op        string
	Threshold int64
	Cond      string
	// Counted says the request is counted before the rule reads the rate (a
	// track-sc rule for this table and key runs first: an earlier
	// http-request track-sc, or any tcp-request track-sc): the rate read
	// includes the request itself, and a refused request counts, so a
	// client that keeps sending over the limit stays refused. When false the
	// rule looks the rate up without counting (src_http_req_rate with the
	// track-sc rule after it, or none): refused requests do not count.
	Counted bool
	// Track is the track-sc rule that counts this key in the table (zero
	// when none does before the rule); Counter its sticky counter (0 to 2),
	// -1 for a lookup by src_http_req_rate or table_http_req_rate.
	Track   Place
	Counter int
	// Action is what the rule does: deny, tarpit, reject, silent-drop or
	// return. Status is the response's status (deny's deny_status, 403
	// unless set; tarpit's 500; return's status, 200 unless set); 0 for
	// reject and silent-drop, which close the connection without one.
	Action string
	Status int
}

// Passes is the highest rate the rule lets through: Threshold for gt,
// Threshold-1 for ge.
func (l HAProxyLimit) Passes() int64 {
	if l.Op == "ge" {
		return l.Threshold - 1
	}
	return l.Threshold
}

// String is l as a lane's description: "table=st period=10s gt 100 counted
// sc0 expire=30s deny 429".
func (l *HAProxyLimit) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "table=%s period=%s %s %d", l.Table, l.Period, l.Op, l.Threshold)
	if l.Counted {
		b.WriteString(" counted")
	} else {
		b.WriteString(" not-counted")
	}
	if l.Counter >= 0 {
		fmt.Fprintf(&b, " sc%d", l.Counter)
	}
	if l.Expire > 0 {
		fmt.Fprintf(&b, " expire=%s", l.Expire)
	}
	fmt.Fprintf(&b, " %s", l.Action)
	if l.Status > 0 {
		fmt.Fprintf(&b, " %d", l.Status)
	}
	return b.String()
}

// hapLine is one line of a haproxy.cfg, split into words as HAProxy's
// parse_line does.
type hapLine struct {
	place Place
	words []string
}

// hapSection is a section: its keyword, name, place and lines.
type hapSection struct {
	kind, name string
	place      Place
	lines      []hapLine
}

// hapSections are HAProxy 2.6's section keywords.
var hapSections = []string{"global", "defaults", "frontend", "backend", "listen", "peers", "resolvers", "userlist", "mailers", "program", "http-errors", "ring", "cache", "log-forward", "fcgi-app"}

// hapTable is a stick table.
type hapTable struct {
	name    string
	place   Place
	typ     string
	size    int64
	expire  time.Duration
	nopurge bool
	peers   string
	stores  []string // data types, as written: http_req_rate(10s), conn_cur
	period  time.Duration
	hasRate bool
}

// hapACL is one definition of a named ACL (several with one name are ORed).
type hapACL struct {
	name  string
	place Place
	words []string // fetch, flags, operator, values
}

// hapTrack is a track-sc rule.
type hapTrack struct {
	place   Place
	counter int
	key     string
	table   *hapTable
	layer   string // connection, session, content (tcp-request), http
	index   int    // its place among the http-request rules; -1 for tcp-request
	cond    string
}

// hapReader reads a haproxy.cfg.
type hapReader struct {
	cfg      *Config
	sections []*hapSection
	tables   map[string]*hapTable
}

func readHAProxy(name string, data []byte, _ Options) (*Config, error) {
	r := &hapReader{cfg: &Config{File: name}, tables: map[string]*hapTable{}}
	if err := r.split(name, data); err != nil {
		return nil, err
	}
	if err := r.readTables(); err != nil {
		return nil, err
	}
	mode := "tcp"
	for _, s := range r.sections {
		switch s.kind {
		case "defaults":
			mode = sectionMode(s, "tcp")
			for _, l := range s.lines {
				if w := l.words[0]; w == "http-request" || w == "tcp-request" {
					r.warn(l.place, "%s rules in a defaults section apply to the proxies that use it (HAProxy 2.5+, named defaults): not modelled", w)
				}
			}
		case "frontend", "listen", "backend":
			if err := r.proxy(s, sectionMode(s, mode)); err != nil {
				return nil, err
			}
		}
	}
	return r.cfg, nil
}

func (r *hapReader) warn(place Place, format string, args ...any) {
	r.cfg.Warnings = append(r.cfg.Warnings, Warningf(place, format, args...))
}

// sectionMode is a section's mode, or inherited when it sets none.
func sectionMode(s *hapSection, inherited string) string {
	for _, l := range s.lines {
		if l.words[0] == "mode" && len(l.words) > 1 {
			return l.words[1]
		}
	}
	return inherited
}

// split reads the file's lines into sections.
func (r *hapReader) split(name string, data []byte) error {
	var cur *hapSection
	n := 0
	proxies := map[string]*hapSection{}
	for line := range strings.Lines(string(data)) {
		n++
		words, err := hapWords(line)
		place := Place{File: name, Line: n}
		if err != nil {
			return Errorf(place, "%v", err)
		}
		if len(words) == 0 {
			continue
		}
		if slices.Contains(hapSections, words[0]) {
			cur = &hapSection{kind: words[0], place: place}
			if len(words) > 1 {
				cur.name = words[1]
			}
			switch {
			case cur.kind == "frontend" || cur.kind == "backend" || cur.kind == "listen" || cur.kind == "peers":
				if cur.name == "" {
					return Errorf(place, "'%s' needs a name: %s NAME", cur.kind, cur.kind)
				}
				// a frontend and a backend may share a name; a listen is
				// both
				for _, kind := range []string{"frontend", "backend"} {
					if cur.kind != "peers" && (cur.kind == kind || cur.kind == "listen") {
						if s, ok := proxies[kind+" "+cur.name]; ok {
							return Errorf(place, "%s '%s' has the same name as the %s at %s; give it another", cur.kind, cur.name, s.kind, s.place)
						}
						proxies[kind+" "+cur.name] = cur
					}
				}
			}
			r.sections = append(r.sections, cur)
			continue
		}
		if cur == nil {
			return Errorf(place, "unknown keyword '%s' out of section; a configuration starts with a section: global, defaults, frontend NAME, backend NAME or listen NAME", words[0])
		}
		cur.lines = append(cur.lines, hapLine{place: place, words: words})
	}
	return nil
}

// hapWords splits a line as parse_line does (src/tools.c): words separated by
// spaces, "…" and '…' quoting (quotes may join parts of a word), backslash
// escapes outside single quotes, and # outside quotes starting a comment.
// Environment variables are left as written.
func hapWords(line string) ([]string, error) {
	var (
		words          []string
		cur            strings.Builder
		inWord         bool
		squote, dquote bool
	)
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '#' && !squote && !dquote:
			flush()
			return words, nil
		case c == '"' && !squote:
			dquote = !dquote
			inWord = true
		case c == '\'' && !dquote:
			squote = !squote
			inWord = true
		case c == '\\' && !squote && i+1 < len(line):
			i++
			inWord = true
			switch e := line[i]; e {
			case 'r':
				cur.WriteByte('\r')
			case 'n':
				cur.WriteByte('\n')
			case 't':
				cur.WriteByte('\t')
			case 'x':
				if i+2 < len(line) {
					if v, err := strconv.ParseUint(line[i+1:i+3], 16, 8); err == nil {
						cur.WriteByte(byte(v))
						i += 2
						continue
					}
				}
				return nil, fmt.Errorf("truncated or invalid hexadecimal sequence after \\x")
			default:
				cur.WriteByte(e)
			}
		case (c == ' ' || c == '\t' || c == '\n' || c == '\r') && !squote && !dquote:
			flush()
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if squote || dquote {
		return nil, fmt.Errorf("unmatched quote; close it on the same line")
	}
	flush()
	return words, nil
}

// readTables reads every stick table: a proxy's (named after the proxy) and a
// peers section's (peers/name).
func (r *hapReader) readTables() error {
	for _, s := range r.sections {
		for _, l := range s.lines {
			var t *hapTable
			var err error
			switch {
			case l.words[0] == "stick-table" && (s.kind == "frontend" || s.kind == "backend" || s.kind == "listen"):
				if prev, ok := r.tables[s.name]; ok {
					return Errorf(l.place, "only one stick-table per proxy; %s already has one at %s (declare another in a backend of its own)", s.name, prev.place)
				}
				t, err = parseStickTable(s.name, l, 1)
			case l.words[0] == "stick-table" && s.kind == "defaults":
				return Errorf(l.place, "'stick-table' is not allowed in a defaults section; declare it in a backend")
			case l.words[0] == "table" && s.kind == "peers" && len(l.words) > 1:
				t, err = parseStickTable(s.name+"/"+l.words[1], l, 2)
				if err == nil {
					t.peers = s.name
					r.warn(l.place, "table %s is replicated to the peers of section %s: ratelab models one HAProxy, whose table holds only its own requests", t.name, s.name)
				}
			default:
				continue
			}
			if err != nil {
				return err
			}
			r.tables[t.name] = t
		}
	}
	return nil
}

// hapDataTypes are the data types a stick table can store (HAProxy 2.6).
var hapDataTypes = []string{"server_id", "server_key", "server_name", "gpc", "gpc_rate", "gpc0", "gpc0_rate", "gpc1", "gpc1_rate", "gpt", "gpt0",
	"conn_cnt", "conn_cur", "conn_rate", "sess_cnt", "sess_rate", "http_req_cnt", "http_req_rate", "http_err_cnt", "http_err_rate",
	"http_fail_cnt", "http_fail_rate", "bytes_in_cnt", "bytes_in_rate", "bytes_out_cnt", "bytes_out_rate"}

// parseStickTable reads "stick-table type T [len N] size S [expire E]
// [nopurge] [peers P] [srvkey K] [store D,…]…" from word from on.
func parseStickTable(name string, l hapLine, from int) (*hapTable, error) {
	t := &hapTable{name: name, place: l.place}
	w := l.words
	need := func(i int) (string, error) {
		if i+1 >= len(w) {
			return "", Errorf(l.place, "'%s' expects an argument", w[i])
		}
		return w[i+1], nil
	}
	sawSize := false
	for i := from; i < len(w); i++ {
		switch w[i] {
		case "type":
			v, err := need(i)
			if err != nil {
				return nil, err
			}
			if !slices.Contains([]string{"ip", "ipv6", "integer", "string", "binary"}, v) {
				return nil, Errorf(l.place, "stick-table: unknown type '%s'; use ip, ipv6, integer, string or binary", v)
			}
			t.typ = v
			i++
			if i+2 < len(w) && w[i+1] == "len" {
				i += 2
			}
		case "size":
			v, err := need(i)
			if err != nil {
				return nil, err
			}
			n, ok := hapSize(v)
			if !ok || n <= 0 {
				return nil, Errorf(l.place, "stick-table: invalid size '%s'; a number of entries, with k, m or g for 2^10, 2^20, 2^30", v)
			}
			t.size, sawSize = n, true
			i++
		case "expire":
			v, err := need(i)
			if err != nil {
				return nil, err
			}
			d, ok := hapTime(v)
			if !ok {
				return nil, Errorf(l.place, "stick-table: invalid expire '%s'; a time like 30s, 10m or 500 (milliseconds)", v)
			}
			t.expire = d
			i++
		case "nopurge":
			t.nopurge = true
		case "peers", "srvkey", "write-to":
			if _, err := need(i); err != nil {
				return nil, err
			}
			if w[i] == "peers" {
				t.peers = w[i+1]
			}
			i++
		case "store":
			v, err := need(i)
			if err != nil {
				return nil, err
			}
			_, types := splitConverters("x," + v)
			for _, d := range types {
				dname, args := fetchArgs(d)
				if !slices.Contains(hapDataTypes, dname) {
					return nil, Errorf(l.place, "stick-table: unknown data type '%s' in store", dname)
				}
				if dname == "http_req_rate" {
					if len(args) != 1 {
						return nil, Errorf(l.place, "stick-table: http_req_rate needs its period: store http_req_rate(10s)")
					}
					p, ok := hapTime(args[0])
					if !ok || p <= 0 {
						return nil, Errorf(l.place, "stick-table: invalid period '%s' in http_req_rate; a time like 10s", args[0])
					}
					t.period, t.hasRate = p, true
				}
				t.stores = append(t.stores, d)
			}
			i++
		default:
			return nil, Errorf(l.place, "stick-table: unknown argument '%s'; it takes type, size, expire, nopurge, peers, srvkey, store", w[i])
		}
	}
	switch {
	case t.typ == "":
		return nil, Errorf(l.place, "stick-table: missing type; write stick-table type ip size 100k expire 30s store http_req_rate(10s)")
	case !sawSize:
		return nil, Errorf(l.place, "stick-table: missing size; write size 100k (entries)")
	}
	return t, nil
}

// hapTime reads a time as HAProxy's parse_time_err does: a number with us, ms,
// s, m, h or d; milliseconds without a unit.
func hapTime(s string) (time.Duration, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 12 {
		return 0, false
	}
	n, _ := strconv.ParseInt(s[:i], 10, 64)
	unit := map[string]time.Duration{"": time.Millisecond, "us": time.Microsecond, "ms": time.Millisecond, "s": time.Second,
		"m": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	u, ok := unit[s[i:]]
	if !ok || n > int64(49*24*time.Hour/u) {
		return 0, false
	}
	return time.Duration(n) * u, true
}

// hapSize reads a size with k, m or g for 2^10, 2^20 or 2^30.
func hapSize(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	scale := int64(1)
	switch s[len(s)-1] {
	case 'k', 'K':
		scale, s = 1<<10, s[:len(s)-1]
	case 'm', 'M':
		scale, s = 1<<20, s[:len(s)-1]
	case 'g', 'G':
		scale, s = 1<<30, s[:len(s)-1]
	}
	n, ok := ParseDigits(s)
	if !ok || n > (1<<40)/scale {
		return 0, false
	}
	return n * scale, true
}

// hapRule is a rule of a proxy: http-request or tcp-request.
type hapRule struct {
	place  Place
	words  []string
	layer  string // http, connection, session, content
	action string
	args   []string // the action's arguments, before if/unless
	unless bool
	cond   []string // the condition's words
	index  int      // among the http-request rules; -1 for tcp-request
}

// parseRule splits a rule into its action, arguments and condition.
func parseRule(l hapLine) (hapRule, bool) {
	w := l.words
	r := hapRule{place: l.place, words: w, index: -1}
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
func (r hapRule) condText() string {
	if r.cond == nil {
		return ""
	}
	kw := "if"
	if r.unless {
		kw = "unless"
	}
	return kw + " " + strings.Join(r.cond, " ")
}

var (
	scFetch    = regexp.MustCompile(`^sc_http_req_rate\((\d+)(?:,\s*([^)]+))?\)$`)
	scNFetch   = regexp.MustCompile(`^sc(\d)_http_req_rate(?:\(([^)]*)\))?$`)
	srcFetch   = regexp.MustCompile(`^src_http_req_rate(?:\(([^)]*)\))?$`)
	tableConv  = regexp.MustCompile(`^table_http_req_rate\(([^)]+)\)$`)
	otherCount = regexp.MustCompile(`^(sc\d?_|src_|table_)(\w+)`)
)

// proxy reads a frontend, listen or backend section into a lane.
func (r *hapReader) proxy(s *hapSection, mode string) error {
	acls := map[string][]hapACL{}
	var rules []hapRule
	nHTTP := 0
	for _, l := range s.lines {
		switch l.words[0] {
		case "acl":
			if len(l.words) < 3 {
				return Errorf(l.place, "'acl' needs a name and a criterion: acl NAME FETCH [OPERATOR] VALUE…")
			}
			acls[l.words[1]] = append(acls[l.words[1]], hapACL{name: l.words[1], place: l.place, words: l.words[2:]})
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
	var tracks []hapTrack
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
	lane := Lane{Name: s.kind + " " + s.name, Place: s.place}
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
func (r *hapReader) track(s *hapSection, rule hapRule) (hapTrack, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(rule.action, "track-sc"))
	if err != nil || n < 0 {
		return hapTrack{}, Errorf(rule.place, "Wrong track-sc number '%s'; use track-sc0, track-sc1 or track-sc2", rule.action)
	}
	if n > 2 {
		return hapTrack{}, Errorf(rule.place, "%d track-sc number exceeding 2 (MAX_SESS_STKCTR-1) value; use track-sc0, track-sc1 or track-sc2", n)
	}
	t := hapTrack{place: rule.place, counter: n, layer: rule.layer, index: rule.index, cond: rule.condText()}
	args := rule.args
	if len(args) == 0 {
		return t, Errorf(rule.place, "'%s' expects a key: %s src [table TABLE]", rule.action, rule.action)
	}
	t.key = args[0]
	tableName := s.name
	switch {
	case len(args) == 3 && args[1] == "table":
		tableName = args[2]
	case len(args) != 1:
		return t, Errorf(rule.place, "'%s %s' takes [table TABLE] after its key (got %q)", rule.action, t.key, strings.Join(args[1:], " "))
	}
	tbl, ok := r.tables[tableName]
	if !ok {
		if tableName == s.name {
			return t, Errorf(rule.place, "unable to find table '%s' referenced by %s: %s %s has no stick-table; add one, or name one with table TABLE", tableName, rule.action, s.kind, s.name)
		}
		return t, Errorf(rule.place, "unable to find table '%s' referenced by %s%s", tableName, rule.action, r.nearTable(tableName))
	}
	t.table = tbl
	return t, nil
}

// nearTable is a "did you mean" for a table's name.
func (r *hapReader) nearTable(name string) string {
	var names []string
	for n := range r.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	if near := suggest.Nearest(name, names); near != "" {
		return "; did you mean " + near + "?"
	}
	if len(names) > 0 {
		return "; the tables are " + strings.Join(names, ", ")
	}
	return "; no section declares a stick-table"
}

// hapDenies are the actions that refuse a request, and their default status.
var hapDenies = map[string]int{"deny": 403, "tarpit": 500, "reject": 0, "silent-drop": 0, "return": 200}

// hapErrCodes are the statuses HAProxy 2.6 has a default error page for
// (src/http.c: http_err_codes): deny and tarpit take only these unless the
// rule gives its own reply.
var hapErrCodes = []int{200, 400, 401, 403, 404, 405, 407, 408, 410, 413, 421, 422, 425, 429, 500, 501, 502, 503, 504}

// rule reads a rule other than track-sc: a limit when it refuses requests on
// http_req_rate, warnings for what else it reads or does.
func (r *hapReader) rule(s *hapSection, rule hapRule, acls map[string][]hapACL, tracks []hapTrack, mode string) (*Limit, error) {
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
	status, isDeny := hapDenies[rule.action]
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
			return nil, Errorf(rule.place, "Unexpected status code '%s' in http-request %s; use a status from 200 to 599 (429 for too many requests)", v, rule.action)
		}
		if (rule.action == "deny" || rule.action == "tarpit") && !slices.Contains(hapErrCodes, n) && !hasReply(rule.args) {
			return nil, Errorf(rule.place, "status code '%d' not handled by default with 'default-errorfiles' argument; use one of %s, or give the reply (string, file, errorfile)", n, joinInts(hapErrCodes))
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
	lim := &HAProxyLimit{Fetch: a.fetch, Op: op, Threshold: threshold, Cond: rule.condText(), Action: rule.action, Status: status, Counter: -1}
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
	k := haproxyKey(key)
	switch {
	case !k.Mapped:
		r.warn(rule.place, "key %s — %s; the lane keys requests by the trace's own key", key, k.Note)
	case k.Note != "":
		r.warn(rule.place, "key %s — %s", key, k.Note)
	}
	return &Limit{Place: rule.place, Key: k, Params: lim}, nil
}

// rateSource finds the table and key a rate ACL reads, and whether the
// request is counted before: it fills lim's Counter, Track and Counted.
func (r *hapReader) rateSource(s *hapSection, rule hapRule, a *hapCondACL, tracks []hapTrack, lim *HAProxyLimit) (string, *hapTable, error) {
	rf := a.rate
	if rf.counter >= 0 {
		if rf.counter > 2 {
			return "", nil, Errorf(rule.place, "%s: sticky counter %d does not exist; HAProxy 2.6 has sc0, sc1 and sc2", a.fetch, rf.counter)
		}
		lim.Counter = rf.counter
		var tr *hapTrack
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
				return "", nil, Errorf(rule.place, "unable to find table '%s' referenced in %s%s", rf.table, a.fetch, r.nearTable(rf.table))
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
			return "", nil, Errorf(rule.place, "%s has no table: %s %s has no stick-table; name one, src_http_req_rate(TABLE)", a.fetch, s.kind, s.name)
		}
		return "", nil, Errorf(rule.place, "unable to find table '%s' referenced in %s%s", name, a.fetch, r.nearTable(name))
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
	if lim.Track == (Place{}) {
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

// detectHAProxy counts HAProxy's sections (a section keyword at the start of
// a line, three each) and its proxies' keywords, on lines that hold no braces
// or semicolons at their ends (nginx's); three, a section, are enough.
func detectHAProxy(data []byte) Sign {
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
	return Sign{Count: n, Enough: n >= 3}
}

// haproxyLanes maps a proxy's rules to a lane each (a proxy's rules each count
// their own table), named after the rule's line when it has several.
func haproxyLanes(l Lane, m *Mapping) []RatelabLane {
	var lanes []RatelabLane
	for _, lim := range l.Limits {
		r, ok := haproxyRatelab(lim, m)
		if !ok {
			continue
		}
		name := l.Name
		if len(l.Limits) > 1 {
			name = fmt.Sprintf("%s line %d", l.Name, lim.Place.Line)
		}
		lanes = append(lanes, RatelabLane{Name: name, Place: lim.Place, Limits: []RatelabLimit{r}})
	}
	return lanes
}

// haproxyRatelab is one rule as the haproxy lane runs it: the table's period;
// a limit the lane compares as the rule does (counted before the deny: it
// passes while the rate read, with the request, is at most Limit, so gt N is
// N and ge N is N−1; looked up before the track: it refuses when the rate
// read, without the request, is at least Limit, so ge N is N and gt N is
// N+1); the table's expire; deny_status when it is one the lane sends. False,
// with a note, for a rule that refuses every request.
func haproxyRatelab(m Limit, mp *Mapping) (RatelabLimit, bool) {
	h := m.Params.(*HAProxyLimit)
	o := algorithms.Options{TrackSC: algorithms.TrackAfterDeny, Expire: h.Expire}
	limit := h.Threshold
	switch {
	case h.Counted && h.Op == "ge":
		limit--
	case !h.Counted && h.Op == "gt":
		limit++
	}
	if h.Counted {
		o.TrackSC = algorithms.TrackBeforeDeny
	}
	if limit <= 0 {
		mp.Note(m.Place, fmt.Sprintf("%s refuses every request (its rate is always at least %d): no lane", h.Cond, h.Threshold))
		return RatelabLimit{}, false
	}
	var note string
	if h.Status != 403 && h.Status != 0 {
		o.DenyStatus = h.Status
		if err := o.Check(algorithms.HAProxyName); err != nil {
			o.DenyStatus = 0
			note = fmt.Sprintf("the lane answers a refusal with 403 (the status %d is not one http-request deny sends)", h.Status)
		}
	}
	key, keyNote := mp.Template(m.Key, h.Table)
	if keyNote != "" {
		note = strings.TrimPrefix(note+"; "+keyNote, "; ")
	}
	mp.Note(m.Place, note)
	return RatelabLimit{Name: h.Table, Place: m.Place, Algorithm: algorithms.HAProxyName, Key: key, Options: o,
		Policy: algorithms.Policy{Limit: limit, Period: h.Period}}, true
}

// haproxyKeyWarnings say, for each table that holds fewer entries than keys,
// what HAProxy does when it is full.
func haproxyKeyWarnings(c *Config, keys int64, _ int) []Warning {
	var out []Warning
	seen := map[Place]bool{}
	for _, l := range c.Lanes {
		for _, m := range l.Limits {
			h := m.Params.(*HAProxyLimit)
			if seen[h.TablePlace] {
				continue
			}
			seen[h.TablePlace] = true
			if keys <= h.TableSize {
				continue
			}
			what := "HAProxy purges the oldest entries to store new ones, which start again from zero"
			if h.NoPurge {
				what = "with nopurge HAProxy stores no new key: requests of keys it cannot store are not tracked, so this rule never refuses them"
			}
			out = append(out, Warningf(h.TablePlace,
				"table %s holds %d entries and the trace has %d keys: when it is full, %s; ratelab keeps every key: not modelled",
				h.Table, h.TableSize, keys, what))
		}
	}
	return out
}
