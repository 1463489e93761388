package printable

import "testing"

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"plain, ünïcode ✓\n\ttab":     "plain, ünïcode ✓\n\ttab",
		"\x1b[2J\x1b]0;pwned\x07evil": `\x1b[2J\x1b]0;pwned\x07evil`,
		"a\x7fb\u0085c":               `a\x7fb\x85c`,
		"user\u202egnp.exe":           `user\u202egnp.exe`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}
