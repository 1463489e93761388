package main

import (
	"fmt"
	"io"
	"strings"
	"unicode"
)

const manUsage = `
Usage: ratelab man

Prints the manual as a man page (roff), made from the same help every command
prints with --help: read it with man -l <(ratelab man), or install it with
ratelab man > ~/.local/share/man/man1/ratelab.1. The repository holds a copy,
docs/ratelab.1, which the tests keep equal to this output.`

func runMan(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("man", manUsage, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	page, err := manPage()
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, page)
	return err
}

// manPage is the man page: the overview's commands, then each command's help
// (its usage lines, what it does, its flags), read from the command itself
// (helpOf), so the page says what --help says. Nothing in it depends on the
// day or the machine: the same binary gives the same page.
func manPage() (string, error) {
	var b strings.Builder
	b.WriteString(`.\" ratelab(1), made by "ratelab man" from the commands' own --help; do not edit` + "\n")
	fmt.Fprintf(&b, ".TH RATELAB 1 \"\" \"ratelab %s\" \"User Commands\"\n", version)
	b.WriteString(".nh\n.ad l\n") // no hyphens in flags and paths; no stretched spaces
	b.WriteString(".SH NAME\nratelab \\- " + roff(about) + "\n")
	b.WriteString(".SH SYNOPSIS\n.nf\n")
	for _, c := range commandList() {
		fmt.Fprintf(&b, "\\fBratelab\\fR %s\n", roff(c.synopsis))
	}
	b.WriteString(".fi\n.SH DESCRIPTION\n")
	b.WriteString(roffParagraphs(description))
	b.WriteString(".SH COMMANDS\n")
	for _, c := range commandList() {
		h, err := helpOf(c.name)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, ".SS \"ratelab %s\"\n%s.\n", c.name, roff(c.summary))
		b.WriteString(".PP\n.nf\n" + roffLines(h.synopsis()) + ".fi\n")
		b.WriteString(roffParagraphs(h.description()))
		flags := helpFlags(h.flags)
		if len(flags) > 0 {
			b.WriteString(".PP\nFlags:\n")
		}
		for _, f := range flags {
			fmt.Fprintf(&b, ".TP\n\\fB%s\\fR", roff("--"+f.name))
			if f.value != "" {
				fmt.Fprintf(&b, " \\fI%s\\fR", roff(f.value))
			}
			b.WriteString("\n" + roffLines(f.text()))
		}
	}
	b.WriteString(".SH EXIT STATUS\n" + roffLines(exitStatus))
	b.WriteString(".SH ENVIRONMENT\n.TP\n.B REDIS_URL\n" + roffLines(redisURLEnv))
	b.WriteString(".SH SEE ALSO\n" + roffLines(seeAlso))
	return b.String(), nil
}

// description is what ratelab does, for the man page's DESCRIPTION.
const description = `ratelab replays the same traffic through every common rate-limiting algorithm
(fixed window, sliding log, sliding window counter, leaky bucket, token bucket,
GCRA, golang.org/x/time/rate), side by side, on a virtual clock, and shows what
each one did: a live terminal UI, a comparison table with a verdict per lane, and
every decision as CSV. The same inputs give byte-identical output, every time.
The same algorithms run as Lua scripts on a real Redis.

With no command, ratelab opens the terminal UI on the scenarios built into it;
press ? inside for every key.`

// redisURLEnv is what REDIS_URL does.
const redisURLEnv = `The Redis to use when --redis is not given: by a scenario whose lanes run on
Redis, and by ratelab bench.`

// seeAlso points to the rest of the documentation.
const seeAlso = `The README and docs/cli.md in ratelab's repository: the scenario file format,
the CSV columns, the charts and reports, and shell completion
(ratelab completion --help).`

// roff escapes s for roff text: a backslash is written \e, a dash \- (so --csv
// is two hyphen-minus signs that copy and paste as typed), and any other
// character beyond ASCII by its code point, \[u2026], so the page reads the same
// whether or not the formatter is told the file is UTF-8.
func roff(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r > unicode.MaxASCII:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// roffLines is s escaped, line by line, with a line that would start with a
// control character (. or ') protected by \&.
func roffLines(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.Trim(s, "\n"), "\n") {
		line = roff(strings.TrimRight(line, " "))
		if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			line = `\&` + line
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// roffParagraphs is s's paragraphs (separated by blank lines), each after .PP,
// filled by the formatter; lines indented in s (commands to type) are kept as
// they are.
func roffParagraphs(s string) string {
	var b strings.Builder
	for _, p := range strings.Split(strings.TrimSpace(s), "\n\n") {
		if strings.TrimSpace(p) == "" {
			continue
		}
		b.WriteString(".PP\n")
		literal := false
		for _, line := range strings.Split(p, "\n") {
			indented := strings.HasPrefix(line, " ")
			switch {
			case indented && !literal:
				b.WriteString(".nf\n")
			case !indented && literal:
				b.WriteString(".fi\n")
			}
			literal = indented
			b.WriteString(roffLines(line))
		}
		if literal {
			b.WriteString(".fi\n")
		}
	}
	return b.String()
}
