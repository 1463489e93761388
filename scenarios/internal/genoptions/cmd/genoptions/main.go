// Command genoptions writes scenarios/options_gen.go (see package genoptions);
// go generate ./scenarios runs it.
package main

import (
	"fmt"
	"os"

	"ratelab/scenarios/internal/genoptions"
)

func main() {
	src, err := genoptions.Source()
	if err == nil {
		err = os.WriteFile("options_gen.go", src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genoptions:", err)
		os.Exit(1)
	}
}
