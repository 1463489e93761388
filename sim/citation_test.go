package sim

import (
	"math/rand/v2"
	"regexp"
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

// TestValidClaimID: a claim's id is what a citation can hold.
func TestValidClaimID(t *testing.T) {
	for id, want := range map[string]bool{"a": true, "fw-200": true, "9x": true, "": false, "-a": false, "A": false, "a_b": false, "a b": false} {
		if got := ValidClaimID(id); got != want {
			t.Errorf("ValidClaimID(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestCitationsAsTheGrammarSays: the scanner finds what the grammar's regular
// expression finds, on random texts of brackets, ids, spaces and letters.
func TestCitationsAsTheGrammarSays(t *testing.T) {
	grammar := regexp.MustCompile(`(?:^|[\s(])(\[([a-z0-9][a-z0-9-]*)\])`)
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "[]()-a1Z \n\t.x"
	for range 20000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		text := string(b)
		var want []Citation
		for _, m := range grammar.FindAllStringSubmatchIndex(text, -1) {
			want = append(want, Citation{ID: text[m[4]:m[5]], Start: m[2], End: m[3]})
		}
		if got := Citations(text); !slices.Equal(got, want) {
			t.Fatalf("Citations(%q) = %+v, want %+v", text, got, want)
		}
	}
}
