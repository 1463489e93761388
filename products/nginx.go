package products

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tufanbarisyildirim/gonginx/parser"

	"ratelab/algorithms"
	"ratelab/internal/format"
	"ratelab/internal/suggest"
	"ratelab/tune"
)

// Nginx is nginx's ngx_http_limit_req_module, read from an nginx.conf.
var Nginx = &Info{Name: algorithms.NginxName, File: "an nginx.conf with its includes", Shows: "directives ending in ; and blocks in { }",
	Limiting: "limit_req in a server or location", Detect: detectNginx, Read: readNginx, ByteOrderMark: nginxMarkRefused,
	Lanes: nginxLanes, KeyWarnings: nginxKeyWarnings,
	Target: &Target{Variants: []tune.Variant{{Nodelay: true}, {}, {DelayHalf: true}},
		Periods: []time.Duration{time.Second, time.Minute}, Writable: "rate=Nr/s or rate=Nr/m (1s, 1m)",
		Period: OneOf(time.Second, time.Minute), MaxLimit: math.MaxInt64, MaxBurst: math.MaxInt64, Delays: true, Write: writeNginx}}

// nginxMarkRefused is what nginx says of a file that begins with a byte-order
// mark: it reads the mark as part of the first directive's name
// (src/core/ngx_conf_file.c has no case for it; nginx 1.22 -t says unknown
// directive "\ufeffevents").
const nginxMarkRefused = "unknown directive, the mark taken as part of the first directive's name"

// NginxLimit is one limit_req directive with its zone, in nginx's terms, as
// ngx_http_limit_req_module.c (nginx 1.22; ngx_http_limit_req_zone,
// ngx_http_limit_req, ngx_http_limit_req_merge_conf) reads them:
//
//	limit_req_zone $binary_remote_addr zone=one:10m rate=30r/m;
//	limit_req zone=one burst=5 delay=2;   # or nodelay
//	limit_req_status 429; limit_req_dry_run on; limit_req_log_level warn;
type NginxLimit struct {
	// Zone is the zone's name, ZonePlace its limit_req_zone line, ZoneSize
	// its shared memory in bytes.
	Zone      string
	ZonePlace Place
	ZoneSize  int64
	// Rate requests per Per: rate=Nr/s (Per a second) or rate=Nr/m (a
	// minute). nginx keeps Rate*1000/seconds(Per) milli-requests a second,
	// rounded down (RateMilli): 1r/m drains one request in 62.5 s.
	Rate int64
	Per  time.Duration
	// Burst is burst= (0 when not set): how many requests beyond the rate a
	// key may have in excess before it is refused.
	Burst int64
	// NoDelay is nodelay: no request within the burst waits. Delay is delay=N
	// (0 when not set): the first N excess requests pass at once, the rest of
	// the burst waits. Without either, every excess request waits. The last of
	// nodelay and delay= written wins, as nginx reads them.
	NoDelay bool
	Delay   int64
	// DryRun is limit_req_dry_run on: requests are counted as usual but none
	// is refused or delayed.
	DryRun bool
	// Status is limit_req_status (503 unless set): the refusal's status.
	Status int
	// LogLevel is limit_req_log_level (error unless set); delays are logged
	// one level lower. Informational: it decides nothing.
	LogLevel string
	// Sync is the zone's "sync" (NGINX Plus): the zone's state is shared
	// across a cluster. ratelab models one nginx; a Warning says so.
	Sync bool
}

// RateMilli is the rate as nginx keeps it: milli-requests a second, rounded
// down (ctx->rate = rate * 1000 / scale).
func (l NginxLimit) RateMilli() int64 {
	return l.Rate * 1000 / int64(l.Per/time.Second)
}

// RateString is the rate as the file writes it: "30r/m".
func (l NginxLimit) RateString() string {
	if l.Per == time.Minute {
		return fmt.Sprintf("%dr/m", l.Rate)
	}
	return fmt.Sprintf("%dr/s", l.Rate)
}

// String is l as a lane's description: "zone=one rate=30r/m burst=5 delay=2
// status=429".
func (l *NginxLimit) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "zone=%s rate=%s", l.Zone, l.RateString())
	if l.Burst > 0 {
		fmt.Fprintf(&b, " burst=%d", l.Burst)
	}
	if l.NoDelay {
		b.WriteString(" nodelay")
	}
	if l.Delay > 0 {
		fmt.Fprintf(&b, " delay=%d", l.Delay)
	}
	if l.DryRun {
		b.WriteString(" dry_run")
	}
	fmt.Fprintf(&b, " status=%d", l.Status)
	if l.LogLevel != "error" {
		fmt.Fprintf(&b, " log=%s", l.LogLevel)
	}
	if l.Sync {
		b.WriteString(" sync")
	}
	return b.String()
}

