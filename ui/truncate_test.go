package ui

import (
	"math/rand/v2"
	"testing"

	"charm.land/lipgloss/v2"

	"ratelab/algorithms"
	"ratelab/sim"
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

// A lane's short form keeps what tells it from the scenario's other lanes: the
// algorithm's abbreviation and what the name adds; the words every lane of the
// algorithm begins alike with (two or more: the lanes of one nginx.conf) go but
// the last, and one shared word ("fix off", "fix on") stays.
func TestShortName(t *testing.T) {
	lane := func(name string, a algorithms.Name) sim.LaneConfig { return sim.LaneConfig{Name: name, Algorithm: a} }
	nginx := []sim.LaneConfig{
		lane("nginx: server example.com location /api/", algorithms.NginxName),
		lane("nginx: server example.com location /login", algorithms.NginxName),
		lane("nginx: server example.com location /", algorithms.NginxName),
		lane("token-bucket", algorithms.TokenBucketName),
	}
	for i, want := range []string{"nginx·location /api/", "nginx·location /login", "nginx·location /", "tb"} {
		if got := shortName(nginx, i); got != want {
			t.Errorf("shortName(%q) = %q, want %q", nginx[i].Name, got, want)
		}
	}
	fix := []sim.LaneConfig{lane("token-bucket (fix off)", algorithms.TokenBucketName), lane("token-bucket (fix on)", algorithms.TokenBucketName), lane("my own", algorithms.GCRAName)}
	for i, want := range []string{"tb·fix off", "tb·fix on", "my own"} {
		if got := shortName(fix, i); got != want {
			t.Errorf("shortName(%q) = %q, want %q", fix[i].Name, got, want)
		}
	}
	trace := []sim.LaneConfig{lane("recommended: token-bucket 2/s burst 16", algorithms.TokenBucketName), lane("token-bucket 1/s burst 16", algorithms.TokenBucketName),
		lane("recommended (closest to the goal): gcra 5/s burst 9", algorithms.GCRAName)}
	for i, want := range []string{"rec tb·2/s burst 16", "tb·1/s burst 16", "rec gcra·5/s burst 9"} {
		if got := shortName(trace, i); got != want {
			t.Errorf("shortName(%q) = %q, want %q", trace[i].Name, got, want)
		}
	}
	one := []sim.LaneConfig{lane("nginx: server example.com location /api/", algorithms.NginxName)}
	if got := shortName(one, 0); got != "nginx·server example.com location /api/" {
		t.Errorf("a lone lane's short form: %q", got)
	}
}
