package ui

import (
	"math/rand/v2"
	"testing"

	"charm.land/lipgloss/v2"
)

// truncateByRunes is truncate as it was written first: cut a rune at a time and
// measure again. The one-pass truncate must give the same text.
func truncateByRunes(s string, n int) string {
	if n <= 1 || lipgloss.Width(s) <= n {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && lipgloss.Width(string(r))+1 > n {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// truncate cuts to n cells with an ellipsis, whole characters only, wide ones
// (two cells) included, as the rune-by-rune version did.
func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"token-bucket", 20, "token-bucket"},
		{"token-bucket", 12, "token-bucket"},
		{"token-bucket", 11, "token-buck…"},
		{"token-bucket", 2, "t…"},
		{"token-bucket", 1, "token-bucket"},
		{"限流器限流器", 5, "限流…"},
		{"限流器限流器", 6, "限流…"},
		{"a·b ✓ ✗ ┴", 6, "a·b ✓…"},
	} {
		if got := truncate(tc.s, tc.n); got != tc.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
	alphabet := []rune("abc xyz·…✓✗┴▸限流é")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		r := make([]rune, rng.IntN(40))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s, n := string(r), rng.IntN(45)
		if got, want := truncate(s, n), truncateByRunes(s, n); got != want {
			t.Fatalf("truncate(%q, %d) = %q, want %q", s, n, got, want)
		}
	}
}
