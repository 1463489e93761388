package suggest

import "testing"

func TestNearest(t *testing.T) {
	names := []string{"limit", "period", "burst", "retry-storm", "retry-after"}
	for _, tc := range []struct{ word, want string }{
		{"limt", "limit"},              // a deletion
		{"periods", "period"},          // an insertion
		{"bursy", "burst"},             // a substitution
		{"retry-strom", "retry-storm"}, // two substitutions
		{"limit", "limit"},             // itself
		{"rate", ""},                   // nothing within 2
		{"", ""},                       // nothing within 2 of the empty word
	} {
		if got := Nearest(tc.word, names); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	if got := Nearest("ab", []string{"abc", "abd"}); got != "abc" {
		t.Errorf("a tie goes to the first candidate: got %q", got)
	}
}
