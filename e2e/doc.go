// Package e2e holds ratelab's end-to-end tests: they build the binary once per
// test run and run it as a person or a supervisor would — commands and their
// exit codes, the files they write, the UI in a real terminal (tmux), reports in
// headless Chromium, signals mid-run, Redis and a Redis Cluster it starts itself,
// the bench guard in a network namespace — and check that the README and docs/
// still say what the program does.
//
// Under -short it keeps the commands and their exit codes, the files they write,
// the docs, Redis on one server, and the sweeps of every shipped scenario in
// memory (but tiers, the slowest, in two of them); it leaves to the full run what
// drives a terminal, a browser, a Redis Cluster or the wall clock for seconds:
// tmux, Chromium, the cluster, the signal tests. Under -race the binary is built
// with -race too, so the command line's own goroutines are checked as before.
//
// Apart from this comment, the package is its _test.go files.
package e2e
