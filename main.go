// Command ratelab replays traffic scenarios through rate-limiting algorithms side by
// side on a virtual clock, in a terminal UI or headless, in memory or on a real Redis.
//
//	ratelab                 the UI on the embedded scenarios (same as ratelab tui)
//	ratelab run             one scenario headless: the comparison table, CSV
//	ratelab list            the scenarios
//	ratelab bench           a live Redis benchmark of the atomic and non-atomic ways
//	ratelab tune            the limit that fits a request log: a grid of policies replayed
//	ratelab report          one scenario as a page to share: index.html, charts, CSV
//	ratelab version
//
// Exit codes: 0 success, 1 a failure at run time (I/O, Redis), 2 a usage or
// scenario error.
package main

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"syscall"

	"ratelab/internal/printable"

	"ratelab/session"
)

//go:embed scenarios.toml traces
var embedded embed.FS

// usageError is a mistake in how ratelab was called or in a scenario: exit code 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

const topUsage = `ratelab replays traffic through rate-limiting algorithms side by side.

Usage:
  ratelab [tui] [flags]   explore the scenarios in a terminal UI (the default)
  ratelab run [flags]     run one scenario headless and print the comparison
  ratelab list [flags]    list the scenarios
  ratelab bench [flags]   benchmark the Redis strategies on a live Redis
  ratelab tune [flags]    find the limit that fits a request log (an access log)
  ratelab report [flags]  write one scenario as a page to share (HTML, charts, CSV)
  ratelab version         print the version

Run "ratelab COMMAND --help" for a command's flags.
`

func main() {
	// a closed pipe on standard output (ratelab run --csv - | head) is a write
	// error, handled as any other (exit 1, temporary files removed), not the
	// SIGPIPE that would kill the process where it stands
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command in args and returns the exit code. Output that cannot be
// written to standard output (a full disk, a closed pipe) is a failure, exit 1,
// even when the command itself went well.
func run(args []string, stdout, stderr io.Writer) int {
	out := &checked{w: stdout}
	code := dispatch(args, out, stderr)
	if out.err != nil && code == 0 {
		fmt.Fprintf(stderr, "ratelab: %v\n", out.err)
		return 1
	}
	return code
}

// checked is a writer that keeps its first error.
type checked struct {
	w   io.Writer
	err error
}

func (c *checked) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		c.err = fmt.Errorf("writing standard output: %w", err)
	}
	return n, c.err
}

// dispatch runs the command in args and returns the exit code.
func dispatch(args []string, stdout, stderr io.Writer) int {
	cmd, rest := "tui", args
	if len(args) > 0 && (len(args[0]) == 0 || args[0][0] != '-') {
		cmd, rest = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "tui":
		err = runTUI(rest, stdout, stderr)
	case "run":
		err = runRun(rest, stdout, stderr)
	case "list":
		err = runList(rest, stdout, stderr)
	case "bench":
		err = runBench(rest, stdout, stderr)
	case "tune":
		err = runTune(rest, stdout, stderr)
	case "report":
		err = runReport(rest, stdout, stderr)
	case "version":
		err = runVersion(rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, topUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "ratelab: unknown command %q\n\n%s", cmd, topUsage)
		return 2
	}
	return exitCode(err, stderr)
}

// exitCode reports err on stderr and maps it to the exit code.
func exitCode(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, errHelp) {
		return 0
	}
	// an error may quote the input (a log's header, a line): printed as escapes,
	// never acted on by the terminal
	fmt.Fprintf(stderr, "ratelab: %s\n", printable.String(err.Error()))
	var u usageError
	if errors.As(err, &u) || errors.Is(err, session.ErrUsage) {
		return 2
	}
	return 1
}
