package products

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tufanbarisyildirim/gonginx/config"
	"github.com/tufanbarisyildirim/gonginx/parser"
)

// An nginx.conf is read in two steps: github.com/tufanbarisyildirim/gonginx
// parses each file into directives, blocks and parameters, and a scan of the
// same text (scanNginx) checks its structure as nginx's own tokenizer does
// (src/core/ngx_conf_file.c, ngx_conf_read_token: "unexpected }", an
// unterminated quote) and finds the line nginx names for each directive — the
// line of the ";" or "{" that ends its words, which is where nginx -t places a
// message. (gonginx records the line of a block's closing "}".) Includes are
// followed here, file by file, so that every directive keeps its own file.

// ngxStmt is one directive: its name and arguments as nginx reads them (quotes
// removed, escapes applied), its place, and its block's directives.
type ngxStmt struct {
	name    string
	args    []string
	place   Place // the line of the ; or { that ends its words
	isBlock bool
	block   []*ngxStmt
}

// String is the directive as written, its arguments quoted where they need it.
func (s *ngxStmt) String() string {
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

// ngxFiles reads a configuration and the files it includes.
type ngxFiles struct {
	o     Options
	dir   string   // relative includes are read from here
	stack []string // the files being read, outermost first
	read  int      // files read
	// marked are the included files that began with a byte-order mark
	marked []string
}

// parseFile reads one file's directives, its includes followed; depth is how
// many blocks hold it (0 for the main file; an included file's, its include's).
func (f *ngxFiles) parseFile(name string, data []byte, depth int) ([]*ngxStmt, error) {
	f.read++
	lines, err := scanNginx(name, data, depth)
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
	var place func([]*ngxStmt) bool
	place = func(list []*ngxStmt) bool {
		for _, s := range list {
			if i >= len(lines) || lines[i].name != s.name {
				return false
			}
			s.place = Place{File: name, Line: lines[i].line}
			i++
			if !place(s.block) {
				return false
			}
		}
		return true
	}
	if !place(stmts) || i != len(lines) {
		return nil, Errorf(Place{File: name}, "the directives read do not line up with the file's text (a construct this reader does not follow; a Lua block with unbalanced braces in a string?)")
	}
	f.stack = append(f.stack, name)
	defer func() { f.stack = f.stack[:len(f.stack)-1] }()
	return f.expand(stmts, depth)
}

// expand replaces each include in list (at any depth) by the directives of the
// files it names; depth is how many blocks hold list.
func (f *ngxFiles) expand(list []*ngxStmt, depth int) ([]*ngxStmt, error) {
	var out []*ngxStmt
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
			return nil, Errorf(s.place, "invalid number of arguments in \"include\" directive; include takes one file or pattern")
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
func (f *ngxFiles) include(s *ngxStmt, depth int) ([]*ngxStmt, error) {
	pattern := s.args[0]
	if !filepath.IsAbs(pattern) {
		pattern = filepath.Join(f.dir, pattern)
	}
	names := []string{pattern}
	if strings.ContainsAny(s.args[0], "*?[") {
		matches, err := f.o.glob(pattern)
		if err != nil {
			return nil, Errorf(s.place, "include %q: %v", s.args[0], err)
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
		return nil, Errorf(s.place, "%s, and with the %d read before it the configuration would read more than %d files, more than ratelab reads; include fewer (a narrower pattern, or the sites one limit is about)", what, f.read, maxFiles)
	}
	if len(f.stack) >= maxIncludeDepth && len(names) > 0 {
		return nil, Errorf(s.place, "include %q: includes nest more than %d deep here (%s); include the files from fewer levels", s.args[0], maxIncludeDepth, strings.Join(f.stack[max(0, len(f.stack)-3):], " → ")+" → …")
	}
	var out []*ngxStmt
	for _, name := range names {
		if slices.Contains(f.stack, name) {
			return nil, Errorf(s.place, "include %q includes %s again, which is being read: an include cycle", s.args[0], name)
		}
		data, err := f.o.readFile(name)
		if err != nil {
			return nil, Errorf(s.place, "include %q: %v (relative paths are read from %s)", s.args[0], err, f.dir)
		}
		if len(data) > MaxFileSize {
			return nil, Errorf(s.place, "include %q: %s is %d bytes; ratelab reads configurations up to %d", s.args[0], name, len(data), MaxFileSize)
		}
		data, marked := TrimBOM(data)
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
func parseGonginx(name, text string) (stmts []*ngxStmt, err error) {
	defer func() {
		// gonginx is a third-party parser: whatever it does with a file, the
		// reader answers with an error, never a crash
		if r := recover(); r != nil {
			stmts, err = nil, Errorf(Place{File: name}, "the nginx parser failed on this file (%v)", r)
		}
	}()
	p := parser.NewStringParser(text, parser.WithSkipValidDirectivesErr(), parser.WithSkipComments())
	c, err := p.Parse()
	if err != nil {
		place := Place{File: name}
		if m := gonginxLine.FindStringSubmatch(err.Error()); m != nil {
			place.Line, _ = strconv.Atoi(m[1])
		}
		return nil, Errorf(place, "%v", err)
	}
	if c == nil || c.Block == nil {
		return nil, nil
	}
	return convertGonginx(c.Block), nil
}

func convertGonginx(b config.IBlock) []*ngxStmt {
	var out []*ngxStmt
	for _, d := range b.GetDirectives() {
		if d == nil {
			continue
		}
		s := &ngxStmt{name: ngxUnquote(d.GetName())}
		for _, p := range d.GetParameters() {
			s.args = append(s.args, ngxUnquote(p.Value))
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

// ngxUnquote reads a word as ngx_conf_read_token does: surrounding quotes
// removed, and \" \' \\ \t \r \n turned into what they stand for.
func ngxUnquote(w string) string {
	if len(w) >= 2 && (w[0] == '"' || w[0] == '\'') && w[len(w)-1] == w[0] {
		w = w[1 : len(w)-1]
	}
	if !strings.Contains(w, `\`) {
		return w
	}
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		if w[i] == '\\' && i+1 < len(w) {
			switch w[i+1] {
			case '"', '\'', '\\':
				b.WriteByte(w[i+1])
				i++
				continue
			case 't':
				b.WriteByte('\t')
				i++
				continue
			case 'r':
				b.WriteByte('\r')
				i++
				continue
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			}
		}
		b.WriteByte(w[i])
	}
	return b.String()
}

// scanLine is one directive as the scan found it: its name and the line of the
// ; or { that ends its words.
type scanLine struct {
	name string
	line int
}

// scanNginx checks a file's structure as ngx_conf_read_token does and lists its
// directives in order (a block's before its contents), with the line nginx
// names for each. Words are split where gonginx splits them, so the two lists
// line up. base is how many blocks hold the file (an included one's); a block
// nested deeper than maxNesting is refused at its line.
func scanNginx(name string, data []byte, base int) ([]scanLine, error) {
	var (
		out   []scanLine
		words []string // the current directive's words so far
		first int      // the line of its first word
		depth int
		line  = 1
		opens []int // the lines of the blocks still open
	)
	bad := func(l int, format string, args ...any) error {
		return Errorf(Place{File: name, Line: l}, format, args...)
	}
	n := len(data)
	for i := 0; i < n; {
		c := data[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '#':
			for i < n && data[i] != '\n' && data[i] != '\r' {
				i++
			}
		case c == ';':
			if len(words) == 0 {
				return nil, bad(line, "unexpected \";\"; a directive is a name and its arguments, ended by ;")
			}
			out = append(out, scanLine{words[0], line})
			words = words[:0]
			i++
		case c == '{':
			if len(words) == 0 {
				return nil, bad(line, "unexpected \"{\"; a block starts with its directive's name (server {, location /path {)")
			}
			out = append(out, scanLine{words[0], line})
			lua := strings.HasSuffix(words[len(words)-1], "_by_lua_block")
			words = words[:0]
			i++
			if lua {
				// gonginx reads a Lua block as code up to the "}" that
				// balances it, skipping # comments
				braces := 0
				for ; i < n; i++ {
					if data[i] == '\n' {
						line++
					}
					if data[i] == '#' {
						for i+1 < n && data[i+1] != '\n' && data[i+1] != '\r' {
							i++
						}
						continue
					}
					if data[i] == '{' {
						braces++
					}
					if data[i] == '}' {
						if braces == 0 {
							break
						}
						braces--
					}
				}
				if i >= n {
					return nil, bad(line, "unexpected end of file in the Lua block opened at line %d, expecting \"}\"", first)
				}
				i++ // its closing }
				continue
			}
			if depth++; base+depth > maxNesting {
				return nil, bad(line, "blocks nest more than %d deep here: this %q block is level %d (nginx has no limit of its own but its stack: 1.22's -t crashes at 14,000 nested locations); close blocks sooner: a configuration nests http, server, location and if a few levels deep", maxNesting, out[len(out)-1].name, base+depth)
			}
			opens = append(opens, line)
		case c == '}':
			if len(words) > 0 {
				return nil, bad(line, "unexpected \"}\" after %q: the directive before it needs its ;", words[0])
			}
			if depth == 0 {
				return nil, bad(line, "unexpected \"}\": no block is open here")
			}
			depth--
			opens = opens[:len(opens)-1]
			i++
		case c == '"' || c == '\'' || c == '`':
			start, from := line, i
			i++
			for ; i < n && data[i] != c; i++ {
				if data[i] == '\\' && i+1 < n && data[i+1] == c {
					i++
				}
				if data[i] == '\n' {
					line++
				}
			}
			if i >= n {
				return nil, bad(start, "unexpected end of file: the quote opened here is never closed")
			}
			i++
			if len(words) == 0 {
				first = start
			}
			words = append(words, string(data[from:i]))
		default:
			// a word, split as gonginx splits it: up to a space, ;, a line's
			// end, or a { or } that is not part of a ${variable}
			from := i
			inVar := false
			prev := byte(0)
			for i < n {
				ch := data[i]
				if ch == ' ' || ch == '\t' || ch == ';' || ch == '\n' || ch == '\r' {
					break
				}
				if ch == '{' {
					if prev == '$' {
						inVar = true
					} else if !inVar {
						break
					}
				} else if ch == '}' {
					if !inVar {
						break
					}
					inVar = false
				}
				prev = ch
				i++
			}
			if i == from { // cannot happen: c is none of the above
				i++
				continue
			}
			if len(words) == 0 {
				first = line
			}
			words = append(words, ngxUnquote(string(data[from:i])))
		}
	}
	if len(words) > 0 {
		return nil, bad(line, "unexpected end of file, expecting \";\" or \"}\" after %q (line %d)", words[0], first)
	}
	if depth > 0 {
		return nil, bad(line, "unexpected end of file, expecting \"}\" to close the block opened at line %d", opens[len(opens)-1])
	}
	for i := range out {
		out[i].name = ngxUnquote(out[i].name)
	}
	return out, nil
}
