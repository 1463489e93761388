// Package printable makes text from untrusted input (a log line, a header, a
// key, a product's configuration) safe to print on a terminal: control
// characters (C0 except newline and tab, DEL, C1: ESC and the CSI, OSC and ST
// that begin and end escape sequences), the bytes that are not UTF-8 (a raw
// 0x9b is CSI to a terminal reading 8-bit controls) and the bidirectional
// controls (the embeddings and overrides U+202A–U+202E, the isolates
// U+2066–U+2069, the marks U+200E, U+200F and U+061C) are shown as escapes
// (\x1b, \x9b, \u202e) instead of being sent, so a file cannot clear the
// screen, retitle the window or reorder what is shown.
package printable

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// String is s with every character a terminal would act on shown as an
// escape: \xNN for a control below U+0100 or a byte that is not UTF-8, \uNNNN
// for a bidirectional control.
func String(s string) string {
	if Safe(s) {
		return s
	}
	return escape(s, false)
}

// Exact is String made one to one: two texts that differ are shown apart.
// String shows the byte 0x80 (not UTF-8), the character U+0080 (UTF-8's C2 80)
// and the text `\x80` alike; Exact shows them `\x80`, `\u0080` and `\\x80`:
// a "\" is shown doubled, a control below U+0100 that is UTF-8 as \u00NN,
// and only a byte that is not UTF-8 as \xNN. For a column a program reads
// back (a log's keys), where two keys must stay two.
func Exact(s string) string {
	if Safe(s) && !strings.Contains(s, `\`) {
		return s
	}
	return escape(s, true)
}

// escape writes s with its unsafe characters as escapes, String's way, or
// Exact's when exact: a "\" doubled, and \xNN kept for C0, DEL and bytes that
// are not UTF-8 (a C1 control, UTF-8, is then \u00NN).
func escape(s string, exact bool) string {
	hexBelow := rune(0x100) // the characters shown as \xNN
	if exact {
		hexBelow = 0x80
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case exact && r == '\\':
			b.WriteString(`\\`)
		case !unsafe(r):
			b.WriteString(s[i : i+size])
		case r < hexBelow:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// Name is String for a name within a line (a file's, a key's): a newline or
// a tab in it is escaped too (\n, \t), so the line stays one line.
func Name(s string) string {
	s = String(s)
	if strings.ContainsAny(s, "\n\t") {
		s = strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(s)
	}
	return s
}

// Safe says s holds nothing String would escape: it is UTF-8 and has no
// character a terminal acts on but a newline or a tab.
func Safe(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, unsafe)
}

func unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// JSONWriter writes JSON text to w with every character a terminal would act on
// written as a \u escape: encoding/json escapes C0 controls but leaves DEL, C1
// (a raw U+009B is CSI) and the bidirectional controls as they are. Those can
// only stand inside a JSON string, where \u escapes read back the same, so the
// JSON means what it meant. Each Write must hold whole characters, as
// json.Encoder's do (a value at a time); a byte that is not UTF-8 is written as
// \ufffd, the character json.Marshal puts in its place.
func JSONWriter(w io.Writer) io.Writer { return jsonWriter{w} }

type jsonWriter struct{ w io.Writer }

func (j jsonWriter) Write(p []byte) (int, error) {
	if Safe(string(p)) {
		return j.w.Write(p)
	}
	var b bytes.Buffer
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case unsafe(r) && r != '\n' && r != '\t':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.Write(p[i : i+size])
		}
		i += size
	}
	if _, err := j.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}
