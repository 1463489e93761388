package products

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Node is a value of a YAML or JSON document with the line it starts on: a
// mapping (keys in the file's order), a sequence or a scalar. YAML's anchors
// and aliases are resolved, and << merges a mapping's keys in.
type Node struct {
	Kind  NodeKind
	Line  int
	Value string // a scalar's text
	Tag   string // a scalar's: "!!str", "!!int", "!!float", "!!bool", "!!null"
	Keys  []*Node
	Vals  []*Node // a mapping's values, by keys; a sequence's items
}

// NodeKind is what a Node holds.
type NodeKind int

const (
	// ScalarNode is a single value: a string, a number, a boolean or null.
	ScalarNode NodeKind = iota
	// MapNode is a mapping (a YAML mapping, a JSON object, a TOML table).
	MapNode
	// SeqNode is a sequence (a YAML or JSON list, a TOML array).
	SeqNode
)

// What says in words what a node is, for an error.
func (n *Node) What() string {
	switch n.Kind {
	case MapNode:
		return "a mapping"
	case SeqNode:
		return "a list"
	}
	if n.Tag == "!!null" {
		return "empty"
	}
	return strconv.Quote(n.Value)
}

// Get is the value of a mapping's key, nil when it has none.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != MapNode {
		return nil
	}
	for i, k := range n.Keys {
		if k.Value == key {
			return n.Vals[i]
		}
	}
	return nil
}

// maxDepth is how deep a document may nest: a deeper one is refused rather
// than walked.
const maxDepth = 200

// ParseYAML reads a YAML document (the first of a stream) into a node tree;
// a document that is not YAML is an *Error at its line.
func ParseYAML(name string, data []byte) (*Node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Errorf(Place{File: name}, "the file is empty; write the configuration in it")
		}
		return nil, yamlError(name, err)
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		n, err := fromYAML(name, doc.Content[0], 0, &yamlExpansion{open: map[*yaml.Node]bool{}, left: maxYAMLNodes})
		return n, err
	}
	return nil, Errorf(Place{File: name, Line: doc.Line}, "not a YAML document")
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
	return Errorf(Place{File: name, Line: line}, "not valid YAML: %s; fix the syntax there", msg)
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
func fromYAML(name string, y *yaml.Node, depth int, x *yamlExpansion) (*Node, error) {
	if depth > maxDepth {
		return nil, Errorf(Place{File: name, Line: y.Line}, "nested more than %d deep; ratelab reads configurations less deep", maxDepth)
	}
	if x.left--; x.left < 0 {
		return nil, Errorf(Place{File: name, Line: y.Line}, "its aliases expand to more than %d nodes (aliases that name aliases many times over); write the configuration with fewer aliases", maxYAMLNodes)
	}
	open := x.open
	switch y.Kind {
	case yaml.AliasNode:
		if open[y.Alias] {
			return nil, Errorf(Place{File: name, Line: y.Line}, "the alias *%s refers to itself; expand it", y.Value)
		}
		open[y.Alias] = true
		n, err := fromYAML(name, y.Alias, depth+1, x)
		delete(open, y.Alias)
		if n != nil {
			c := *n
			c.Line = y.Line
			n = &c
		}
		return n, err
	case yaml.ScalarNode:
		return &Node{Kind: ScalarNode, Line: y.Line, Value: y.Value, Tag: y.ShortTag()}, nil
	case yaml.SequenceNode:
		n := &Node{Kind: SeqNode, Line: y.Line}
		for _, c := range y.Content {
			v, err := fromYAML(name, c, depth+1, x)
			if err != nil {
				return nil, err
			}
			n.Vals = append(n.Vals, v)
		}
		return n, nil
	case yaml.MappingNode:
		n := &Node{Kind: MapNode, Line: y.Line}
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, err := fromYAML(name, y.Content[i], depth+1, x)
			if err != nil {
				return nil, err
			}
			v, err := fromYAML(name, y.Content[i+1], depth+1, x)
			if err != nil {
				return nil, err
			}
			if k.Kind != ScalarNode {
				return nil, Errorf(Place{File: name, Line: k.Line}, "a key is %s; write keys as words", k.What())
			}
			if k.Value == "<<" && k.Tag == "!!merge" {
				merge := []*Node{v}
				if v.Kind == SeqNode {
					merge = v.Vals
				}
				for _, m := range merge {
					if m.Kind != MapNode {
						return nil, Errorf(Place{File: name, Line: m.Line}, "<< merges a mapping; this is %s", m.What())
					}
					for j, mk := range m.Keys {
						if n.Get(mk.Value) == nil {
							n.Keys, n.Vals = append(n.Keys, mk), append(n.Vals, m.Vals[j])
						}
					}
				}
				continue
			}
			if n.Get(k.Value) != nil {
				return nil, Errorf(Place{File: name, Line: k.Line}, "%q is given twice in this mapping; keep one", k.Value)
			}
			if v.Kind != ScalarNode && v.Line != k.Line {
				// a block under its key: placed at the key's line
				c := *v
				c.Line = k.Line
				v = &c
			}
			n.Keys, n.Vals = append(n.Keys, k), append(n.Vals, v)
		}
		return n, nil
	}
	return nil, Errorf(Place{File: name, Line: y.Line}, "not a YAML value")
}

