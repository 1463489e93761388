package suggest

import "testing"

func TestNearest(t *testing.T) {
	known := []string{"burst", "limit", "period", "retry_after_jitter"}
	for _, tc := range []struct{ word, want string }{
		{"burts", "burst"},  // two letters swapped: two edits
		{"limt", "limit"},   // one dropped
		{"perod", "period"}, // one dropped
		{"flavour", ""},     // nothing near
		{"burst", ""},       // already known: nothing to suggest
		{"", ""},            // nothing written
		{"limits", "limit"}, // one added
		{"bxrxt", "burst"},  // two changed
		{"bxxxt", ""},       // three changed
	} {
		if got := Nearest(tc.word, known); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	// the first of equals wins, in the candidates' order
	if got := Nearest("ab", []string{"ac", "ad"}); got != "ac" {
		t.Errorf("Nearest(ab, [ac ad]) = %q, want ac", got)
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"gcra", "gcra", 0}, {"token-bucket", "token-buckett", 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want || Distance(tc.b, tc.a) != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (both ways)", tc.a, tc.b, got, tc.want)
		}
	}
}
