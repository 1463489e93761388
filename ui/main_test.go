package ui

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// TestMain makes the first Ctrl-C stop the package's tests: teatest catches
// SIGINT for each program it runs (and Bubble Tea does for its own), killing
// only the program under test, so without this go test ./... went on with the
// next test after the first Ctrl-C. Every receiver gets the signal; this one
// exits with the code of a test run that failed.
func TestMain(m *testing.M) {
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-interrupted
		fmt.Fprintf(os.Stderr, "ratelab/ui tests: %v: stopped\n", s)
		os.Exit(1)
	}()
	os.Exit(m.Run())
}
