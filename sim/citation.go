package sim

import "strings"

// A lesson cites its claims as "[id]", the id lowercase letters, digits and
// dashes (not starting with a dash), standing as a word: at the text's start or
// after whitespace or "(". A bracket inside a word cites nothing: a file
// access[1].log or a key user[2] in a lesson written from a log is text.

// Citation is a claim cited in a lesson: its id, and where "[id]" is in the
// text, [Start, End) in bytes.
type Citation struct {
	ID         string
	Start, End int
}

// ValidClaimID says id can be a claim's id, and so be cited: lowercase
// letters, digits and dashes, not starting with a dash.
func ValidClaimID(id string) bool {
	for i := range len(id) {
		if !idByte(id[i], i == 0) {
			return false
		}
	}
	return id != ""
}

// Citations are the claims text cites, in order. It reads the text once.
func Citations(text string) []Citation {
	var out []Citation
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '[')
		if j < 0 {
			break
		}
		start := i + j
		i = start + 1
		if start > 0 && !opensCitation(text[start-1]) {
			continue
		}
		end := start + 1
		for end < len(text) && idByte(text[end], end == start+1) {
			end++
		}
		if end == start+1 || end == len(text) || text[end] != ']' {
			continue
		}
		out = append(out, Citation{ID: text[start+1 : end], Start: start, End: end + 1})
		i = end + 1
	}
	return out
}

// opensCitation says a citation may follow b: whitespace or "(".
func opensCitation(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '('
}

// idByte says b may be in a claim's id: a lowercase letter or a digit, or a
// dash after the first.
func idByte(b byte, first bool) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' && !first
}
