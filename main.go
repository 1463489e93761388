// Command ratelab replays traffic scenarios through rate-limiting algorithms side by
// side on a virtual clock, in a terminal UI or headless, in memory or on a real Redis.
//
//	ratelab                 the UI on the embedded scenarios (same as ratelab tui)
//	ratelab run             one scenario headless: the comparison table, CSV
//	ratelab list            the scenarios
//	ratelab bench           a live Redis benchmark of the atomic and non-atomic ways
//	ratelab tune            the limit that fits a request log: a grid of policies replayed
//	ratelab audit           the limits a configuration runs today, judged on a log rule by rule
//	ratelab report          one scenario as a page to share: index.html, charts, CSV
//	ratelab scenarios       shipped scenarios written as a file to start from
//	ratelab completion      the shell completion script for bash, zsh or fish
//	ratelab man             the manual as a man page
//	ratelab version         the version, the commit, whether its tree was modified
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
	"strings"
	"syscall"

	"ratelab/internal/printable"
	"ratelab/internal/suggest"
	"ratelab/session"
)

// embedded is the catalogue and the request logs its scenarios replay (data
// only: traces/ is also the package that reads them, whose source is not
// embedded).
//
//go:embed scenarios.toml traces/shop.log traces/access-log.csv
var embedded embed.FS

// usageError is a mistake in how ratelab was called or in a scenario: exit code 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

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
	name, rest := "tui", args
	if len(args) > 0 && (len(args[0]) == 0 || args[0][0] != '-') {
		name, rest = args[0], args[1:]
	}
	switch name {
	case "help":
		return helpCommand(rest, stdout, stderr)
	case completeCommand: // what the shell completion scripts call
		return complete(rest, stdout)
	}
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help":
			fmt.Fprint(stdout, overview())
			return 0
		case "-v", "-version", "--version":
			name, rest = "version", args[1:]
		}
	}
	c, ok := lookupCommand(name)
	if !ok {
		msg := fmt.Sprintf("unknown command %q", name)
		if near := suggest.Nearest(name, commandNames()); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		fmt.Fprintf(stderr, "ratelab: %s (ratelab --help lists the commands)\n", printable.String(msg))
		return 2
	}
	return exitCode(c.run(rest, stdout, stderr), stdout, stderr)
}

// helpCommand is ratelab help [COMMAND]: the overview, or the command's help.
func helpCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, overview())
		return 0
	}
	if len(args) > 1 {
		fmt.Fprintf(stderr, "ratelab: help: give one command, one of %s\n", strings.Join(commandNames(), ", "))
		return 2
	}
	if _, ok := lookupCommand(args[0]); !ok {
		msg := fmt.Sprintf("help: unknown command %q", args[0])
		if near := suggest.Nearest(args[0], commandNames()); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		} else {
			msg += "; the commands are " + strings.Join(commandNames(), ", ")
		}
		fmt.Fprintf(stderr, "ratelab: %s\n", printable.String(msg))
		return 2
	}
	return dispatch([]string{args[0], "--help"}, stdout, stderr)
}

// exitCode reports err on stderr (or a command's help on stdout) and maps it to
// the exit code.
func exitCode(err error, stdout, stderr io.Writer) int {
	var help *commandHelp
	if errors.As(err, &help) {
		help.write(stdout)
		return 0
	}
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
