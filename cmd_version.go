package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version is ratelab's release; the build information says which commit.
const version = "0.1.0"

const versionUsage = `
Usage: ratelab version   (also ratelab --version, ratelab -v)

Prints the version, the commit the binary was built from and whether its tree had
changes not committed, the Go release and the platform. The commit is what the Go
toolchain stamps into a binary built inside a git checkout (go build, go install);
a binary built without that information (go run, -buildvcs=false, a source
tarball) says the commit is unknown.`

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", versionUsage, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintf(stdout, "ratelab %s (%s) %s %s/%s\n", version, buildOf(info), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

// buildOf says which commit info was built from and whether its tree was
// modified, from the settings the go command stamps (vcs.revision,
// vcs.modified); "commit unknown" when there are none, as with go run.
func buildOf(info *debug.BuildInfo) string {
	var revision, modified string
	if info != nil {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
	}
	if revision == "" {
		return "commit unknown: built without version control information, as by go run"
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	switch modified {
	case "true":
		return "commit " + revision + ", with changes not committed"
	case "false":
		return "commit " + revision + ", tree clean"
	}
	return "commit " + revision + ", tree state unknown"
}
