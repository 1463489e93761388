package products

import (
	"bytes"
	"iter"
	"strings"
)

// Sign is what a product's Detect finds of the product's configuration in a
// file.
type Sign struct {
	// Mark is a mark of the product's files found in it: words only its
	// files write (StrongMark: Envoy's @type, Kong's _format_version), or
	// words its files write where they stand that another's may write too
	// (WeakMark: the rate limit service's top-level domain: and
	// descriptors:).
	Mark Mark
	// Count is how many of its constructs the file holds, for a syntax with
	// no mark (nginx's directives and blocks, HAProxy's sections), and
	// Enough says that is enough to tell the product when no other counts as
	// many.
	Count  int
	Enough bool
}

// Mark is how surely a mark found in a file tells its product.
type Mark int

const (
	// NoMark: the file holds no mark of the product.
	NoMark Mark = iota
	// WeakMark: words the product's files write where they stand, which
	// another product's file may write too.
	WeakMark
	// StrongMark: words only the product's files write.
	StrongMark
)

// Detect tells a configuration's product by its content: the product whose
// mark is the strongest (the first in the list among equals) or, when none
// has a mark, the one whose constructs the file holds the most of, when that
// is Enough and no other holds as many. False when none stands out (a file of
// another format: say which with the product).
func (l List) Detect(data []byte) (*Info, bool) {
	data, _ = TrimBOM(data)
	signs := make([]Sign, len(l))
	marked := -1
	for i, p := range l {
		signs[i] = p.Detect(data)
		if signs[i].Mark > NoMark && (marked < 0 || signs[i].Mark > signs[marked].Mark) {
			marked = i
		}
	}
	if marked >= 0 {
		return l[marked], true
	}
	most, tie := -1, false
	for i, s := range signs {
		switch {
		case most < 0 || s.Count > signs[most].Count:
			most, tie = i, false
		case s.Count == signs[most].Count:
			tie = true
		}
	}
	if most < 0 || tie || !signs[most].Enough {
		return nil, false
	}
	return l[most], true
}

// NotDetected says what Detect looks for, for a message when it finds none.
func (l List) NotDetected() string {
	kinds := make([]string, len(l))
	for i, p := range l {
		kinds[i] = p.File + " (" + p.Shows + ")"
	}
	return "not a configuration ratelab tells by its content: " + joinOr(kinds)
}

// joinOr writes words as a list: "a", "a or b", "a, b or c".
func joinOr(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// OpensJSON says data opens as a JSON document does, with { or [.
func OpensJSON(data []byte) bool {
	t := bytes.TrimSpace(data)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// TextLine is a line of a configuration whose syntax is lines of words
// (nginx's, HAProxy's), as a detector reads it: the line as written, trimmed,
// and its first word.
type TextLine struct {
	Line, Trimmed, Word []byte
}

// TextLines are data's lines that hold more than blanks or a comment (#).
func TextLines(data []byte) iter.Seq[TextLine] {
	return func(yield func(TextLine) bool) {
		for line := range bytes.Lines(data) {
			t := bytes.TrimSpace(line)
			if len(t) == 0 || t[0] == '#' {
				continue
			}
			word := t
			if i := bytes.IndexAny(t, " \t"); i >= 0 {
				word = t[:i]
			}
			if !yield(TextLine{line, t, word}) {
				return
			}
		}
	}
}
