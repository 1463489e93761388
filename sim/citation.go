package sim

import "regexp"

// citationPattern finds a lesson's citations of its claims: "[id]", the id
// lowercase letters, digits and dashes, standing at the text's start or after
// whitespace or "(". A bracket inside a word cites nothing: a file
// access[1].log or a key user[2] in a lesson written from a log is text.
var citationPattern = regexp.MustCompile(`(?:^|[\s(])(\[([a-z0-9][a-z0-9-]*)\])`)

// Citation is a claim cited in a lesson: its id, and where "[id]" is in the
// text, [Start, End) in bytes.
type Citation struct {
	ID         string
	Start, End int
}

// Citations are the claims text cites, in order.
func Citations(text string) []Citation {
	var out []Citation
	for _, m := range citationPattern.FindAllStringSubmatchIndex(text, -1) {
		out = append(out, Citation{ID: text[m[4]:m[5]], Start: m[2], End: m[3]})
	}
	return out
}
