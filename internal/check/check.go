// Package check is for tests: a set-up step that fails (a file that cannot be
// written, a folder that cannot be made) stops the test there, saying what,
// rather than letting it go on and fail later for a reason it does not show.
package check

import "testing"

// Setup fails t at once when err, the result of a set-up step, is not nil.
func Setup(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("set-up: %v", err)
	}
}