// ZoneCapacity estimates how many keys of keyBytes bytes the zone holds: each
// key takes a node of 80 bytes plus the key (ngx_rbtree_node_t up to color and
// ngx_http_limit_req_node_t up to data, on a 64-bit build), rounded up to the
// slab allocator's power of two, on pages of 4 KiB that each cost a 24-byte
// descriptor. That gives about 8,000 states in a megabyte for
// $binary_remote_addr, as the module's documentation says ("about 8 thousand
// 128-byte states"). When more keys than this are active at once, nginx frees
// the least recently used key to make room (ngx_http_limit_req_expire(ctx,
// 0)): the evicted key starts again from no excess, so it is let through as a
// new one; if even that fails the request is refused with the limit's status.
func (l NginxLimit) ZoneCapacity(keyBytes int) int64 {
	const page, pageDesc = 4096, 24
	node := int64(80 + max(keyBytes, 1))
	chunk := int64(8)
	for chunk < node {
		chunk *= 2
	}
	pages := (l.ZoneSize - 2*page) / (page + pageDesc)
	if chunk > page/2 {
		return max(pages*page/chunk, 0) // a key this long takes whole pages
	}
	return max(pages*(page/chunk), 0)
}

// NginxZoneMinSize is the smallest zone nginx accepts: eight pages of 4 KiB.
const NginxZoneMinSize = 8 * 4096

// ngxZone is one limit_req_zone.
type ngxZone struct {
	name  string
	place Place
	key   string
	size  int64
	rate  int64
	per   time.Duration
	sync  bool
	used  bool
}

// ngxReq is one limit_req directive.
type ngxReq struct {
	zone    *ngxZone
	place   Place
	burst   int64
	delay   int64
	nodelay bool
}

type ngxKind int

const (
	ngxHTTP ngxKind = iota
	ngxServer
	ngxLocation
)

// ngxCtx is a context that may hold limit_req directives: http, a server, a
// location (nested ones too).
type ngxCtx struct {
	kind   ngxKind
	place  Place
	parent *ngxCtx
	// depth, head and tail make its name (name): how many words it has
	// ("server example.com" one, each location nested in it one more), the
	// first nameHead of them (shared with its parent once it has them all)
	// and the last nameTail after those, so that a context costs the same
	// however deep it is
	depth      int
	head, tail []string

	limits   []ngxReq // its own limit_req, in order
	status   int      // 0: not set here
	dryRun   *bool
	logLevel string // "": not set here

	// what it does that decides whether its limits run: return, rewrite, if
	// (with return or rewrite inside), internal, a named location, Lua
	rewrites []*ngxStmt
	internal *ngxStmt
	named    bool
	lua      []*ngxStmt
	// catchAll says a location / takes every request a server does not send
	// elsewhere, so the server's own configuration handles none.
	catchAll bool

	// the effective configuration, after inheritance
	effLimits []ngxReq
	effSource *ngxCtx
	effStatus int
	effDryRun bool
	effLevel  string
}

// A context's name is its server's and its locations', outermost first:
// "server example.com location /api/ location /api/v2/". One nested deeper
// than nameHead+nameTail words, which no real configuration is, keeps the
// first nameHead and the last nameTail and says how many it leaves out, and a
// word longer than nameWord is cut: a name's length is bounded, so that the
// names of N nested locations cost O(N), not O(N²) (each had copied all its
// parents': 8,000 nested locations took 440–675 MB).
const (
	nameHead = 4
	nameTail = 4
	nameWord = 256
)

// newCtx is a context of kind, its own word (its server's name, "location
// /api/"), placed at place in parent. A server's name does not start with
// http's.
func newCtx(kind ngxKind, word string, place Place, parent *ngxCtx) *ngxCtx {
	if len(word) > nameWord {
		cut := nameWord
		for cut > 0 && !utf8.RuneStart(word[cut]) {
			cut--
		}
		word = word[:cut] + "…"
	}
	c := &ngxCtx{kind: kind, place: place, parent: parent, depth: 1, head: []string{word}}
	if parent == nil || parent.kind == ngxHTTP {
		return c
	}
	c.depth = parent.depth + 1
	if len(parent.head) < nameHead {
		c.head = append(slices.Clip(parent.head), word)
		return c
	}
	c.head = parent.head
	c.tail = append(slices.Clone(parent.tail[max(0, len(parent.tail)-(nameTail-1)):]), word)
	return c
}

// name is the context's name (see newCtx), made when a lane or a note needs
// it.
func (c *ngxCtx) name() string {
	words := slices.Clone(c.head)
	if left := c.depth - len(c.head) - len(c.tail); left > 0 {
		words = append(words, fmt.Sprintf("… %d more …", left))
	}
	return strings.Join(append(words, c.tail...), " ")
}

// ngxVar is a variable a directive sets (map, geo, split_clients, set, …).
type ngxVar struct {
	by    string // the directive
	place Place
	// values are a map's values, when it is a map
	values []string
}

