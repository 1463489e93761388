package scenarios

import (
	"bytes"
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
	pos := index(data)
	f, err := decode(src.Name, data, pos)
	if err != nil {
		return "", err
	}
	c := &Catalogue{Source: src, Scenarios: f.Scenarios}
	blocks, err := blocksOf(src.Name, data, pos, len(f.Scenarios))
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
	got, err := decode(src.Name, []byte(b.String()), newPositions())
	if err != nil {
		return "", fmt.Errorf("%s: the scenarios cut out of it do not read back (%v); write them out by hand", src.Name, err)
	}
	if !reflect.DeepEqual(got.Scenarios, want) {
		return "", fmt.Errorf("%s: the scenarios cut out of it read back differently (is every scenario a [[scenario]] table?); write them out by hand", src.Name)
	}
	return b.String(), nil
}

// blocksOf cuts data into the text of each of its n scenarios (see Extract),
// each ending in one newline; pos is where data writes its tables.
func blocksOf(name string, data []byte, pos *positions, n int) ([]string, error) {
	headers := make([]int, n) // 1-based line of each scenario's [[scenario]] header
	for i := range n {
		at, ok := pos.at[placeName([]any{"scenario", i})]
		if !ok || !bytes.HasPrefix(bytes.TrimLeft(lineOf(data, at.Line), " \t"), []byte("[[")) {
			return nil, fmt.Errorf("%s: scenario %d is not written as a [[scenario]] table; cannot tell where each is written", name, i+1)
		}
		headers[i] = at.Line
	}
	lines := strings.Split(string(data), "\n")
	starts := make([]int, n+1) // 0-based line of each block's first line
	for i, line := range headers {
		start := line - 1
		for start > 0 && strings.HasPrefix(strings.TrimSpace(lines[start-1]), "#") {
			start--
		}
		if i > 0 && start <= starts[i-1] {
			start = line - 1 // a comment above it belongs to the one before
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

// lineOf is data's line number line (1-based), without its newline.
func lineOf(data []byte, line int) []byte {
	for range line - 1 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return nil
		}
		data = data[i+1:]
	}
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i]
	}
	return data
}
