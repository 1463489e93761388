package scenarios

import (
	"fmt"
	"reflect"
	"strings"
)

// Extract returns the scenarios called names, in that order, as the text they
// are written in data, a scenario file read from src: each from its [[scenario]]
// header (and the comment lines right above it) to the next scenario's, with its
// sub-tables, comments and blank lines as they are, so that a shipped scenario
// can be copied out as a starting point without losing a word. The file's own
// leading comment, before the first scenario, is not part of any.
//
// The text is cut, not re-encoded, so Extract checks it: decoded, it must give
// exactly the scenarios of data it names, else it is an error (a file whose
// scenarios are not written as [[scenario]] tables, say). An unknown name is an
// error that suggests the nearest.
func Extract(src Source, data []byte, names []string) (string, error) {
	data, err := utf8Text(src.Name, data)
	if err != nil {
		return "", err
	}
	f, err := decode(src.Name, data)
	if err != nil {
		return "", err
	}
	c := &Catalogue{Source: src, Scenarios: f.Scenarios}
	blocks, err := blocksOf(src.Name, data, len(f.Scenarios))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	var want []Scenario
	for _, name := range names {
		i, err := c.Index(name)
		if err != nil {
			return "", err
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(blocks[i])
		want = append(want, f.Scenarios[i])
	}
	got, err := decode(src.Name, []byte(b.String()))
	if err != nil {
		return "", fmt.Errorf("%s: the scenarios cut out of it do not read back (%v); write them out by hand", src.Name, err)
	}
	if !reflect.DeepEqual(got.Scenarios, want) {
		return "", fmt.Errorf("%s: the scenarios cut out of it read back differently (is every scenario a [[scenario]] table?); write them out by hand", src.Name)
	}
	return b.String(), nil
}

// blocksOf cuts data into the text of each of its n scenarios (see Extract),
// each ending in one newline.
func blocksOf(name string, data []byte, n int) ([]string, error) {
	loc := newLocator(data)
	if len(loc.scenarios) != n {
		return nil, fmt.Errorf("%s: found %d [[scenario]] headers for %d scenarios; cannot tell where each is written", name, len(loc.scenarios), n)
	}
	lines := strings.Split(string(data), "\n")
	starts := make([]int, n+1) // 0-based line of each block's first line
	for i, s := range loc.scenarios {
		start := s.line - 1
		for start > 0 && strings.HasPrefix(strings.TrimSpace(lines[start-1]), "#") {
			start--
		}
		if i > 0 && start <= starts[i-1] {
			start = s.line - 1 // a comment above it belongs to the one before
		}
		starts[i] = start
	}
	starts[n] = len(lines)
	blocks := make([]string, n)
	for i := range n {
		text := strings.Join(lines[starts[i]:starts[i+1]], "\n")
		blocks[i] = strings.TrimRight(text, " \t\r\n") + "\n"
	}
	return blocks, nil
}
