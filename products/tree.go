package products

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// node is a value of a YAML or JSON document with the line it starts on: a
// mapping (keys in the file's order), a sequence or a scalar. YAML's anchors
// and aliases are resolved, and << merges a mapping's keys in.
type node struct {
	kind  nodeKind
	line  int
	value string // a scalar's text
	tag   string // a scalar's: "!!str", "!!int", "!!float", "!!bool", "!!null"
	keys  []*node
	vals  []*node // a mapping's values, by keys; a sequence's items
}

type nodeKind int

const (
	scalarNode nodeKind = iota
	mapNode
	seqNode
)

// what says in words what a node is, for an error.
func (n *node) what() string {
	switch n.kind {
	case mapNode:
		return "a mapping"
	case seqNode:
		return "a list"
	}
	if n.tag == "!!null" {
		return "empty"
	}
	return strconv.Quote(n.value)
}

// get is the value of a mapping's key, nil when it has none.
func (n *node) get(key string) *node {
	if n == nil || n.kind != mapNode {
		return nil
	}
	for i, k := range n.keys {
		if k.value == key {
			return n.vals[i]
		}
	}
	return nil
}

// maxDepth is how deep a document may nest: a deeper one is refused rather
// than walked.
const maxDepth = 200

// parseYAML reads a YAML document (the first of a stream) into a node tree;
// a document that is not YAML is an *Error at its line.
func parseYAML(name string, data []byte) (*node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errorf(Place{File: name}, "the file is empty; write the configuration in it")
		}
		return nil, yamlError(name, err)
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		n, err := fromYAML(name, doc.Content[0], 0, &yamlExpansion{open: map[*yaml.Node]bool{}, left: maxYAMLNodes})
		return n, err
	}
	return nil, errorf(Place{File: name, Line: doc.Line}, "not a YAML document")
}

// yamlError places a YAML parser's error at its line ("yaml: line 3: …").
func yamlError(name string, err error) *Error {
	msg := err.Error()
	line := 0
	if rest, ok := strings.CutPrefix(msg, "yaml: line "); ok {
		if num, text, ok := strings.Cut(rest, ":"); ok {
			if l, err := strconv.Atoi(num); err == nil {
				line, msg = l, strings.TrimSpace(text)
			}
		}
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	return errorf(Place{File: name, Line: line}, "not valid YAML: %s; fix the syntax there", msg)
}

// maxYAMLNodes is the most nodes a YAML document may hold once its aliases
// are expanded: far more than any configuration, and few enough that a
// document of a few hundred bytes whose aliases nest (each naming the one
// before several times: a "billion laughs") is refused, not expanded until
// memory runs out.
const maxYAMLNodes = 1 << 20

// yamlExpansion is what converting one document keeps: the aliases being
// expanded (a cycle is an error), and how many more nodes it may make.
type yamlExpansion struct {
	open map[*yaml.Node]bool
	left int
}

// fromYAML converts a yaml.Node, resolving aliases (a cycle is an error) and
// << merge keys.
func fromYAML(name string, y *yaml.Node, depth int, x *yamlExpansion) (*node, error) {
	if depth > maxDepth {
		return nil, errorf(Place{File: name, Line: y.Line}, "nested more than %d deep; ratelab reads configurations less deep", maxDepth)
	}
	if x.left--; x.left < 0 {
		return nil, errorf(Place{File: name, Line: y.Line}, "its aliases expand to more than %d nodes (aliases that name aliases many times over); write the configuration with fewer aliases", maxYAMLNodes)
	}
	open := x.open
	switch y.Kind {
	case yaml.AliasNode:
		if open[y.Alias] {
			return nil, errorf(Place{File: name, Line: y.Line}, "the alias *%s refers to itself; expand it", y.Value)
		}
		open[y.Alias] = true
		n, err := fromYAML(name, y.Alias, depth+1, x)
		delete(open, y.Alias)
		if n != nil {
			c := *n
			c.line = y.Line
			n = &c
		}
		return n, err
	case yaml.ScalarNode:
		return &node{kind: scalarNode, line: y.Line, value: y.Value, tag: y.ShortTag()}, nil
	case yaml.SequenceNode:
		n := &node{kind: seqNode, line: y.Line}
		for _, c := range y.Content {
			v, err := fromYAML(name, c, depth+1, x)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, v)
		}
		return n, nil
	case yaml.MappingNode:
		n := &node{kind: mapNode, line: y.Line}
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, err := fromYAML(name, y.Content[i], depth+1, x)
			if err != nil {
				return nil, err
			}
			v, err := fromYAML(name, y.Content[i+1], depth+1, x)
			if err != nil {
				return nil, err
			}
			if k.kind != scalarNode {
				return nil, errorf(Place{File: name, Line: k.line}, "a key is %s; write keys as words", k.what())
			}
			if k.value == "<<" && k.tag == "!!merge" {
				merge := []*node{v}
				if v.kind == seqNode {
					merge = v.vals
				}
				for _, m := range merge {
					if m.kind != mapNode {
						return nil, errorf(Place{File: name, Line: m.line}, "<< merges a mapping; this is %s", m.what())
					}
					for j, mk := range m.keys {
						if n.get(mk.value) == nil {
							n.keys, n.vals = append(n.keys, mk), append(n.vals, m.vals[j])
						}
					}
				}
				continue
			}
			if n.get(k.value) != nil {
				return nil, errorf(Place{File: name, Line: k.line}, "%q is given twice in this mapping; keep one", k.value)
			}
			if v.kind != scalarNode && v.line != k.line {
				// a block under its key: placed at the key's line
				c := *v
				c.line = k.line
				v = &c
			}
			n.keys, n.vals = append(n.keys, k), append(n.vals, v)
		}
		return n, nil
	}
	return nil, errorf(Place{File: name, Line: y.Line}, "not a YAML value")
}

