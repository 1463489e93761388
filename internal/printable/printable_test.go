package printable

import (
	"bytes"
	"encoding/json"
	"maps"
	"testing"
)

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"plain, ünïcode ✓\n\ttab":     "plain, ünïcode ✓\n\ttab",
		"\x1b[2J\x1b]0;pwned\x07evil": `\x1b[2J\x1b]0;pwned\x07evil`,
		"a\x7fb\u0085c":               `a\x7fb\x85c`,
		"user\u202egnp.exe":           `user\u202egnp.exe`,
		// the C1 controls as UTF-8 (CSI, OSC, ST) and as the raw bytes a
		// terminal in 8-bit mode acts on (invalid UTF-8)
		"a\u009b2Jb\u009d0;t\u009c":  `a\x9b2Jb\x9d0;t\x9c`,
		"a\x9b2Jb\x9d0;t\x9c":        `a\x9b2Jb\x9d0;t\x9c`,
		"half \xe2\x80 a rune, \xff": `half \xe2\x80 a rune, \xff`,
		// every bidirectional control: embeddings and overrides, isolates,
		// the marks
		"\u202a\u202b\u202c\u202d\u202e": `\u202a\u202b\u202c\u202d\u202e`,
		"\u2066\u2067\u2068\u2069":       `\u2066\u2067\u2068\u2069`,
		"l\u200er\u200fa\u061c":          `l\u200er\u200fa\u061c`,
		// what is near them and harmless stays
		"\u200d\u2065\u206a é":     "\u200d\u2065\u206a é",
		"\U0001F600 \u00a0 \ufffd": "\U0001F600 \u00a0 \ufffd",
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// Safe holds for what String returns, whatever it is given, and for nothing
// String would change.
func TestSafe(t *testing.T) {
	for _, s := range []string{"", "plain\n\ttext ✓", "\x1b[2J", "\u009b", "\x9b", "\u202e", "\u200f", "\xff\xfe"} {
		if got := String(s); !Safe(got) {
			t.Errorf("Safe(String(%q)) = false: %q", s, got)
		}
		if Safe(s) != (String(s) == s) {
			t.Errorf("Safe(%q) = %v, but String changes it: %v", s, Safe(s), String(s) != s)
		}
	}
}

// JSON written through JSONWriter reads back the same, and holds no character
// a terminal acts on: encoding/json leaves DEL, C1 and the bidi controls raw.
func TestJSONWriter(t *testing.T) {
	in := map[string]string{"key": "a\x1b[2J\u009b31m\x7f\u202eexe.gnp\u2066x\u200f", "plain": "tab\there"}
	var raw, safe bytes.Buffer
	json.NewEncoder(&raw).Encode(in)
	if Safe(raw.String()) {
		t.Fatalf("encoding/json escaped everything itself (%q): the test tests nothing", raw.String())
	}
	if err := json.NewEncoder(JSONWriter(&safe)).Encode(in); err != nil {
		t.Fatal(err)
	}
	if !Safe(safe.String()) {
		t.Errorf("JSONWriter wrote %q", safe.String())
	}
	var back map[string]string
	if err := json.Unmarshal(safe.Bytes(), &back); err != nil || !maps.Equal(back, in) {
		t.Errorf("read back %q (%v), want %q", back, err, in)
	}
}

// Exact shows texts that differ apart, and nothing a terminal acts on: the
// byte 0x80, the character U+0080 and the text `\x80` among them. Checked on
// every string of up to three pieces from bytes and texts that look alike.
func TestExactIsOneToOne(t *testing.T) {
	pieces := []string{"", "a", `\`, `\\`, "x80", `\x80`, "\x80", "\u0080", `\u0080`, "\x9b", "\u009b", "\x1b", `\x1b`, "\u202e", `\u202e`, "\n", "\t", "+", "\ufffd", "\xc2"}
	seen := map[string]string{}
	for _, a := range pieces {
		for _, b := range pieces {
			for _, c := range pieces {
				s := a + b + c
				got := Exact(s)
				if other, ok := seen[got]; ok && other != s {
					t.Fatalf("Exact(%q) = Exact(%q) = %q", s, other, got)
				}
				seen[got] = s
				if !Safe(got) {
					t.Fatalf("Exact(%q) = %q holds what a terminal acts on", s, got)
				}
			}
		}
	}
	for in, want := range map[string]string{"\x80": `\x80`, "\u0080": `\u0080`, `\x80`: `\\x80`, "plain": "plain", "\x1b[2J": `\x1b[2J`} {
		if got := Exact(in); got != want {
			t.Errorf("Exact(%q) = %q, want %q", in, got, want)
		}
	}
}
