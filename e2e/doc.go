// Package e2e holds ratelab's end-to-end tests: they build the binary once per
// test run and run it as a person or a supervisor would — commands and their
// exit codes, the files they write, the UI in a real terminal (tmux), reports in
// headless Chromium, signals mid-run, Redis and a Redis Cluster it starts itself,
// the bench guard in a network namespace — and check that the README and docs/
// still say what the program does.
//
// Under -short it keeps what takes well under a second a test (the commands, the
// outputs, the docs, every scenario's lessons in memory) and leaves out what
// drives a terminal, a browser, a cluster or the wall clock for seconds; the full
// run has everything. Under -race the binary is built with -race too, so the
// command line's own goroutines are checked as before.
//
// The package has no code of its own: everything is in its _test.go files.
package e2e