// parseJSON reads a JSON document into a node tree, each value at the line
// it starts on; a document that is not JSON is an *Error at its line.
func parseJSON(name string, data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// lineAt is the line of a byte offset
	lineAt := func(off int64) int {
		off = min(max(off, 0), int64(len(data)))
		return 1 + bytes.Count(data[:off], []byte("\n"))
	}
	var read func(depth int) (*node, error)
	bad := func(err error) error {
		var se *json.SyntaxError
		off := dec.InputOffset()
		if errors.As(err, &se) {
			off = se.Offset
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return errorf(Place{File: name, Line: lineAt(int64(len(data)))}, "not valid JSON: the file ends inside a value; close its brackets")
		}
		return errorf(Place{File: name, Line: lineAt(off)}, "not valid JSON: %v; fix the syntax there", err)
	}
	// startLine is the line of the token that starts after offset off:
	// past blanks and the , or : before it
	startLine := func(off int64) int {
		for off < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n,:"), data[off]) >= 0 {
			off++
		}
		return lineAt(off)
	}
	read = func(depth int) (*node, error) {
		if depth > maxDepth {
			return nil, errorf(Place{File: name, Line: lineAt(dec.InputOffset())}, "nested more than %d deep; ratelab reads configurations less deep", maxDepth)
		}
		line := startLine(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				n := &node{kind: mapNode, line: line}
				for dec.More() {
					kline := startLine(dec.InputOffset())
					kt, err := dec.Token()
					if err != nil {
						return nil, bad(err)
					}
					key := &node{kind: scalarNode, line: kline, value: fmt.Sprint(kt), tag: "!!str"}
					v, err := read(depth + 1)
					if err != nil {
						return nil, err
					}
					if n.get(key.value) != nil {
						return nil, errorf(Place{File: name, Line: key.line}, "%q is given twice in this object; keep one", key.value)
					}
					n.keys, n.vals = append(n.keys, key), append(n.vals, v)
				}
				if _, err := dec.Token(); err != nil {
					return nil, bad(err)
				}
				return n, nil
			case '[':
				n := &node{kind: seqNode, line: line}
				for dec.More() {
					v, err := read(depth + 1)
					if err != nil {
						return nil, err
					}
					n.vals = append(n.vals, v)
				}
				if _, err := dec.Token(); err != nil {
					return nil, bad(err)
				}
				return n, nil
			}
			return nil, errorf(Place{File: name, Line: line}, "not valid JSON: %q where a value belongs", t)
		case string:
			return &node{kind: scalarNode, line: line, value: t, tag: "!!str"}, nil
		case json.Number:
			tag := "!!int"
			if strings.ContainsAny(string(t), ".eE") {
				tag = "!!float"
			}
			return &node{kind: scalarNode, line: line, value: string(t), tag: tag}, nil
		case bool:
			return &node{kind: scalarNode, line: line, value: strconv.FormatBool(t), tag: "!!bool"}, nil
		case nil:
			return &node{kind: scalarNode, line: line, value: "null", tag: "!!null"}, nil
		}
		return nil, errorf(Place{File: name, Line: line}, "not valid JSON")
	}
	n, err := read(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errorf(Place{File: name, Line: lineAt(dec.InputOffset())}, "not valid JSON: more after the document's end; keep one JSON value in the file")
	}
	return n, nil
}

// reader reads fields of a node tree, naming each error's place and fix.
type reader struct {
	file string
	w    *[]Warning
}

