package products

import (
	"errors"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// parseTOML reads a TOML document into a node tree (go-toml's parser, each
// value at its key's line); a document that is not TOML is an *Error at its
// line.
func parseTOML(name string, data []byte) (root *node, err error) {
	var p unstable.Parser
	p.Reset(data)
	line := func(r unstable.Range) int {
		if int(r.Offset)+int(r.Length) > len(data) {
			return 0
		}
		return p.Shape(r).Start.Line
	}
	root = &node{kind: mapNode, line: 1}
	cur := root
	// at finds or makes the mapping at path under m (a key holding a list
	// of tables is its last table)
	at := func(m *node, keys []*node) (*node, error) {
		for _, k := range keys {
			v := m.get(k.value)
			if v == nil {
				v = &node{kind: mapNode, line: k.line}
				m.keys, m.vals = append(m.keys, k), append(m.vals, v)
			}
			if v.kind == seqNode && len(v.vals) > 0 {
				v = v.vals[len(v.vals)-1]
			}
			if v.kind != mapNode {
				return nil, errorf(Place{File: name, Line: k.line}, "%q is a value already, not a table; rename one", k.value)
			}
			m = v
		}
		return m, nil
	}
	keysOf := func(it unstable.Iterator) []*node {
		var ks []*node
		for it.Next() {
			n := it.Node()
			ks = append(ks, &node{kind: scalarNode, line: line(n.Raw), value: string(n.Data), tag: "!!str"})
		}
		return ks
	}
	var value func(n *unstable.Node, l int, depth int) (*node, error)
	value = func(n *unstable.Node, l int, depth int) (*node, error) {
		if depth > maxDepth {
			return nil, errorf(Place{File: name, Line: l}, "nested more than %d deep; ratelab reads configurations less deep", maxDepth)
		}
		switch n.Kind {
		case unstable.Array:
			s := &node{kind: seqNode, line: l}
			it := n.Children()
			for it.Next() {
				v, err := value(it.Node(), l, depth+1)
				if err != nil {
					return nil, err
				}
				s.vals = append(s.vals, v)
			}
			return s, nil
		case unstable.InlineTable:
			m := &node{kind: mapNode, line: l}
			it := n.Children()
			for it.Next() {
				if err := keyValue(m, it.Node(), depth+1, value, at, keysOf, name); err != nil {
					return nil, err
				}
			}
			return m, nil
		case unstable.Integer:
			return &node{kind: scalarNode, line: l, value: strings.ReplaceAll(string(n.Data), "_", ""), tag: "!!int"}, nil
		case unstable.Float:
			return &node{kind: scalarNode, line: l, value: strings.ReplaceAll(string(n.Data), "_", ""), tag: "!!float"}, nil
		case unstable.Bool:
			return &node{kind: scalarNode, line: l, value: string(n.Data), tag: "!!bool"}, nil
		}
		return &node{kind: scalarNode, line: l, value: string(n.Data), tag: "!!str"}, nil
	}
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, errorf(Place{File: name}, "not valid TOML (%v); fix the syntax", r)
		}
	}()
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			if cur, err = at(root, keysOf(e.Key())); err != nil {
				return nil, err
			}
		case unstable.ArrayTable:
			ks := keysOf(e.Key())
			parent, err := at(root, ks[:len(ks)-1])
			if err != nil {
				return nil, err
			}
			last := ks[len(ks)-1]
			s := parent.get(last.value)
			if s == nil {
				s = &node{kind: seqNode, line: last.line}
				parent.keys, parent.vals = append(parent.keys, last), append(parent.vals, s)
			}
			if s.kind != seqNode {
				return nil, errorf(Place{File: name, Line: last.line}, "%q is a value already, not a list of tables; rename one", last.value)
			}
			cur = &node{kind: mapNode, line: last.line}
			s.vals = append(s.vals, cur)
		case unstable.KeyValue:
			if err := keyValue(cur, e, 0, value, at, keysOf, name); err != nil {
				return nil, err
			}
		}
	}
	if perr := p.Error(); perr != nil {
		l := 0
		var pe *unstable.ParserError
		if errors.As(perr, &pe) && len(pe.Highlight) > 0 {
			func() {
				defer func() { _ = recover() }()
				l = p.Shape(p.Range(pe.Highlight)).Start.Line
			}()
		}
		return nil, errorf(Place{File: name, Line: l}, "not valid TOML: %v; fix the syntax there", perr)
	}
	return root, nil
}

// keyValue puts a key = value (a dotted key's tables made) into m.
func keyValue(m *node, kv *unstable.Node, depth int,
	value func(*unstable.Node, int, int) (*node, error),
	at func(*node, []*node) (*node, error),
	keysOf func(unstable.Iterator) []*node, name string) error {
	ks := keysOf(kv.Key())
	if len(ks) == 0 {
		return errorf(Place{File: name}, "a key = value without a key")
	}
	parent, err := at(m, ks[:len(ks)-1])
	if err != nil {
		return err
	}
	last := ks[len(ks)-1]
	if parent.get(last.value) != nil {
		return errorf(Place{File: name, Line: last.line}, "%q is given twice in this table; keep one", last.value)
	}
	v, err := value(kv.Value(), last.line, depth+1)
	if err != nil {
		return err
	}
	parent.keys, parent.vals = append(parent.keys, last), append(parent.vals, v)
	return nil
}
