package nginx

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tufanbarisyildirim/gonginx/config"
	"github.com/tufanbarisyildirim/gonginx/parser"

	"ratelab/products"
)

// An nginx.conf is read in two steps: github.com/tufanbarisyildirim/gonginx
// parses each file into directives, blocks and parameters, and a scan of the
// same text (scan) checks its structure as nginx's own tokenizer does
// (src/core/ngx_conf_file.c, ngx_conf_read_token: "unexpected }", an
// unterminated quote) and finds the line nginx names for each directive — the
// line of the ";" or "{" that ends its words, which is where nginx -t places a
// message. (gonginx records the line of a block's closing "}".) Includes are
// followed here, file by file, so that every directive keeps its own file.

// directive is one directive: its name and arguments as nginx reads them (quotes
// removed, escapes applied), its place, and its block's directives.
type directive struct {
	name    string
	args    []string
	place   products.Place // the line of the ; or { that ends its words
	isBlock bool
	block   []*directive
}

// String is the directive as written, its arguments quoted where they need it.
func (s *directive) String() string {
	var b strings.Builder
	b.WriteString(s.name)
	for _, a := range s.args {
		b.WriteByte(' ')
		if a == "" || strings.ContainsAny(a, " \t;{}#\"'") {
			b.WriteString(strconv.Quote(a))
		} else {
			b.WriteString(a)
		}
	}
	return b.String()
}

// maxIncludeDepth bounds nested includes; maxFiles the files one configuration
// may read.
const (
	maxIncludeDepth = 32
	maxFiles        = 1024
)

// maxNesting is how deep an nginx.conf's blocks may nest, included files
// counted from the block that includes them: a deeper one is refused at the
// line of the block that goes too deep, before any parser recurses into it
// (gonginx recurses once a block, and a million nested blocks, a 13 MB file,
// ran the process out of stack: a fatal error no recover catches). nginx has
// no limit of its own: ngx_conf_parse (src/core/ngx_conf_file.c) calls a
// block directive's handler, which calls ngx_conf_parse for the block's
// contents (ngx_http_core_location, src/http/ngx_http_core_module.c at
// 3f6f7824), so only its C stack bounds the depth; nginx 1.22.1's -t, on
// Linux's default 8 MiB stack, reads 12,000 nested locations and crashes
// (SIGSEGV) at 14,000. A real configuration nests a handful of levels (http,
// server, location, a nested location, if); 16,384 is far above that, and
// above what nginx reads on a default stack, so ratelab refuses nothing nginx
// takes there.
const maxNesting = 16384

// files reads a configuration and the files it includes.
type files struct {
	o     products.Options
	dir   string   // relative includes are read from here
	stack []string // the files being read, outermost first
	read  int      // files read
	// marked are the included files that began with a byte-order mark
	marked []string
}

// parseFile reads one file's directives, its includes followed; depth is how
// many blocks hold it (0 for the main file; an included file's, its include's).
func (f *files) parseFile(name string, data []byte, depth int) ([]*directive, error) {
	f.read++
	lines, err := scan(name, data, depth)
	if err != nil {
		return nil, err
	}
	stmts, err := parseGonginx(name, string(data))
	if err != nil {
		return nil, err
	}
	// the scan and gonginx read the same text: their directives, in order,
	// have the same names; the scan's lines are those nginx names
	i := 0
	var place func([]*directive) bool
	place = func(list []*directive) bool {
		for _, s := range list {
			if i >= len(lines) || lines[i].name != s.name {
				return false
			}
			s.place = products.Place{File: name, Line: lines[i].line}
			i++
			if !place(s.block) {
				return false
			}
		}
		return true
	}
	if !place(stmts) || i != len(lines) {
		return nil, products.Errorf(products.Place{File: name}, "the directives read do not line up with the file's text (a construct this reader does not follow; a Lua block with unbalanced braces in a string?)")
	}
	f.stack = append(f.stack, name)
	defer func() { f.stack = f.stack[:len(f.stack)-1] }()
	return f.expand(stmts, depth)
}

// expand replaces each include in list (at any depth) by the directives of the
// files it names; depth is how many blocks hold list.
func (f *files) expand(list []*directive, depth int) ([]*directive, error) {
	var out []*directive
	for _, s := range list {
		if s.name != "include" || s.isBlock {
			if s.isBlock {
				var err error
				if s.block, err = f.expand(s.block, depth+1); err != nil {
					return nil, err
				}
			}
			out = append(out, s)
			continue
		}
		if len(s.args) != 1 {
			return nil, products.Errorf(s.place, "invalid number of arguments in \"include\" directive; include takes one file or pattern")
		}
		inc, err := f.include(s, depth)
		if err != nil {
			return nil, err
		}
		out = append(out, inc...)
	}
	return out, nil
}

