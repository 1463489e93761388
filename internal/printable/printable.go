// Package printable makes text from untrusted input (a log line, a header, a
// key) safe to print on a terminal: control characters (C0 except newline and
// tab, DEL, C1) and the bidirectional overrides and isolates (U+202A–U+202E,
// U+2066–U+2069) are shown as escapes (\x1b, \u202e) instead of being sent, so a
// file cannot clear the screen, retitle the window or reorder what is shown.
package printable

import (
	"fmt"
	"strings"
)

// String is s with every character a terminal would act on shown as an escape.
func String(s string) string {
	if !strings.ContainsFunc(s, unsafe) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !unsafe(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
