package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version is ratelab's release; builds from a checkout say so after it.
const version = "0.1.0"

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", "Usage: ratelab version\n\nPrints the version.", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	build := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				build = " (" + s.Value[:12] + ")"
			}
		}
	}
	fmt.Fprintf(stdout, "ratelab %s%s %s %s/%s\n", version, build, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
