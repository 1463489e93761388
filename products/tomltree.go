package products

import (
	"errors"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// ParseTOML reads a TOML document into a node tree (go-toml's parser, each
// value at its key's line); a document that is not TOML is an *Error at its
// line.
func ParseTOML(name string, data []byte) (root *Node, err error) {
	var p unstable.Parser
	p.Reset(data)
	line := func(r unstable.Range) int {
		if int(r.Offset)+int(r.Length) > len(data) {
			return 0
		}
		return p.Shape(r).Start.Line
	}
	root = &Node{Kind: MapNode, Line: 1}
	cur := root
	// at finds or makes the mapping at path under m (a key holding a list
	// of tables is its last table)
	at := func(m *Node, keys []*Node) (*Node, error) {
		for _, k := range keys {
			v := m.Get(k.Value)
			if v == nil {
				v = &Node{Kind: MapNode, Line: k.Line}
				m.Keys, m.Vals = append(m.Keys, k), append(m.Vals, v)
			}
			if v.Kind == SeqNode && len(v.Vals) > 0 {
				v = v.Vals[len(v.Vals)-1]
			}
			if v.Kind != MapNode {
				return nil, Errorf(Place{File: name, Line: k.Line}, "%q is a value already, not a table; rename one", k.Value)
			}
			m = v
		}
		return m, nil
	}
	keysOf := func(it unstable.Iterator) []*Node {
		var ks []*Node
		for it.Next() {
			n := it.Node()
			ks = append(ks, &Node{Kind: ScalarNode, Line: line(n.Raw), Value: string(n.Data), Tag: "!!str"})
		}
		return ks
	}
	var value func(n *unstable.Node, l int, depth int) (*Node, error)
	value = func(n *unstable.Node, l int, depth int) (*Node, error) {
		if depth > maxDepth {
			return nil, Errorf(Place{File: name, Line: l}, "nested more than %d deep; ratelab reads configurations less deep", maxDepth)
		}
		switch n.Kind {
		case unstable.Array:
			s := &Node{Kind: SeqNode, Line: l}
			it := n.Children()
			for it.Next() {
				v, err := value(it.Node(), l, depth+1)
				if err != nil {
					return nil, err
				}
				s.Vals = append(s.Vals, v)
			}
			return s, nil
		case unstable.InlineTable:
			m := &Node{Kind: MapNode, Line: l}
			it := n.Children()
			for it.Next() {
				if err := keyValue(m, it.Node(), depth+1, value, at, keysOf, name); err != nil {
					return nil, err
				}
			}
			return m, nil
		case unstable.Integer:
			return &Node{Kind: ScalarNode, Line: l, Value: strings.ReplaceAll(string(n.Data), "_", ""), Tag: "!!int"}, nil
		case unstable.Float:
			return &Node{Kind: ScalarNode, Line: l, Value: strings.ReplaceAll(string(n.Data), "_", ""), Tag: "!!float"}, nil
		case unstable.Bool:
			return &Node{Kind: ScalarNode, Line: l, Value: string(n.Data), Tag: "!!bool"}, nil
		}
		return &Node{Kind: ScalarNode, Line: l, Value: string(n.Data), Tag: "!!str"}, nil
	}
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, Errorf(Place{File: name}, "not valid TOML (%v); fix the syntax", r)
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
			s := parent.Get(last.Value)
			if s == nil {
				s = &Node{Kind: SeqNode, Line: last.Line}
				parent.Keys, parent.Vals = append(parent.Keys, last), append(parent.Vals, s)
			}
			if s.Kind != SeqNode {
				return nil, Errorf(Place{File: name, Line: last.Line}, "%q is a value already, not a list of tables; rename one", last.Value)
			}
			cur = &Node{Kind: MapNode, Line: last.Line}
			s.Vals = append(s.Vals, cur)
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
		return nil, Errorf(Place{File: name, Line: l}, "not valid TOML: %v; fix the syntax there", perr)
	}
	return root, nil
}

// keyValue puts a key = value (a dotted key's tables made) into m.
func keyValue(m *Node, kv *unstable.Node, depth int,
	value func(*unstable.Node, int, int) (*Node, error),
	at func(*Node, []*Node) (*Node, error),
	keysOf func(unstable.Iterator) []*Node, name string) error {
	ks := keysOf(kv.Key())
	if len(ks) == 0 {
		return Errorf(Place{File: name}, "a key = value without a key")
	}
	parent, err := at(m, ks[:len(ks)-1])
	if err != nil {
		return err
	}
	last := ks[len(ks)-1]
	if parent.Get(last.Value) != nil {
		return Errorf(Place{File: name, Line: last.Line}, "%q is given twice in this table; keep one", last.Value)
	}
	v, err := value(kv.Value(), last.Line, depth+1)
	if err != nil {
		return err
	}
	parent.Keys, parent.Vals = append(parent.Keys, last), append(parent.Vals, v)
	return nil
}
