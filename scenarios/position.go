package scenarios

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// positions are where a scenario file writes each of its tables and values, read
// by go-toml's own parser, so a problem found after decoding (a rate below zero, a
// lane naming an unknown client) is placed at its line and column as the
// decoder's own errors are.
//
// A place is a path from the file's top: table and key names, with the index of
// an array's element after its name — "scenario", 0, "client", 2, "rate" — as
// the decoded File holds them. A key-value is placed at its value, a table at
// its header's opening bracket.
//
// The index also says which value starts where, and of what kind (a string, an
// integer, an array…), so an error go-toml places at a value can name the key
// it was written for, inside an inline table too, and what was written.
type positions struct {
	at     map[string]unstable.Position
	values map[[2]int]value // by line and column
	// text is the line a string value's text starts on: its opening quote's,
	// or the next line for a multi-line string that starts with a line break
	// (which TOML drops)
	text map[string]int
	// remaps place parts of a scenario where others are written (move): a
	// lookup under a remap's dst is made under its src instead
	remaps []remap
}

// remap makes the places under dst those under src.
type remap struct{ dst, src string }

// name is where a place's name is looked up: under the src of the last
// remap whose dst holds it, else itself.
func (ps *positions) name(path []any) string {
	n := placeName(path)
	for i := len(ps.remaps) - 1; i >= 0; i-- {
		if r := ps.remaps[i]; n == r.dst || strings.HasPrefix(n, r.dst+"/") {
			return r.src + n[len(r.dst):]
		}
	}
	return n
}

// value is a value as written: its kind, and its key from the file's top, table
// and key names only ("scenario", "client", "retry", "policy").
type value struct {
	kind unstable.Kind
	key  []string
	// element says the value is an element of an array, not the key's value
	element bool
}

func newPositions() *positions {
	return &positions{at: map[string]unstable.Position{}, values: map[[2]int]value{}, text: map[string]int{}}
}

// index reads data with go-toml's parser. A document it cannot parse gives no
// places; the decoder reports why.
func index(data []byte) *positions {
	ps := newPositions()
	p := &unstable.Parser{}
	p.Reset(data)
	var table []any            // the current table's path
	counts := map[string]int{} // elements of each array of tables so far, by its path
	for p.NextExpression() {
		e := p.Expression()
		key, first, last := keyOf(e)
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = ps.resolve(key, counts)
			if e.Kind == unstable.ArrayTable {
				name := placeName(table)
				table = append(table, counts[name])
				counts[name]++
			}
			ps.put(table, p.Shape(header(data, first)).Start)
		case unstable.KeyValue:
			ps.keyValue(p, append(append([]any(nil), table...), key...), last, e.Value())
		}
	}
	if p.Error() != nil {
		return newPositions()
	}
	return ps
}

// resolve is the path of a table header's key: each part that names an array of
// tables continues in its latest element.
func (ps *positions) resolve(key []any, counts map[string]int) []any {
	var path []any
	for i, k := range key {
		path = append(path, k)
		if i == len(key)-1 {
			break
		}
		if n := counts[placeName(path)]; n > 0 {
			path = append(path, n-1)
		}
	}
	return path
}

// keyValue places a key-value at path, its key's last part at key, and the
// values inside an inline table or an array.
func (ps *positions) keyValue(p *unstable.Parser, path []any, key unstable.Range, v *unstable.Node) {
	after := valueAfter(p.Data(), key)
	where := p.Shape(after).Start
	ps.put(path, where)
	if v.Kind == unstable.String {
		line, rest := where.Line, p.Data()[after.Offset:]
		if (bytes.HasPrefix(rest, []byte(`"""`)) || bytes.HasPrefix(rest, []byte("'''"))) &&
			(bytes.HasPrefix(rest[3:], []byte("\n")) || bytes.HasPrefix(rest[3:], []byte("\r\n"))) {
			line++
		}
		if _, seen := ps.text[placeName(path)]; !seen {
			ps.text[placeName(path)] = line
		}
	}
	ps.values[[2]int{where.Line, where.Column}] = value{v.Kind, keyNames(path), false}
	switch v.Kind {
	case unstable.InlineTable:
		ps.inline(p, path, v)
	case unstable.Array:
		it := v.Children()
		for i := 0; it.Next(); i++ {
			el := it.Node()
			if el.Raw.Length == 0 { // a nested array: the parser gives it no range
				continue
			}
			at := p.Shape(el.Raw).Start
			ps.values[[2]int{at.Line, at.Column}] = value{el.Kind, keyNames(path), true}
			elPath := append(append([]any(nil), path...), i)
			ps.put(elPath, at)
			if el.Kind == unstable.InlineTable {
				ps.inline(p, elPath, el)
			}
		}
	}
}

