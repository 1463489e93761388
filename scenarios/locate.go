package scenarios

import (
	"regexp"
	"strings"
)

// locator finds the line a scenario's table or key was written on, so validation
// errors can name file:line as decode errors do. It reads the file's table headers
// and key lines (skipping multi-line strings), which is all it needs: the decoder
// has already accepted the file.
type locator struct {
	scenarios []*tableLoc
}

// tableLoc is one table: its header line, its keys' lines, its sub-tables.
type tableLoc struct {
	line     int
	keys     map[string]int
	children map[string][]*tableLoc
}

func newTableLoc(line int) *tableLoc {
	return &tableLoc{line: line, keys: map[string]int{}, children: map[string][]*tableLoc{}}
}

var (
	arrayHeader = regexp.MustCompile(`^\s*\[\[\s*([\w.\-]+)\s*\]\]`)
	tableHeader = regexp.MustCompile(`^\s*\[\s*([\w.\-]+)\s*\]`)
	keyLine     = regexp.MustCompile(`^\s*([\w\-]+)\s*[.=]`)
)

func newLocator(data []byte) *locator {
	l := &locator{}
	var cur *tableLoc
	inString := false
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		if inString {
			if strings.Count(line, `"""`)%2 == 1 || strings.Count(line, `'''`)%2 == 1 {
				inString = false
			}
			continue
		}
		if m := arrayHeader.FindStringSubmatch(line); m != nil {
			cur = l.open(strings.Split(m[1], "."), n, true)
			continue
		}
		if m := tableHeader.FindStringSubmatch(line); m != nil {
			cur = l.open(strings.Split(m[1], "."), n, false)
			continue
		}
		if m := keyLine.FindStringSubmatch(line); m != nil && cur != nil {
			if _, seen := cur.keys[m[1]]; !seen {
				cur.keys[m[1]] = n
			}
		}
		if strings.Count(line, `"""`)%2 == 1 || strings.Count(line, `'''`)%2 == 1 {
			inString = true
		}
	}
	return l
}

// open starts the table at path (appending to an array of tables when array).
func (l *locator) open(path []string, line int, array bool) *tableLoc {
	if len(path) == 0 || path[0] != "scenario" {
		return nil
	}
	if len(path) == 1 {
		t := newTableLoc(line)
		l.scenarios = append(l.scenarios, t)
		return t
	}
	if len(l.scenarios) == 0 {
		return nil
	}
	t := l.scenarios[len(l.scenarios)-1]
	for i, step := range path[1:] {
		last := i == len(path)-2
		kids := t.children[step]
		if last && (array || len(kids) == 0) {
			child := newTableLoc(line)
			t.children[step] = append(kids, child)
			return child
		}
		if len(kids) == 0 {
			return nil
		}
		t = kids[len(kids)-1]
	}
	return t
}

// line returns the line of scenario s's table or key at path, which alternates
// table names with array indexes where they apply ("client", 2, "rate"); the
// deepest part found wins, and 0 means not even the scenario was found.
func (l *locator) line(s int, path ...any) int {
	if l == nil || s >= len(l.scenarios) {
		return 0
	}
	t := l.scenarios[s]
	best := t.line
	for i := 0; i < len(path); i++ {
		name, _ := path[i].(string)
		if n, ok := t.keys[name]; ok && i == len(path)-1 {
			return n
		}
		kids := t.children[name]
		idx := 0
		if i+1 < len(path) {
			if k, ok := path[i+1].(int); ok {
				idx = k
				i++
			}
		}
		if idx >= len(kids) {
			if n, ok := t.keys[name]; ok {
				return n // an inline table or array
			}
			return best
		}
		t = kids[idx]
		best = t.line
	}
	return best
}
