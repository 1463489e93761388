package nginx

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/tufanbarisyildirim/gonginx/parser"

	"ratelab/algorithms"
	"ratelab/internal/suggest"
	"ratelab/products"
)

// setVar is a variable a directive sets (map, geo, split_clients, set, …).
type setVar struct {
	by    string // the directive
	place products.Place
	// values are a map's values, when it is a map
	values []string
}

// reader turns an nginx configuration's directives into a Config.
type reader struct {
	cfg   *products.Config
	zones map[string]*zoneDef
	order []*zoneDef
	vars  map[string]setVar
	ctxs  []*ctx // in the file's order, outer before inner
	// subrequests are auth_request and mirror directives
	subrequests []*directive
	// seq is each directive's place in reading order, includes spliced in
	// where they are included: warnings are listed in that order
	seq map[products.Place]int
}

// limitReqDirectives are the module's directives, for typos.
var limitReqDirectives = []string{"limit_req", "limit_req_zone", "limit_req_status", "limit_req_dry_run", "limit_req_log_level"}

// opaqueBlocks hold entries, not directives: their contents are not read.
var opaqueBlocks = map[string]bool{"map": true, "geo": true, "split_clients": true, "types": true, "charset_map": true, "match": true}

// read reads an nginx.conf (Info.Read): its directives, includes followed,
// into the lanes of its contexts that limit, with nginx's inheritance.
func read(name string, data []byte, o products.Options) (*products.Config, error) {
	dir := o.Dir
	if dir == "" {
		dir = filepath.Dir(name)
	}
	f := &files{o: o, dir: dir}
	stmts, err := f.parseFile(name, data, 0)
	if err != nil {
		return nil, err
	}
	r := &reader{cfg: &products.Config{File: name}, zones: map[string]*zoneDef{}, vars: map[string]setVar{}, seq: map[products.Place]int{}}
	var number func([]*directive)
	number = func(list []*directive) {
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
	var marked []products.Warning
	for _, name := range f.marked {
		w := products.ByteOrderMarkWarning(name, algorithms.NginxName, markRefused)
		marked = append(marked, w)
	}
	r.cfg.Warnings = append(marked, r.cfg.Warnings...)
	return r.cfg, nil
}

func (r *reader) warn(place products.Place, format string, args ...any) {
	r.cfg.Warnings = append(r.cfg.Warnings, products.Warningf(place, format, args...))
}

// read reads the main context: the http block (one at most), and warnings for
// what limits elsewhere (stream's limit_conn).
func (r *reader) read(stmts []*directive) error {
	var http *directive
	for _, s := range stmts {
		if err := r.checkName(s); err != nil {
			return err
		}
		switch {
		case s.name == "http":
			if !s.isBlock {
				return products.Errorf(s.place, "\"http\" directive needs a block: http { … }")
			}
			if http != nil {
				return products.Errorf(s.place, "\"http\" directive is duplicate (the first is at %s); put every server in one http block", http.place)
			}
			http = s
		case isLimitReq(s.name):
			return products.Errorf(s.place, "\"%s\" directive is not allowed here; it goes in http, server or location", s.name)
		case s.name == "server" || s.name == "location":
			return products.Errorf(s.place, "\"%s\" directive is not allowed here, outside http: a file of server blocks (sites-enabled/…, conf.d/…) is included into http by the main nginx.conf; read that one (its http block declares the zones)", s.name)
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
	root := newCtx(httpCtx, "http", http.place, nil)
	if err := r.context(root, http.block); err != nil {
		return err
	}
	r.resolve()
	return nil
}

// walkStream warns about stream's limit_conn: connections, not requests.
func (r *reader) walkStream(list []*directive) {
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
func (r *reader) checkName(s *directive) error {
	if _, ok := parser.ValidDirectives[s.name]; ok {
		return nil
	}
	if near := suggest.Nearest(s.name, limitReqDirectives); near != "" || strings.HasPrefix(s.name, "limit_req") {
		fix := "the module's directives are " + strings.Join(limitReqDirectives, ", ")
		if near != "" {
			fix = "did you mean " + near + "?"
		}
		return products.Errorf(s.place, "unknown directive %q; %s", s.name, fix)
	}
	return nil
}

// collect reads the zones (limit_req_zone, in http only) and the variables the
// configuration sets, at any depth of http.
func (r *reader) collect(list []*directive, inHTTP bool) error {
	for _, s := range list {
		if err := r.checkName(s); err != nil {
			return err
		}
		switch s.name {
		case "limit_req_zone":
			if !inHTTP {
				return products.Errorf(s.place, "\"limit_req_zone\" directive is not allowed here; it goes in the http block")
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
func (r *reader) variable(s *directive) {
	v := setVar{by: s.name, place: s.place}
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
