package nginx

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"ratelab/products"
)

type ctxKind int

const (
	httpCtx ctxKind = iota
	serverCtx
	locationCtx
)

// ctx is a context that may hold limit_req directives: http, a server, a
// location (nested ones too).
type ctx struct {
	kind   ctxKind
	place  products.Place
	parent *ctx
	// depth, head and tail make its name (name): how many words it has
	// ("server example.com" one, each location nested in it one more), the
	// first nameHead of them (shared with its parent once it has them all)
	// and the last nameTail after those, so that a context costs the same
	// however deep it is
	depth      int
	head, tail []string

	limits   []reqDef // its own limit_req, in order
	status   int      // 0: not set here
	dryRun   *bool
	logLevel string // "": not set here

	// what it does that decides whether its limits run: return, rewrite, if
	// (with return or rewrite inside), internal, a named location, Lua
	rewrites []*directive
	internal *directive
	named    bool
	lua      []*directive
	// catchAll says a location / takes every request a server does not send
	// elsewhere, so the server's own configuration handles none.
	catchAll bool

	// the effective configuration, after inheritance
	effLimits []reqDef
	effSource *ctx
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
func newCtx(kind ctxKind, word string, place products.Place, parent *ctx) *ctx {
	if len(word) > nameWord {
		cut := nameWord
		for cut > 0 && !utf8.RuneStart(word[cut]) {
			cut--
		}
		word = word[:cut] + "…"
	}
	c := &ctx{kind: kind, place: place, parent: parent, depth: 1, head: []string{word}}
	if parent == nil || parent.kind == httpCtx {
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
func (c *ctx) name() string {
	words := slices.Clone(c.head)
	if left := c.depth - len(c.head) - len(c.tail); left > 0 {
		words = append(words, fmt.Sprintf("… %d more …", left))
	}
	return strings.Join(append(words, c.tail...), " ")
}

// resolve applies nginx's inheritance (ngx_http_limit_req_merge_conf: a
// context without limit_req of its own takes its parent's list; status, dry run
// and log level are merged one by one), then makes one lane per effective
// configuration, named after the context where it is set, and the warnings.
func (r *reader) resolve() {
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
		source     *ctx
		status     int
		dryRun     bool
		level      string
		first      *ctx
		applies    []string
		appliesCtx []*ctx
	}
	type groupKey struct {
		source *ctx
		status int
		dryRun bool
	}
	var groups []*group
	byKey := map[groupKey]*group{}
	find := func(c *ctx) *group {
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
		if c.kind == locationCtx || c.kind == serverCtx && !c.catchAll {
			g.applies = append(g.applies, c.name())
			g.appliesCtx = append(g.appliesCtx, c)
		}
	}
	names := map[string]bool{}
	lanesOf := map[*zoneDef][]string{}
	for _, g := range groups {
		if len(g.applies) == 0 {
			r.warn(g.source.effLimits[0].place, "the limit_req of %s apply to no request: every server and location under it sets its own limit_req (nginx inherits limit_req only into a context that has none), or there is no server", g.source.name())
			continue
		}
		lane := products.Lane{Name: g.first.name(), Place: g.first.place, Applies: g.applies}
		if names[lane.Name] {
			lane.Name += " (" + lane.Place.String() + ")"
		}
		names[lane.Name] = true
		for _, q := range g.source.effLimits {
			z := q.zone
			lim := &Limit{Zone: z.name, ZonePlace: z.place, ZoneSize: z.size, Rate: z.rate, Per: z.per,
				Burst: q.burst, NoDelay: q.nodelay, Delay: q.delay, DryRun: g.dryRun, Status: g.status, LogLevel: g.level, Sync: z.sync}
			lane.Limits = append(lane.Limits, products.Limit{Place: q.place, Key: r.zoneKey(z), Params: lim})
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
	slices.SortStableFunc(r.cfg.Warnings, func(a, b products.Warning) int { return r.seq[a.Place] - r.seq[b.Place] })
}

// contextWarnings are what a context that limits does around its limits.
func (r *reader) contextWarnings(c *ctx) {
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

// context reads the directives of a context (http, server, location) into c,
// and its inner contexts.
func (r *reader) context(c *ctx, list []*directive) error {
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
				return products.Errorf(s.place, "\"limit_req_status\" directive is duplicate; keep one per context")
			}
			if len(s.args) != 1 {
				return products.Errorf(s.place, "invalid number of arguments in \"limit_req_status\" directive; write limit_req_status 429;")
			}
			n, ok := products.ParseDigits(s.args[0])
			switch {
			case !ok:
				return products.Errorf(s.place, "\"limit_req_status\" directive invalid number %q; write a status from 400 to 599", s.args[0])
			case n < 400 || n > 599:
				return products.Errorf(s.place, "\"limit_req_status\" value must be between 400 and 599 (got %d)", n)
			}
			c.status = int(n)
		case "limit_req_dry_run":
			if c.dryRun != nil {
				return products.Errorf(s.place, "\"limit_req_dry_run\" directive is duplicate; keep one per context")
			}
			if len(s.args) != 1 || (s.args[0] != "on" && s.args[0] != "off") {
				return products.Errorf(s.place, "invalid value in \"limit_req_dry_run\" directive, it must be \"on\" or \"off\"")
			}
			on := s.args[0] == "on"
			c.dryRun = &on
		case "limit_req_log_level":
			if c.logLevel != "" {
				return products.Errorf(s.place, "\"limit_req_log_level\" directive is duplicate; keep one per context")
			}
			if len(s.args) != 1 || !slices.Contains([]string{"info", "notice", "warn", "error"}, s.args[0]) {
				return products.Errorf(s.place, "invalid value in \"limit_req_log_level\" directive; it is info, notice, warn or error")
			}
			c.logLevel = s.args[0]
		case "limit_conn":
			r.warn(s.place, "%s limits concurrent connections per key, which a request log does not show; ratelab models request rates: not modelled", s)
		case "limit_rate", "limit_rate_after":
			r.warn(s.place, "%s limits the response's bandwidth, not the requests: not modelled", s)
		case "server":
			if c.kind != httpCtx || !s.isBlock {
				continue // upstream's server, or a misplaced one gonginx read
			}
			servers++
			sc := newCtx(serverCtx, serverName(s, servers), s.place, c)
			if err := r.context(sc, s.block); err != nil {
				return err
			}
		case "location":
			if c.kind == httpCtx || !s.isBlock {
				continue // nginx refuses a location in http; so does gonginx's reader
			}
			if len(s.args) < 1 || len(s.args) > 2 {
				return products.Errorf(s.place, "invalid number of arguments in \"location\" directive; write location /path { … } or location ~ regex { … }")
			}
			lc := newCtx(locationCtx, "location "+strings.Join(s.args, " "), s.place, c)
			lc.named = strings.HasPrefix(s.args[0], "@")
			if c.kind == serverCtx && (len(s.args) == 1 && s.args[0] == "/" || len(s.args) == 2 && s.args[0] == "^~" && s.args[1] == "/") {
				c.catchAll = true
			}
			if err := r.context(lc, s.block); err != nil {
				return err
			}
		case "return":
			if c.kind != httpCtx {
				c.rewrites = append(c.rewrites, s)
			}
		case "rewrite":
			if c.kind != httpCtx {
				c.rewrites = append(c.rewrites, s)
			}
		case "if":
			if err := r.notAllowed(s.block, "if"); err != nil {
				return err
			}
			if c.kind != httpCtx && containsAny(s.block, "return", "rewrite") {
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
func (r *reader) notAllowed(list []*directive, in string) error {
	for _, s := range list {
		if err := r.checkName(s); err != nil {
			return err
		}
		if isLimitReq(s.name) {
			return products.Errorf(s.place, "\"%s\" directive is not allowed here (inside %s); it goes in http, server or location", s.name, in)
		}
		if s.isBlock && !opaqueBlocks[s.name] {
			if err := r.notAllowed(s.block, in); err != nil {
				return err
			}
		}
	}
	return nil
}

func containsAny(list []*directive, names ...string) bool {
	for _, s := range list {
		if slices.Contains(names, s.name) || (s.isBlock && containsAny(s.block, names...)) {
			return true
		}
	}
	return false
}

// serverName names a server by its first server_name, else its first listen,
// else its number in the http block.
func serverName(s *directive, n int) string {
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