// ParseJSON reads a JSON document into a node tree, each value at the line
// it starts on; a document that is not JSON is an *Error at its line.
func ParseJSON(name string, data []byte) (*Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// lineAt is the line of a byte offset
	lineAt := func(off int64) int {
		off = min(max(off, 0), int64(len(data)))
		return 1 + bytes.Count(data[:off], []byte("\n"))
	}
	var read func(depth int) (*Node, error)
	bad := func(err error) error {
		var se *json.SyntaxError
		off := dec.InputOffset()
		if errors.As(err, &se) {
			off = se.Offset
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return Errorf(Place{File: name, Line: lineAt(int64(len(data)))}, "not valid JSON: the file ends inside a value; close its brackets")
		}
		return Errorf(Place{File: name, Line: lineAt(off)}, "not valid JSON: %v; fix the syntax there", err)
	}
	// startLine is the line of the token that starts after offset off:
	// past blanks and the , or : before it
	startLine := func(off int64) int {
		for off < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n,:"), data[off]) >= 0 {
			off++
		}
		return lineAt(off)
	}
	read = func(depth int) (*Node, error) {
		if depth > maxDepth {
			return nil, Errorf(Place{File: name, Line: lineAt(dec.InputOffset())}, "nested more than %d deep; ratelab reads configurations less deep", maxDepth)
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
				n := &Node{Kind: MapNode, Line: line}
				for dec.More() {
					kline := startLine(dec.InputOffset())
					kt, err := dec.Token()
					if err != nil {
						return nil, bad(err)
					}
					key := &Node{Kind: ScalarNode, Line: kline, Value: fmt.Sprint(kt), Tag: "!!str"}
					v, err := read(depth + 1)
					if err != nil {
						return nil, err
					}
					if n.Get(key.Value) != nil {
						return nil, Errorf(Place{File: name, Line: key.Line}, "%q is given twice in this object; keep one", key.Value)
					}
					n.Keys, n.Vals = append(n.Keys, key), append(n.Vals, v)
				}
				if _, err := dec.Token(); err != nil {
					return nil, bad(err)
				}
				return n, nil
			case '[':
				n := &Node{Kind: SeqNode, Line: line}
				for dec.More() {
					v, err := read(depth + 1)
					if err != nil {
						return nil, err
					}
					n.Vals = append(n.Vals, v)
				}
				if _, err := dec.Token(); err != nil {
					return nil, bad(err)
				}
				return n, nil
			}
			return nil, Errorf(Place{File: name, Line: line}, "not valid JSON: %q where a value belongs", t)
		case string:
			return &Node{Kind: ScalarNode, Line: line, Value: t, Tag: "!!str"}, nil
		case json.Number:
			tag := "!!int"
			if strings.ContainsAny(string(t), ".eE") {
				tag = "!!float"
			}
			return &Node{Kind: ScalarNode, Line: line, Value: string(t), Tag: tag}, nil
		case bool:
			return &Node{Kind: ScalarNode, Line: line, Value: strconv.FormatBool(t), Tag: "!!bool"}, nil
		case nil:
			return &Node{Kind: ScalarNode, Line: line, Value: "null", Tag: "!!null"}, nil
		}
		return nil, Errorf(Place{File: name, Line: line}, "not valid JSON")
	}
	n, err := read(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, Errorf(Place{File: name, Line: lineAt(dec.InputOffset())}, "not valid JSON: more after the document's end; keep one JSON value in the file")
	}
	return n, nil
}
