package nginx

import (
	"bytes"
	"regexp"

	"ratelab/products"
)

// detect counts nginx's directives (a name of lowercase letters, digits
// and _, its words ended by ; or {), and its blocks and limit_req directives
// wherever they stand, for a file that writes several on a line ("http {
// server { location / { … } } }"), which the line ends do not show; one is
// enough.
func detect(data []byte) products.Sign {
	n := 0
	for l := range products.TextLines(data) {
		if last := l.Trimmed[len(l.Trimmed)-1]; (last == ';' || last == '{') && isDirectiveName(l.Word) {
			n++
		}
	}
	n += 2 * len(blocks.FindAllIndex(data, -1))
	return products.Sign{Count: n, Enough: n >= 1}
}

// blocks finds nginx's own block openings and its limit_req directives.
var blocks = regexp.MustCompile(`(?m)(^|[;{}\s])((events|http|server|upstream|stream|limit_except)\s*\{|location\s+[^{};\n]+\{|limit_req(_zone)?\s+[^;\n]*;)`)

// isDirectiveName says w can be an nginx directive's name.
func isDirectiveName(w []byte) bool {
	w = bytes.TrimRight(w, ";{")
	if len(w) == 0 {
		return false
	}
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