// valueAfter is where a key-value's value starts, given its key's last part:
// after the key, the equals sign and the blanks around it. (The parser gives an
// array no range of its own.)
func valueAfter(data []byte, key unstable.Range) unstable.Range {
	at := int(key.Offset + key.Length)
	if at < len(data) && (data[at] == '"' || data[at] == '\'') { // a quoted key's closing quote
		at++
	}
	for at < len(data) && (data[at] == ' ' || data[at] == '\t' || data[at] == '=') {
		at++
	}
	return unstable.Range{Offset: uint32(at)}
}

// valueAt is the value the file writes at line and column, if one starts there.
func (ps *positions) valueAt(line, column int) (value, bool) {
	v, ok := ps.values[[2]int{line, column}]
	return v, ok
}

// keyNames is a place's table and key names, without array indexes.
func keyNames(path []any) []string {
	var names []string
	for _, p := range path {
		if s, ok := p.(string); ok {
			names = append(names, s)
		}
	}
	return names
}

// inline places an inline table's key-values under path.
func (ps *positions) inline(p *unstable.Parser, path []any, t *unstable.Node) {
	it := t.Children()
	for it.Next() {
		kv := it.Node()
		if kv.Kind != unstable.KeyValue {
			continue
		}
		key, _, last := keyOf(kv)
		ps.keyValue(p, append(append([]any(nil), path...), key...), last, kv.Value())
	}
}

func (ps *positions) put(path []any, at unstable.Position) {
	if _, seen := ps.at[placeName(path)]; !seen { // a key written twice is the decoder's error
		ps.at[placeName(path)] = at
	}
}

// of is where scenario s writes the place at path (relative to the scenario),
// or the nearest table holding it when the file leaves it out (a default): the
// deepest part of path the file writes. ok is false when not even the scenario
// is found.
func (ps *positions) of(s int, path ...any) (at unstable.Position, ok bool) {
	if ps == nil {
		return at, false
	}
	full := append([]any{"scenario", s}, path...)
	for n := len(full); n >= 2; n-- {
		if at, ok := ps.at[ps.name(full[:n])]; ok {
			return at, true
		}
	}
	return at, false
}

// wrote says scenario s writes the place at path itself (not a default).
func (ps *positions) wrote(s int, path ...any) bool {
	if ps == nil {
		return false
	}
	_, ok := ps.at[ps.name(append([]any{"scenario", s}, path...))]
	return ok
}

// header is a table header's range from its opening bracket, given its key's:
// "[[scenario.client]]" is placed at its first "[".
func header(data []byte, key unstable.Range) unstable.Range {
	at := key.Offset
	for at > 0 && (data[at-1] == '[' || data[at-1] == ' ' || data[at-1] == '\t') {
		at--
	}
	return unstable.Range{Offset: at}
}

// keyOf is an expression's key, as path parts, and the ranges of its first and
// last parts.
func keyOf(e *unstable.Node) (key []any, first, last unstable.Range) {
	it := e.Key()
	for it.Next() {
		n := it.Node()
		if len(key) == 0 {
			first = n.Raw
		}
		last = n.Raw
		key = append(key, string(n.Data))
	}
	return key, first, last
}

// placeName writes a path as one string, a map key: scenario/0/client/2/rate.
func placeName(path []any) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = fmt.Sprint(p)
	}
	return strings.Join(parts, "/")
}

// place is file:line:col of the place at path in scenario s (see of), or the
// file's name alone when the file does not hold it.
func (ps *positions) place(file string, s int, path ...any) string {
	if at, ok := ps.of(s, path...); ok {
		return fmt.Sprintf("%s:%d:%d", file, at.Line, at.Column)
	}
	return file
}

// textLine is the line the text of the string at path in scenario s starts
// on (see positions.text); false when the file does not write it.
func (ps *positions) textLine(s int, path ...any) (int, bool) {
	if ps == nil {
		return 0, false
	}
	line, ok := ps.text[ps.name(append([]any{"scenario", s}, path...))]
	return line, ok
}

// clone is a copy of ps whose places can be moved without changing ps; it
// shares ps's maps, which it only reads.
func (ps *positions) clone() *positions {
	if ps == nil {
		return nil
	}
	c := *ps
	c.remaps = slices.Clone(ps.remaps)
	return &c
}

// move makes the places under from, in scenario s, those under to: a part
// the scenario is compiled with in place of its own (an exercise's lane) is
// placed where it is written. Places under from that to does not write are
// not found, so a default is placed at the part's table.
func (ps *positions) move(s int, from, to []any) {
	if ps == nil {
		return
	}
	ps.remaps = append(ps.remaps, remap{dst: placeName(append([]any{"scenario", s}, from...)), src: placeName(append([]any{"scenario", s}, to...))})
}