// include reads the files an include directive names: a path relative to the
// main file's directory (nginx's conf prefix), or a pattern whose matches are
// read in order (none is fine), as ngx_conf_include does; depth is how many
// blocks hold the include. Too many files, or includes nested too deep, are
// refused at the include that would read them.
func (f *files) include(s *directive, depth int) ([]*directive, error) {
	pattern := s.args[0]
	if !filepath.IsAbs(pattern) {
		pattern = filepath.Join(f.dir, pattern)
	}
	names := []string{pattern}
	if strings.ContainsAny(s.args[0], "*?[") {
		matches, err := f.o.GlobInclude(pattern)
		if err != nil {
			return nil, products.Errorf(s.place, "include %q: %v", s.args[0], err)
		}
		names = names[:0]
		hidden := strings.HasPrefix(filepath.Base(pattern), ".")
		for _, m := range matches {
			if !hidden && strings.HasPrefix(filepath.Base(m), ".") {
				continue // glob(3) does not match a leading dot with *
			}
			names = append(names, m)
		}
		slices.Sort(names)
	}
	if f.read+len(names) > maxFiles {
		what := fmt.Sprintf("include %q matches %d files", s.args[0], len(names))
		if len(names) == 1 {
			what = fmt.Sprintf("include %q reads %s", s.args[0], names[0])
		}
		return nil, products.Errorf(s.place, "%s, and with the %d read before it the configuration would read more than %d files, more than ratelab reads; include fewer (a narrower pattern, or the sites one limit is about)", what, f.read, maxFiles)
	}
	if len(f.stack) >= maxIncludeDepth && len(names) > 0 {
		return nil, products.Errorf(s.place, "include %q: includes nest more than %d deep here (%s); include the files from fewer levels", s.args[0], maxIncludeDepth, strings.Join(f.stack[max(0, len(f.stack)-3):], " → ")+" → …")
	}
	var out []*directive
	for _, name := range names {
		if slices.Contains(f.stack, name) {
			return nil, products.Errorf(s.place, "include %q includes %s again, which is being read: an include cycle", s.args[0], name)
		}
		data, err := f.o.ReadInclude(name)
		if err != nil {
			return nil, products.Errorf(s.place, "include %q: %v (relative paths are read from %s)", s.args[0], err, f.dir)
		}
		if len(data) > products.MaxFileSize {
			return nil, products.Errorf(s.place, "include %q: %s is %d bytes; ratelab reads configurations up to %d", s.args[0], name, len(data), products.MaxFileSize)
		}
		data, marked := products.TrimBOM(data)
		if marked {
			f.marked = append(f.marked, name)
		}
		stmts, err := f.parseFile(name, data, depth)
		if err != nil {
			return nil, err
		}
		out = append(out, stmts...)
	}
	return out, nil
}

// gonginxLine finds "line N" in a gonginx error.
var gonginxLine = regexp.MustCompile(`line (\d+)`)

// parseGonginx parses one file's text with gonginx, includes not followed,
// directives not checked against its list (modules add their own; the reader
// checks the ones that limit).
func parseGonginx(name, text string) (stmts []*directive, err error) {
	defer func() {
		// gonginx is a third-party parser: whatever it does with a file, the
		// reader answers with an error, never a crash
		if r := recover(); r != nil {
			stmts, err = nil, products.Errorf(products.Place{File: name}, "the nginx parser failed on this file (%v)", r)
		}
	}()
	p := parser.NewStringParser(text, parser.WithSkipValidDirectivesErr(), parser.WithSkipComments())
	c, err := p.Parse()
	if err != nil {
		place := products.Place{File: name}
		if m := gonginxLine.FindStringSubmatch(err.Error()); m != nil {
			place.Line, _ = strconv.Atoi(m[1])
		}
		return nil, products.Errorf(place, "%v", err)
	}
	if c == nil || c.Block == nil {
		return nil, nil
	}
	return convertGonginx(c.Block), nil
}

func convertGonginx(b config.IBlock) []*directive {
	var out []*directive
	for _, d := range b.GetDirectives() {
		if d == nil {
			continue
		}
		s := &directive{name: unquote(d.GetName())}
		for _, p := range d.GetParameters() {
			s.args = append(s.args, unquote(p.Value))
		}
		if inner := d.GetBlock(); inner != nil && !isNilBlock(inner) {
			s.isBlock = true
			s.block = convertGonginx(inner)
		}
		out = append(out, s)
	}
	return out
}

// isNilBlock says a block interface holds a nil pointer.
func isNilBlock(b config.IBlock) bool {
	switch v := b.(type) {
	case *config.Block:
		return v == nil
	}
	return false
}
