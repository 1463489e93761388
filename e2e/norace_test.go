//go:build !race

package e2e

// buildFlags are the flags the binary under test is built with (race_test.go has
// the -race ones).
var buildFlags []string

// raceBuild says the binary and the tests run under the race detector.
const raceBuild = false
