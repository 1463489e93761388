//go:build race

package e2e

// buildFlags builds the binary under test with the race detector when the tests
// run with it: a race in the command line exits 66 and fails the test that ran it.
var buildFlags = []string{"-race"}

// raceBuild says the binary and the tests run under the race detector.
const raceBuild = true
