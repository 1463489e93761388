package printable

import "testing"

// TestNameStaysOnOneLine: a name's newline and tab are escaped with the rest;
// a plain name is itself.
func TestNameStaysOnOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"access[1].log":    "access[1].log",
		"d\n.gz":           `d\n.gz`,
		"x\ty\r.gz":        `x\ty\x0d.gz`,
		"e\x1b[31mred.log": `e\x1b[31mred.log`,
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}
