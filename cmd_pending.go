package main

import "io"

func runTUI(args []string, stdout, stderr io.Writer) error {
	return usagef("the UI is not built yet; use ratelab run")
}

func runBench(args []string, stdout, stderr io.Writer) error {
	return usagef("bench is not built yet")
}
