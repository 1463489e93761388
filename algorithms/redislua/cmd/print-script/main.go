// Command print-script prints one of ratelab's Lua scripts as Redis loads it (the
// shared prelude and the algorithm's own), for SCRIPT LOAD and redis-benchmark:
//
//	go run ./algorithms/redislua/cmd/print-script token_bucket
package main

import (
	"fmt"
	"os"

	"ratelab/algorithms"
	"ratelab/algorithms/redislua"
)

func main() {
	var names []string
	for _, a := range algorithms.All() {
		if a.Redis != nil {
			names = append(names, a.Redis.Script)
		}
	}
	if len(os.Args) != 2 {
		fmt.Fprintf(os.Stderr, "usage: print-script NAME (one of %v)\n", names)
		os.Exit(2)
	}
	for _, n := range names {
		if n == os.Args[1] {
			fmt.Print(redislua.Script(n))
			return
		}
	}
	fmt.Fprintf(os.Stderr, "print-script: unknown script %q; one of %v\n", os.Args[1], names)
	os.Exit(2)
}
