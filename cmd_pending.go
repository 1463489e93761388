package main

import "io"

func runBench(args []string, stdout, stderr io.Writer) error {
	return usagef("bench is not built yet")
}
