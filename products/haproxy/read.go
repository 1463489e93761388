package haproxy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"ratelab/products"
)

// cfgLine is one line of a haproxy.cfg, split into words as HAProxy's
// parse_line does.
type cfgLine struct {
	place products.Place
	words []string
}

// section is a section: its keyword, name, place and lines.
type section struct {
	kind, name string
	place      products.Place
	lines      []cfgLine
}

// sectionKeywords are HAProxy 2.6's section keywords.
var sectionKeywords = []string{"global", "defaults", "frontend", "backend", "listen", "peers", "resolvers", "userlist", "mailers", "program", "http-errors", "ring", "cache", "log-forward", "fcgi-app"}

// reader reads a haproxy.cfg.
type reader struct {
	cfg      *products.Config
	sections []*section
	tables   map[string]*stickTable
}

// read reads a haproxy.cfg (Info.Read): its sections, stick tables and
// rules, a lane for each proxy that refuses requests by http_req_rate.
func read(name string, data []byte, _ products.Options) (*products.Config, error) {
	r := &reader{cfg: &products.Config{File: name}, tables: map[string]*stickTable{}}
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

func (r *reader) warn(place products.Place, format string, args ...any) {
	r.cfg.Warnings = append(r.cfg.Warnings, products.Warningf(place, format, args...))
}

// sectionMode is a section's mode, or inherited when it sets none.
func sectionMode(s *section, inherited string) string {
	for _, l := range s.lines {
		if l.words[0] == "mode" && len(l.words) > 1 {
			return l.words[1]
		}
	}
	return inherited
}

// split reads the file's lines into sections.
func (r *reader) split(name string, data []byte) error {
	var cur *section
	n := 0
	proxies := map[string]*section{}
	for line := range strings.Lines(string(data)) {
		n++
		words, err := splitWords(line)
		place := products.Place{File: name, Line: n}
		if err != nil {
			return products.Errorf(place, "%v", err)
		}
		if len(words) == 0 {
			continue
		}
		if slices.Contains(sectionKeywords, words[0]) {
			cur = &section{kind: words[0], place: place}
			if len(words) > 1 {
				cur.name = words[1]
			}
			switch {
			case cur.kind == "frontend" || cur.kind == "backend" || cur.kind == "listen" || cur.kind == "peers":
				if cur.name == "" {
					return products.Errorf(place, "'%s' needs a name: %s NAME", cur.kind, cur.kind)
				}
				// a frontend and a backend may share a name; a listen is
				// both
				for _, kind := range []string{"frontend", "backend"} {
					if cur.kind != "peers" && (cur.kind == kind || cur.kind == "listen") {
						if s, ok := proxies[kind+" "+cur.name]; ok {
							return products.Errorf(place, "%s '%s' has the same name as the %s at %s; give it another", cur.kind, cur.name, s.kind, s.place)
						}
						proxies[kind+" "+cur.name] = cur
					}
				}
			}
			r.sections = append(r.sections, cur)
			continue
		}
		if cur == nil {
			return products.Errorf(place, "unknown keyword '%s' out of section; a configuration starts with a section: global, defaults, frontend NAME, backend NAME or listen NAME", words[0])
		}
		cur.lines = append(cur.lines, cfgLine{place: place, words: words})
	}
	return nil
}

// splitWords splits a line as parse_line does (src/tools.c): words separated by
// spaces, "…" and '…' quoting (quotes may join parts of a word), backslash
// escapes outside single quotes, and # outside quotes starting a comment.
// Environment variables are left as written.
func splitWords(line string) ([]string, error) {
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
