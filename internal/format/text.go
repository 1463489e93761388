package format

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Clip is s in at most n columns, an ellipsis ending what was cut.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Wrap breaks s into lines of at most width columns at spaces (a word longer
// than a line is cut).
func Wrap(s string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		for utf8.RuneCountInString(w) > width {
			r := []rune(w)
			if line != "" {
				out, line = append(out, line), ""
			}
			out, w = append(out, string(r[:width])), string(r[width:])
		}
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
			line += " " + w
		default:
			out, line = append(out, line), w
		}
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// Plural is "1 request" or "3 requests": n and the word for it.
func Plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// ShellQuote is s as a shell word: as is when it is plain, else in single
// quotes (a quote in it closed, escaped with a backslash and reopened).
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./+=:,@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
