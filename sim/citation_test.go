package sim

import (
	"slices"
	"testing"
)

// TestCitationsStandAsWords: a citation is [id] at the text's start or after
// whitespace or "("; brackets inside a word (a file or key name) cite nothing,
// and each citation's place is exact.
func TestCitationsStandAsWords(t *testing.T) {
	for _, tc := range []struct {
		text string
		ids  []string
	}{
		{"[first] holds, and so does [second-2].", []string{"first", "second-2"}},
		{"a limit (see [burst-peak]) and\n[next]", []string{"burst-peak", "next"}},
		{"ratelab tune --trace 'access[1].log' shows it all", nil},
		{"the key user[2] and the file '[x].log'", nil},
		{"[a][b] [C] [-x] [ok]", []string{"a", "ok"}},
	} {
		var ids []string
		for _, c := range Citations(tc.text) {
			if got := tc.text[c.Start:c.End]; got != "["+c.ID+"]" {
				t.Errorf("%q: citation %q at [%d, %d) reads %q", tc.text, c.ID, c.Start, c.End, got)
			}
			ids = append(ids, c.ID)
		}
		if !slices.Equal(ids, tc.ids) {
			t.Errorf("Citations(%q) = %q, want %q", tc.text, ids, tc.ids)
		}
	}
}
