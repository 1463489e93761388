package scenarios

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"ratelab/internal/printable"
)

// plain checks that a name (of a lane, a client, a node, a tier, a key) or a
// title can be shown as it is: valid UTF-8 without control characters (unicode.Cc:
// newlines, tabs, escape sequences), which would break the table and the CSV's
// lines, or reach the terminal raw, and without the bidirectional controls a
// terminal reorders text by (U+202E turns "exe.gnp" around: package printable).
// what names it in the error, which shows the value with its control characters
// escaped.
func plain(what, s string) error {
	return plainExcept(what, s, "")
}

// plainExcept is plain allowing the control characters in allowed (a lesson's
// line breaks).
func plainExcept(what, s, allowed string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s %q is not valid UTF-8; save the file as UTF-8", what, s)
	}
	for _, r := range s {
		if unicode.IsControl(r) && !strings.ContainsRune(allowed, r) {
			return fmt.Errorf("%s %q holds a control character (%U); remove it", what, s, r)
		}
		if !printable.Safe(string(r)) && !strings.ContainsRune(allowed, r) {
			return fmt.Errorf("%s %s holds a bidirectional control (%U), which turns text around on a terminal; remove it", what, printable.String(strconv.Quote(s)), r)
		}
	}
	return nil
}

// utf8Text returns a scenario file's text without the UTF-8 byte-order mark some
// editors write first (Excel and Notepad do), which TOML does not allow; a file
// that starts with a UTF-16 byte-order mark gets a message saying how to save it.
func utf8Text(name string, data []byte) ([]byte, error) {
	if bytes.HasPrefix(data, []byte{0xFE, 0xFF}) || bytes.HasPrefix(data, []byte{0xFF, 0xFE}) {
		return nil, fmt.Errorf("%s:1:1: the file is UTF-16; save it as UTF-8", name)
	}
	return bytes.TrimPrefix(data, []byte("\uFEFF")), nil
}