func (r reader) at(n *node) Place { return Place{File: r.file, Line: n.line} }

func (r reader) errorf(n *node, format string, args ...any) *Error {
	return errorf(r.at(n), format, args...)
}

func (r reader) warn(n *node, format string, args ...any) {
	*r.w = append(*r.w, warning(r.at(n), format, args...))
}

// fields checks that m is a mapping whose keys are among known (what says
// what m is, for the message).
func (r reader) fields(m *node, what string, known ...string) error {
	if m.kind != mapNode {
		return r.errorf(m, "%s must be a mapping of %s; it is %s", what, strings.Join(known, ", "), m.what())
	}
	for _, k := range m.keys {
		if !slices.Contains(known, k.value) {
			return r.errorf(k, "%s has no field %q; its fields are %s", what, k.value, strings.Join(known, ", "))
		}
	}
	return nil
}

// str reads a string (a scalar that is not null).
func (r reader) str(n *node, what string) (string, error) {
	if n.kind != scalarNode || n.tag == "!!null" {
		return "", r.errorf(n, "%s must be a string; it is %s", what, n.what())
	}
	return n.value, nil
}

// integer reads a whole number from lo to hi (JSON writes 64-bit integers
// of protobuf as strings too).
func (r reader) integer(n *node, what string, lo, hi int64) (int64, error) {
	if n.kind != scalarNode || n.tag == "!!null" || n.tag == "!!bool" {
		return 0, r.errorf(n, "%s must be a whole number from %d to %d; it is %s", what, lo, hi, n.what())
	}
	v, err := strconv.ParseInt(strings.TrimSpace(n.value), 10, 64)
	if err != nil {
		if f, ferr := strconv.ParseFloat(n.value, 64); ferr == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			v, err = int64(f), nil
		}
	}
	if err != nil || v < lo || v > hi {
		return 0, r.errorf(n, "%s must be a whole number from %d to %d; it is %s", what, lo, hi, n.what())
	}
	return v, nil
}

// number reads a number from lo to hi.
func (r reader) number(n *node, what string, lo, hi float64) (float64, error) {
	if n.kind == scalarNode && n.tag != "!!null" && n.tag != "!!bool" {
		if v, err := strconv.ParseFloat(strings.TrimSpace(n.value), 64); err == nil && v >= lo && v <= hi {
			return v, nil
		}
	}
	return 0, r.errorf(n, "%s must be a number from %g to %g; it is %s", what, lo, hi, n.what())
}

// boolean reads true or false.
func (r reader) boolean(n *node, what string) (bool, error) {
	if n.kind == scalarNode {
		switch strings.ToLower(n.value) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, r.errorf(n, "%s must be true or false; it is %s", what, n.what())
}

// protoDuration reads a google.protobuf.Duration as YAML and JSON write it:
// seconds with up to 9 decimals and an "s" ("1s", "0.5s"), or a mapping of
// seconds and nanos.
func (r reader) protoDuration(n *node, what string) (time.Duration, error) {
	bad := func() error {
		return r.errorf(n, "%s must be a duration in seconds such as \"1s\" or \"0.25s\" (or {seconds: 1, nanos: 0}); it is %s", what, n.what())
	}
	if n.kind == mapNode {
		if err := r.fields(n, what, "seconds", "nanos"); err != nil {
			return 0, err
		}
		var s, ns int64
		var err error
		if v := n.get("seconds"); v != nil {
			if s, err = r.integer(v, what+".seconds", 0, 315576000000); err != nil {
				return 0, err
			}
		}
		if v := n.get("nanos"); v != nil {
			if ns, err = r.integer(v, what+".nanos", 0, 999999999); err != nil {
				return 0, err
			}
		}
		if s > math.MaxInt64/int64(time.Second)-1 {
			return 0, bad()
		}
		return time.Duration(s)*time.Second + time.Duration(ns), nil
	}
	if n.kind != scalarNode {
		return 0, bad()
	}
	num, ok := strings.CutSuffix(strings.TrimSpace(n.value), "s")
	if !ok || num == "" || strings.HasPrefix(num, "-") || strings.HasPrefix(num, "+") {
		return 0, bad()
	}
	whole, frac, _ := strings.Cut(num, ".")
	if len(frac) > 9 || whole == "" && frac == "" {
		return 0, bad()
	}
	s, err := strconv.ParseInt(cmpOr(whole, "0"), 10, 64)
	if err != nil || s > math.MaxInt64/int64(time.Second)-1 {
		return 0, bad()
	}
	var ns int64
	if frac != "" {
		if ns, err = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64); err != nil {
			return 0, bad()
		}
	}
	return time.Duration(s)*time.Second + time.Duration(ns), nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
