package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// command is one of ratelab's commands. Its flags and its help are its own (see
// commandHelp): the overview below, the man page and the shell completion ask the
// command for them (helpOf) rather than keep a copy.
type command struct {
	name string
	// synopsis is what follows "ratelab " in the overview: "run [flags]".
	synopsis string
	// summary is a line: what it does.
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// commandList is every command, in the order the overview and the man page list
// them. (A function, not a variable: man and completion read the list.)
func commandList() []command {
	return []command{
		{"tui", "[tui] [flags]", "explore the scenarios in a terminal UI (the default)", runTUI},
		{"run", "run [flags]", "run one scenario headless and print the comparison", runRun},
		{"list", "list [flags]", "list the scenarios", runList},
		{"scenarios", "scenarios --write FILE [NAME…]", "write shipped scenarios into a file of your own to start from", runScenarios},
		{"report", "report [flags]", "write one scenario as a page to share (HTML, charts, CSV)", runReport},
		{"tune", "tune [flags]", "find the limit that fits a request log (an access log)", runTune},
		{"audit", "audit [flags]", "judge the limits a configuration runs today on a request log, rule by rule", runAudit},
		{"serve", "serve [flags]", "serve a lane or a product's configuration over HTTP on the wall clock, to test clients against", runServe},
		{"infer", "infer [flags]", "find the limiter behind an API: from a client's log, or by probing it", runInfer},
		{"bench", "bench [flags]", "benchmark the Redis strategies on a live Redis", runBench},
		{"completion", "completion bash|zsh|fish", "print the completion script for bash, zsh or fish", runCompletion},
		{"man", "man", "print this manual as a man page (roff)", runMan},
		{"version", "version", "print the version, the commit and whether its tree was modified", runVersion},
	}
}

// lookupCommand returns the command called name.
func lookupCommand(name string) (command, bool) {
	for _, c := range commandList() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// commandNames lists the commands' names.
func commandNames() []string {
	var names []string
	for _, c := range commandList() {
		names = append(names, c.name)
	}
	return names
}

// helpOf is the help of the command called name, asked of the command itself
// (name --help), which parses nothing else and runs nothing.
func helpOf(name string) (*commandHelp, error) {
	c, ok := lookupCommand(name)
	if !ok {
		return nil, fmt.Errorf("no command %q", name)
	}
	err := c.run([]string{"--help"}, io.Discard, io.Discard)
	var h *commandHelp
	if !errors.As(err, &h) {
		return nil, fmt.Errorf("ratelab %s --help did not give its help (%v)", name, err)
	}
	return h, nil
}

// about is what ratelab is, in a sentence: the overview's first line and the
// man page's NAME.
const about = "replays traffic through rate-limiting algorithms side by side"

// exitStatus is what the exit codes mean.
const exitStatus = "0 success, 1 a failure at run time (I/O, Redis, a signal), 2 a usage or scenario error."

// overview is ratelab --help: what it is, every command, where to read more.
func overview() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ratelab %s.\n\nUsage: ratelab [COMMAND] [flags]\n\nCommands:\n", about)
	width := 0
	for _, c := range commandList() {
		width = max(width, len(overviewName(c)))
	}
	for _, c := range commandList() {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, overviewName(c), c.summary)
	}
	b.WriteString("\n")
	for _, line := range wrap("Run ratelab COMMAND --help (or ratelab help COMMAND) for a command's usage and flags; ratelab --version prints the version. Exit codes: "+exitStatus, helpWidth) {
		b.WriteString(line + "\n")
	}
	return b.String()
}

// overviewName is how the overview names c: tui, the default, in brackets.
func overviewName(c command) string {
	if c.name == "tui" {
		return "[tui]"
	}
	return c.name
}