// ngxReader turns an nginx configuration's directives into a Config.
type ngxReader struct {
	cfg   *Config
	zones map[string]*ngxZone
	order []*ngxZone
	vars  map[string]ngxVar
	ctxs  []*ngxCtx // in the file's order, outer before inner
	// subrequests are auth_request and mirror directives
	subrequests []*ngxStmt
	// seq is each directive's place in reading order, includes spliced in
	// where they are included: warnings are listed in that order
	seq map[Place]int
}

// limitReqDirectives are the module's directives, for typos.
var limitReqDirectives = []string{"limit_req", "limit_req_zone", "limit_req_status", "limit_req_dry_run", "limit_req_log_level"}

// opaqueBlocks hold entries, not directives: their contents are not read.
var opaqueBlocks = map[string]bool{"map": true, "geo": true, "split_clients": true, "types": true, "charset_map": true, "match": true}

func readNginx(name string, data []byte, o Options) (*Config, error) {
	dir := o.Dir
	if dir == "" {
		dir = filepath.Dir(name)
	}
	f := &ngxFiles{o: o, dir: dir}
	stmts, err := f.parseFile(name, data, 0)
	if err != nil {
		return nil, err
	}
	r := &ngxReader{cfg: &Config{File: name}, zones: map[string]*ngxZone{}, vars: map[string]ngxVar{}, seq: map[Place]int{}}
	var number func([]*ngxStmt)
	number = func(list []*ngxStmt) {
		for _, s := range list {
			if _, ok := r.seq[s.place]; !ok {
				r.seq[s.place] = len(r.seq)
			}
			number(s.block)
		}
	}
	number(stmts)
	if err := r.read(stmts); err != nil {
		return nil, err
	}
	var marked []Warning
	for _, name := range f.marked {
		w := ByteOrderMarkWarning(name, algorithms.NginxName, nginxMarkRefused)
		marked = append(marked, w)
	}
	r.cfg.Warnings = append(marked, r.cfg.Warnings...)
	return r.cfg, nil
}

func (r *ngxReader) warn(place Place, format string, args ...any) {
	r.cfg.Warnings = append(r.cfg.Warnings, Warningf(place, format, args...))
}

// read reads the main context: the http block (one at most), and warnings for
// what limits elsewhere (stream's limit_conn).
func (r *ngxReader) read(stmts []*ngxStmt) error {
	var http *ngxStmt
	for _, s := range stmts {
		if err := r.checkName(s); err != nil {
			return err
		}
		switch {
		case s.name == "http":
			if !s.isBlock {
				return Errorf(s.place, "\"http\" directive needs a block: http { … }")
			}
			if http != nil {
				return Errorf(s.place, "\"http\" directive is duplicate (the first is at %s); put every server in one http block", http.place)
			}
			http = s
		case isLimitReq(s.name):
			return Errorf(s.place, "\"%s\" directive is not allowed here; it goes in http, server or location", s.name)
		case s.name == "server" || s.name == "location":
			return Errorf(s.place, "\"%s\" directive is not allowed here, outside http: a file of server blocks (sites-enabled/…, conf.d/…) is included into http by the main nginx.conf; read that one (its http block declares the zones)", s.name)
		case s.name == "stream" && s.isBlock:
			r.walkStream(s.block)
		}
	}
	if http == nil {
		return nil
	}
	// zones and variables first: a limit_req may name a zone declared after it
	if err := r.collect(http.block, true); err != nil {
		return err
	}
	root := newCtx(ngxHTTP, "http", http.place, nil)
	if err := r.context(root, http.block); err != nil {
		return err
	}
	r.resolve()
	return nil
}

// walkStream warns about stream's limit_conn: connections, not requests.
func (r *ngxReader) walkStream(list []*ngxStmt) {
	for _, s := range list {
		if s.name == "limit_conn" {
			r.warn(s.place, "%s limits a stream (TCP/UDP) server's concurrent connections per key; ratelab models HTTP request rates: not modelled", s)
		}
		if s.isBlock && !opaqueBlocks[s.name] {
			r.walkStream(s.block)
		}
	}
}

func isLimitReq(name string) bool { return slices.Contains(limitReqDirectives, name) }

// checkName refuses a directive nginx does not know whose name is close to a
// limit_req directive's: nginx -t says "unknown directive", and a misspelt
// limit is one that silently never applies.
func (r *ngxReader) checkName(s *ngxStmt) error {
	if _, ok := parser.ValidDirectives[s.name]; ok {
		return nil
	}
	if near := suggest.Nearest(s.name, limitReqDirectives); near != "" || strings.HasPrefix(s.name, "limit_req") {
		fix := "the module's directives are " + strings.Join(limitReqDirectives, ", ")
		if near != "" {
			fix = "did you mean " + near + "?"
		}
		return Errorf(s.place, "unknown directive %q; %s", s.name, fix)
	}
	return nil
}

