// Package suggest finds the name a user probably meant: "did you mean
// "limit"?" for a misspelt key, scenario or flag.
package suggest

// Nearest returns the candidate closest to word by edit distance (Levenshtein:
// one insertion, deletion or substitution of a byte each), if it is within 2;
// otherwise "". Of candidates equally close, the first wins. A word equal to a
// candidate returns it.
func Nearest(word string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		if d := distance(word, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
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
