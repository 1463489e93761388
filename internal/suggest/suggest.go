// Package suggest finds the word a person probably meant: the known name nearest
// to a misspelling, for the "did you mean" of an error message.
package suggest

// MaxDistance is the largest edit distance a suggestion may be from the word
// written: two letters added, dropped or changed.
const MaxDistance = 2

// Nearest returns the candidate closest to word within MaxDistance edits (the
// first of equals, in the candidates' order), or "" when none is that close or
// word is itself a candidate.
func Nearest(word string, candidates []string) string {
	best, bestDist := "", MaxDistance+1
	for _, c := range candidates {
		if c == word {
			return ""
		}
		if d := Distance(word, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes: the fewest
// insertions, deletions and substitutions that turn one into the other.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