// collect reads the zones (limit_req_zone, in http only) and the variables the
// configuration sets, at any depth of http.
func (r *ngxReader) collect(list []*ngxStmt, inHTTP bool) error {
	for _, s := range list {
		if err := r.checkName(s); err != nil {
			return err
		}
		switch s.name {
		case "limit_req_zone":
			if !inHTTP {
				return Errorf(s.place, "\"limit_req_zone\" directive is not allowed here; it goes in the http block")
			}
			if err := r.zone(s); err != nil {
				return err
			}
		case "map", "geo", "split_clients", "perl_set", "js_set", "set", "set_by_lua", "set_by_lua_block", "set_by_lua_file":
			r.variable(s)
		}
		if s.isBlock && !opaqueBlocks[s.name] {
			if err := r.collect(s.block, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// variable records the variable a directive sets, for a zone key that uses it.
func (r *ngxReader) variable(s *ngxStmt) {
	v := ngxVar{by: s.name, place: s.place}
	var name string
	switch s.name {
	case "map":
		if len(s.args) == 2 {
			name = s.args[1]
			for _, e := range s.block {
				if len(e.args) > 0 {
					v.values = append(v.values, e.args[len(e.args)-1])
				}
			}
		}
	case "geo":
		if len(s.args) > 0 {
			name = s.args[len(s.args)-1]
		}
	case "split_clients":
		if len(s.args) == 2 {
			name = s.args[1]
		}
	default: // set $x …, perl_set $x …, js_set $x …, set_by_lua $x …
		if len(s.args) > 0 {
			name = s.args[0]
		}
	}
	if strings.HasPrefix(name, "$") {
		if _, seen := r.vars[name[1:]]; !seen {
			r.vars[name[1:]] = v
		}
	}
}

// zone reads limit_req_zone KEY zone=NAME:SIZE rate=Nr/s|Nr/m [sync].
func (r *ngxReader) zone(s *ngxStmt) error {
	z := &ngxZone{place: s.place, rate: 1, per: time.Second}
	args := s.args
	if n := len(args); n > 0 && args[n-1] == "sync" {
		z.sync = true
		args = args[:n-1]
	}
	if len(args) != 3 {
		return Errorf(s.place, "invalid number of arguments in \"limit_req_zone\" directive; write limit_req_zone KEY zone=NAME:SIZE rate=RATE; (rate=10r/s or 30r/m)")
	}
	z.key = args[0]
	sawZone := false
	for _, a := range args[1:] {
		switch {
		case strings.HasPrefix(a, "zone="):
			v := a[len("zone="):]
			colon := strings.IndexByte(v, ':')
			if colon < 0 {
				return Errorf(s.place, "invalid zone size %q; write zone=NAME:SIZE, like zone=one:10m", a)
			}
			size, ok := ngxParseSize(v[colon+1:])
			if !ok {
				return Errorf(s.place, "invalid zone size %q; a size is a number of bytes, or of k or m (10m)", a)
			}
			if size < NginxZoneMinSize {
				return Errorf(s.place, "zone %q is too small; nginx needs at least %d bytes (32k)", a, NginxZoneMinSize)
			}
			z.name, z.size, sawZone = v[:colon], size, true
		case strings.HasPrefix(a, "rate="):
			v := a[len("rate="):]
			per := time.Second
			switch {
			case strings.HasSuffix(v, "r/s"):
				v = v[:len(v)-3]
			case strings.HasSuffix(v, "r/m"):
				v, per = v[:len(v)-3], time.Minute
			}
			n, ok := ParseDigits(v)
			if !ok || n <= 0 {
				return Errorf(s.place, "invalid rate %q; a rate is a whole number of requests a second or a minute, like rate=10r/s or rate=30r/m (for less than 1r/s write r/m)", a)
			}
			z.rate, z.per = n, per
		default:
			return Errorf(s.place, "invalid parameter %q in limit_req_zone; it takes KEY zone=NAME:SIZE rate=RATE", a)
		}
	}
	if !sawZone || z.name == "" {
		return Errorf(s.place, "\"limit_req_zone\" must have \"zone\" parameter, like zone=one:10m")
	}
	if prev, ok := r.zones[z.name]; ok {
		return Errorf(s.place, "limit_req_zone %q is already bound to key %q at %s; give this zone another name", z.name, prev.key, prev.place)
	}
	r.zones[z.name] = z
	r.order = append(r.order, z)
	return nil
}

// context reads the directives of a context (http, server, location) into c,
// and its inner contexts.
func (r *ngxReader) context(c *ngxCtx, list []*ngxStmt) error {
	r.ctxs = append(r.ctxs, c)
	servers := 0
	for _, s := range list {
		if err := r.checkName(s); err != nil {
			return err
		}
		switch s.name {
		case "limit_req":
			if err := r.limitReq(c, s); err != nil {
				return err
			}
		case "limit_req_status":
			if c.status != 0 {
				return Errorf(s.place, "\"limit_req_status\" directive is duplicate; keep one per context")
			}
			if len(s.args) != 1 {
				return Errorf(s.place, "invalid number of arguments in \"limit_req_status\" directive; write limit_req_status 429;")
			}
			n, ok := ParseDigits(s.args[0])
			switch {
			case !ok:
				return Errorf(s.place, "\"limit_req_status\" directive invalid number %q; write a status from 400 to 599", s.args[0])
			case n < 400 || n > 599:
				return Errorf(s.place, "\"limit_req_status\" value must be between 400 and 599 (got %d)", n)
			}
			c.status = int(n)
		case "limit_req_dry_run":
			if c.dryRun != nil {
				return Errorf(s.place, "\"limit_req_dry_run\" directive is duplicate; keep one per context")
			}
			if len(s.args) != 1 || (s.args[0] != "on" && s.args[0] != "off") {
				return Errorf(s.place, "invalid value in \"limit_req_dry_run\" directive, it must be \"on\" or \"off\"")
			}
			on := s.args[0] == "on"
			c.dryRun = &on
		case "limit_req_log_level":
			if c.logLevel != "" {
				return Errorf(s.place, "\"limit_req_log_level\" directive is duplicate; keep one per context")
			}
			if len(s.args) != 1 || !slices.Contains([]string{"info", "notice", "warn", "error"}, s.args[0]) {
				return Errorf(s.place, "invalid value in \"limit_req_log_level\" directive; it is info, notice, warn or error")
			}
			c.logLevel = s.args[0]
		case "limit_conn":
			r.warn(s.place, "%s limits concurrent connections per key, which a request log does not show; ratelab models request rates: not modelled", s)
		case "limit_rate", "limit_rate_after":
			r.warn(s.place, "%s limits the response's bandwidth, not the requests: not modelled", s)
		case "server":
			if c.kind != ngxHTTP || !s.isBlock {
				continue // upstream's server, or a misplaced one gonginx read
			}
			servers++
			sc := newCtx(ngxServer, serverName(s, servers), s.place, c)
			if err := r.context(sc, s.block); err != nil {
				return err
			}
		case "location":
			if c.kind == ngxHTTP || !s.isBlock {
				continue // nginx refuses a location in http; so does gonginx's reader
			}
			if len(s.args) < 1 || len(s.args) > 2 {
				return Errorf(s.place, "invalid number of arguments in \"location\" directive; write location /path { … } or location ~ regex { … }")
			}
			lc := newCtx(ngxLocation, "location "+strings.Join(s.args, " "), s.place, c)
			lc.named = strings.HasPrefix(s.args[0], "@")
			if c.kind == ngxServer && (len(s.args) == 1 && s.args[0] == "/" || len(s.args) == 2 && s.args[0] == "^~" && s.args[1] == "/") {
				c.catchAll = true
			}
			if err := r.context(lc, s.block); err != nil {
				return err
			}
		case "return":
			if c.kind != ngxHTTP {
				c.rewrites = append(c.rewrites, s)
			}
		case "rewrite":
			if c.kind != ngxHTTP {
				c.rewrites = append(c.rewrites, s)
			}
		case "if":
			if err := r.notAllowed(s.block, "if"); err != nil {
				return err
			}
			if c.kind != ngxHTTP && containsAny(s.block, "return", "rewrite") {
				c.rewrites = append(c.rewrites, s)
			}
		case "limit_except":
			if err := r.notAllowed(s.block, "limit_except"); err != nil {
				return err
			}
		case "internal":
			c.internal = s
		case "auth_request", "mirror":
			r.subrequests = append(r.subrequests, s)
		default:
			if strings.Contains(s.name, "_by_lua") && (strings.HasPrefix(s.name, "access_by_lua") || strings.HasPrefix(s.name, "rewrite_by_lua")) {
				c.lua = append(c.lua, s)
			}
			if s.isBlock && !opaqueBlocks[s.name] && s.name != "upstream" {
				if err := r.notAllowed(s.block, s.name); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// notAllowed refuses the limit_req directives inside a block that is not a
// context of theirs (if, limit_except, upstream…), as nginx -t does.
func (r *ngxReader) notAllowed(list []*ngxStmt, in string) error {
	for _, s := range list {
		if err := r.checkName(s); err != nil {
			return err
		}
		if isLimitReq(s.name) {
			return Errorf(s.place, "\"%s\" directive is not allowed here (inside %s); it goes in http, server or location", s.name, in)
		}
		if s.isBlock && !opaqueBlocks[s.name] {
			if err := r.notAllowed(s.block, in); err != nil {
				return err
			}
		}
	}
	return nil
}

func containsAny(list []*ngxStmt, names ...string) bool {
	for _, s := range list {
		if slices.Contains(names, s.name) || (s.isBlock && containsAny(s.block, names...)) {
			return true
		}
	}
	return false
}

// serverName names a server by its first server_name, else its first listen,
// else its number in the http block.
func serverName(s *ngxStmt, n int) string {
	var listen string
	for _, d := range s.block {
		if d.name == "server_name" {
			for _, a := range d.args {
				if a != "" {
					return "server " + a
				}
			}
		}
		if d.name == "listen" && listen == "" && len(d.args) > 0 {
			listen = d.args[0]
		}
	}
	if listen != "" {
		return "server " + listen
	}
	return fmt.Sprintf("server #%d", n)
}

// limitReq reads limit_req zone=NAME [burst=N] [nodelay | delay=N].
func (r *ngxReader) limitReq(c *ngxCtx, s *ngxStmt) error {
	if len(s.args) < 1 || len(s.args) > 3 {
		return Errorf(s.place, "invalid number of arguments in \"limit_req\" directive; write limit_req zone=NAME [burst=N] [nodelay | delay=N];")
	}
	q := ngxReq{place: s.place}
	zone := ""
	for _, a := range s.args {
		switch {
		case strings.HasPrefix(a, "zone="):
			zone = a[len("zone="):]
		case strings.HasPrefix(a, "burst="):
			n, ok := ParseDigits(a[len("burst="):])
			if !ok || n <= 0 {
				return Errorf(s.place, "invalid burst value %q; burst is a whole number > 0 (leave it out for none)", a)
			}
			q.burst = n
		case strings.HasPrefix(a, "delay="):
			n, ok := ParseDigits(a[len("delay="):])
			if !ok || n <= 0 {
				return Errorf(s.place, "invalid delay value %q; delay is a whole number > 0 (nodelay for none delayed)", a)
			}
			q.delay, q.nodelay = n, false
		case a == "nodelay":
			q.delay, q.nodelay = 0, true
		default:
			return Errorf(s.place, "invalid parameter %q in limit_req; it takes zone=NAME, burst=N, nodelay, delay=N", a)
		}
	}
	if zone == "" {
		return Errorf(s.place, "\"limit_req\" must have \"zone\" parameter, like zone=one")
	}
	z, ok := r.zones[zone]
	if !ok {
		names := make([]string, 0, len(r.order))
		for _, z := range r.order {
			names = append(names, z.name)
		}
		fix := "declare it in http: limit_req_zone $binary_remote_addr zone=" + zone + ":10m rate=10r/s;"
		if near := suggest.Nearest(zone, names); near != "" {
			fix = "did you mean zone=" + near + "?"
		} else if len(names) > 0 {
			fix += " (the zones are " + strings.Join(names, ", ") + ")"
		}
		return Errorf(s.place, "limit_req zone=%s: no limit_req_zone declares zone %q (nginx -t: zero size shared memory zone %q); %s", zone, zone, zone, fix)
	}
	for _, prev := range c.limits {
		if prev.zone == z {
			return Errorf(s.place, "\"limit_req\" directive is duplicate: zone %q is already limited in this context at %s; one limit_req per zone", zone, prev.place)
		}
	}
	z.used = true
	q.zone = z
	c.limits = append(c.limits, q)
	return nil
}

// resolve applies nginx's inheritance (ngx_http_limit_req_merge_conf: a
// context without limit_req of its own takes its parent's list; status, dry run
// and log level are merged one by one), then makes one lane per effective
// configuration, named after the context where it is set, and the warnings.
func (r *ngxReader) resolve() {
	for _, c := range r.ctxs {
		c.effStatus, c.effLevel = 503, "error"
		if p := c.parent; p != nil {
			c.effLimits, c.effSource = p.effLimits, p.effSource
			c.effStatus, c.effDryRun, c.effLevel = p.effStatus, p.effDryRun, p.effLevel
		}
		if len(c.limits) > 0 {
			c.effLimits, c.effSource = c.limits, c
		}
		if c.status != 0 {
			c.effStatus = c.status
		}
		if c.dryRun != nil {
			c.effDryRun = *c.dryRun
		}
		if c.logLevel != "" {
			c.effLevel = c.logLevel
		}
	}
	r.zoneWarnings()

	type group struct {
		source     *ngxCtx
		status     int
		dryRun     bool
		level      string
		first      *ngxCtx
		applies    []string
		appliesCtx []*ngxCtx
	}
	type groupKey struct {
		source *ngxCtx
		status int
		dryRun bool
	}
	var groups []*group
	byKey := map[groupKey]*group{}
	find := func(c *ngxCtx) *group {
		// the log level decides nothing: contexts that differ only in it
		// share a lane
		k := groupKey{c.effSource, c.effStatus, c.effDryRun}
		if g, ok := byKey[k]; ok {
			return g
		}
		g := &group{source: c.effSource, status: c.effStatus, dryRun: c.effDryRun, level: c.effLevel, first: c}
		groups = append(groups, g)
		byKey[k] = g
		return g
	}
	for _, c := range r.ctxs {
		if len(c.effLimits) == 0 {
			continue
		}
		g := find(c)
		// http handles no request itself, nor a server whose location /
		// takes every request
		if c.kind == ngxLocation || c.kind == ngxServer && !c.catchAll {
			g.applies = append(g.applies, c.name())
			g.appliesCtx = append(g.appliesCtx, c)
		}
	}
	names := map[string]bool{}
	lanesOf := map[*ngxZone][]string{}
	for _, g := range groups {
		if len(g.applies) == 0 {
			r.warn(g.source.effLimits[0].place, "the limit_req of %s apply to no request: every server and location under it sets its own limit_req (nginx inherits limit_req only into a context that has none), or there is no server", g.source.name())
			continue
		}
		lane := Lane{Name: g.first.name(), Place: g.first.place, Applies: g.applies}
		if names[lane.Name] {
			lane.Name += " (" + lane.Place.String() + ")"
		}
		names[lane.Name] = true
		for _, q := range g.source.effLimits {
			z := q.zone
			lim := &NginxLimit{Zone: z.name, ZonePlace: z.place, ZoneSize: z.size, Rate: z.rate, Per: z.per,
				Burst: q.burst, NoDelay: q.nodelay, Delay: q.delay, DryRun: g.dryRun, Status: g.status, LogLevel: g.level, Sync: z.sync}
			lane.Limits = append(lane.Limits, Limit{Place: q.place, Key: r.zoneKey(z), Params: lim})
		}
		r.cfg.Lanes = append(r.cfg.Lanes, lane)
		for _, c := range g.appliesCtx {
			r.contextWarnings(c)
		}
		for _, q := range g.source.effLimits {
			lanesOf[q.zone] = append(lanesOf[q.zone], lane.Name)
		}
	}
	for _, z := range r.order {
		if l := lanesOf[z]; len(l) > 1 {
			r.warn(z.place, "zone %q holds the limits of %d lanes (%s): nginx keeps one state per key in a zone, shared by every limit_req that names it, and each ratelab lane keeps its own; not modelled", z.name, len(l), strings.Join(l, "; "))
		}
	}
	if len(r.cfg.Lanes) > 0 {
		for _, s := range r.subrequests {
			r.warn(s.place, "%s makes subrequests; nginx runs limit_req once per request (r->main), so a subrequest is limited by its location only when the main request was not: not modelled", s)
		}
	}
	slices.SortStableFunc(r.cfg.Warnings, func(a, b Warning) int { return r.seq[a.Place] - r.seq[b.Place] })
}

// contextWarnings are what a context that limits does around its limits.
func (r *ngxReader) contextWarnings(c *ngxCtx) {
	for _, s := range c.rewrites {
		switch s.name {
		case "return":
			r.warn(s.place, "%s: return ends the request in the rewrite phase, before limit_req runs (preaccess): the requests it answers are never limited; not modelled", c.name())
		case "rewrite":
			r.warn(s.place, "%s: %s — a request it rewrites with last is limited by the location it lands in, not this one's: not modelled", c.name(), s)
		case "if":
			r.warn(s.place, "%s: the if block here returns or rewrites in the rewrite phase, before limit_req runs: the requests it answers are not limited, those it rewrites are limited where they land; not modelled", c.name())
		}
	}
	if c.named {
		r.warn(c.place, "%s is a named location, reached only by an internal redirect (try_files, error_page); nginx runs limit_req once per request, so its limits hold only requests whose first location had none: not modelled", c.name())
	} else if c.internal != nil {
		r.warn(c.internal.place, "%s is internal, reached only by an internal redirect; nginx runs limit_req once per request, so its limits hold only requests whose first location had none: not modelled", c.name())
	}
	for _, s := range c.lua {
		r.warn(s.place, "%s: %s runs Lua code around limit_req (lua-resty-limit-traffic limits there, ngx.exit ends requests); ratelab does not run it", c.name(), s.name)
	}
}

// zoneWarnings say what ratelab does not model about each zone: its key, sync,
// and zones no limit_req uses.
func (r *ngxReader) zoneWarnings() {
	for _, z := range r.order {
		if !z.used {
			r.warn(z.place, "limit_req_zone %q is used by no limit_req: it limits nothing", z.name)
			continue
		}
		if z.sync {
			r.warn(z.place, "limit_req_zone %q: sync (NGINX Plus; stock nginx refuses it) shares the zone's state across a cluster; ratelab models one nginx: not modelled", z.name)
		}
		k := r.zoneKey(z)
		switch {
		case !k.Mapped:
			r.warn(z.place, "limit_req_zone %q: key %s — %s; the lane keys requests by the trace's own key", z.name, z.key, k.Note)
		case k.Note != "":
			r.warn(z.place, "limit_req_zone %q: key %s — %s", z.name, z.key, k.Note)
		}
	}
}

// zoneKey maps a zone's key expression to a request log's fields.
func (r *ngxReader) zoneKey(z *ngxZone) Key {
	return nginxKey(z.key, r.vars)
}

// ParseDigits reads a non-negative decimal number as nginx's ngx_atoi does
// (digits only, at most 18), as nginx and HAProxy write counts and sizes.
func ParseDigits(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// ngxParseSize reads a size as ngx_parse_size does: bytes, or k/K, m/M.
func ngxParseSize(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	scale := int64(1)
	switch s[len(s)-1] {
	case 'k', 'K':
		scale, s = 1<<10, s[:len(s)-1]
	case 'm', 'M':
		scale, s = 1<<20, s[:len(s)-1]
	}
	n, ok := ParseDigits(s)
	if !ok || n > (1<<62)/scale {
		return 0, false
	}
	return n * scale, true
}

// detectNginx counts nginx's directives (a name of lowercase letters, digits
// and _, its words ended by ; or {), and its blocks and limit_req directives
// wherever they stand, for a file that writes several on a line ("http {
// server { location / { … } } }"), which the line ends do not show; one is
// enough.
func detectNginx(data []byte) Sign {
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
		if last := t[len(t)-1]; (last == ';' || last == '{') && isDirectiveName(word) {
			n++
		}
	}
	n += 2 * len(nginxBlocks.FindAllIndex(data, -1))
	return Sign{Count: n, Enough: n >= 1}
}

// nginxBlocks finds nginx's own block openings and its limit_req directives.
var nginxBlocks = regexp.MustCompile(`(?m)(^|[;{}\s])((events|http|server|upstream|stream|limit_except)\s*\{|location\s+[^{};\n]+\{|limit_req(_zone)?\s+[^;\n]*;)`)

// isDirectiveName says w can be an nginx directive's name.
func isDirectiveName(w []byte) bool {
	w = bytes.TrimRight(w, ";{")
	if len(w) == 0 {
		return false
	}
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// nginxLanes maps a context to one lane of its limit_req, in order, all or
// nothing.
func nginxLanes(l Lane, m *Mapping) []RatelabLane {
	lane := RatelabLane{Name: l.Name, Place: l.Place, Combine: algorithms.AllOrNothing}
	for _, lim := range l.Limits {
		lane.Limits = append(lane.Limits, nginxRatelab(lim, m))
	}
	return []RatelabLane{lane}
}

// nginxRatelab is one limit_req as the nginx lane runs it: rate=Nr/s is N per
// 1s, Nr/m N per 1m; nginx's burst=B is the policy's burst B+1 (the request
// served plus the excess nginx counts); nodelay, delay=N, limit_req_dry_run and
// limit_req_status as the lane's options. A delay above the burst delays no
// request, as nodelay.
func nginxRatelab(m Limit, mp *Mapping) RatelabLimit {
	n := m.Params.(*NginxLimit)
	o := algorithms.Options{Nodelay: n.NoDelay, Delay: n.Delay, DryRun: n.DryRun}
	if o.Delay > n.Burst {
		o.Nodelay, o.Delay = true, 0
	}
	if n.Status != 503 {
		o.DenyStatus = n.Status
	}
	return RatelabLimit{Name: n.Zone, Place: m.Place, Algorithm: algorithms.NginxName, Key: mp.Key(m, n.Zone), Options: o,
		Policy: algorithms.Policy{Limit: n.Rate, Period: n.Per, Burst: n.Burst + 1}}
}

// nginxKeyWarnings say, for each zone that holds fewer keys than keys, what
// nginx does when it is full. keyBytes is the length of a key whose length the
// expression does not fix (the client address is 4 bytes as
// $binary_remote_addr, up to 15 as $remote_addr).
func nginxKeyWarnings(c *Config, keys int64, keyBytes int) []Warning {
	var out []Warning
	seen := map[Place]bool{}
	for _, l := range c.Lanes {
		for _, m := range l.Limits {
			n := m.Params.(*NginxLimit)
			if seen[n.ZonePlace] {
				continue
			}
			seen[n.ZonePlace] = true
			kb := keyBytes
			switch m.Key.Expr {
			case "$binary_remote_addr":
				kb = 4
			case "$remote_addr":
				kb = 15
			}
			capacity := n.ZoneCapacity(kb)
			if keys <= capacity {
				continue
			}
			out = append(out, Warningf(n.ZonePlace,
				"zone %q (%s) holds about %d keys of %d bytes and the trace has %d: when more are active at once, nginx frees the least recently used key, which starts again with no excess (let through as new), and refuses with %d only when even that fails; ratelab keeps every key: not modelled",
				n.Zone, format.Bytes(n.ZoneSize), capacity, kb, keys, n.Status))
		}
	}
	return out
}
