package nginx

import (
	"strings"

	"ratelab/products"
)

// unquote reads a word as ngx_conf_read_token does: surrounding quotes
// removed, and \" \' \\ \t \r \n turned into what they stand for.
func unquote(w string) string {
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

// scan checks a file's structure as ngx_conf_read_token does and lists its
// directives in order (a block's before its contents), with the line nginx
// names for each. Words are split where gonginx splits them, so the two lists
// line up. base is how many blocks hold the file (an included one's); a block
// nested deeper than maxNesting is refused at its line.
func scan(name string, data []byte, base int) ([]scanLine, error) {
	var (
		out   []scanLine
		words []string // the current directive's words so far
		first int      // the line of its first word
		depth int
		line  = 1
		opens []int // the lines of the blocks still open
	)
	bad := func(l int, format string, args ...any) error {
		return products.Errorf(products.Place{File: name, Line: l}, format, args...)
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
			words = append(words, unquote(string(data[from:i])))
		}
	}
	if len(words) > 0 {
		return nil, bad(line, "unexpected end of file, expecting \";\" or \"}\" after %q (line %d)", words[0], first)
	}
	if depth > 0 {
		return nil, bad(line, "unexpected end of file, expecting \"}\" to close the block opened at line %d", opens[len(opens)-1])
	}
	for i := range out {
		out[i].name = unquote(out[i].name)
	}
	return out, nil
}
