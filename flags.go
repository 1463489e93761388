package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"ratelab/internal/suggest"
)

// errHelp says --help was asked for and answered: exit 0.
var errHelp = errors.New("help shown")

// newFlags returns a flag set for a command whose help is usage (its "Usage:"
// lines, a blank line, what it does) followed by its flags. The flag package
// prints nothing: --help comes back from parseFlags as a *commandHelp, which
// dispatch prints on standard output, and a bad flag as a usage error.
func newFlags(name, usage string, _ io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	// Parse calls Usage on --help (and on a bad flag): it hands the text to
	// parseFlags through the output, which parseFlags sets for the call
	fs.Usage = func() { io.WriteString(fs.Output(), usage) }
	return fs
}

// parseFlags parses args into fs; --help is a *commandHelp (which is errHelp),
// anything else wrong a usage error that names the flag with two dashes, as the
// help writes it, and suggests the nearest flag for one not defined.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := parseOnly(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q; flags start with --", fs.Name(), fs.Arg(0))
	}
	return nil
}

// parseFlagsAndArgs is parseFlags for a command that also takes arguments, before,
// between or after its flags; it returns them in order.
func parseFlagsAndArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := parseOnly(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// parseOnly parses args into fs, stopping at the first argument that is not a
// flag.
func parseOnly(fs *flag.FlagSet, args []string) error {
	var usage strings.Builder
	fs.SetOutput(&usage)
	err := fs.Parse(args)
	fs.SetOutput(io.Discard)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		return &commandHelp{usage: usage.String(), flags: fs}
	}
	msg := dashed(err.Error())
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if near := suggest.Nearest(strings.TrimLeft(name, "-"), names); near != "" {
			msg += fmt.Sprintf("; did you mean --%s?", near)
		}
	}
	return usagef("%s: %s (ratelab %s --help lists the flags)", fs.Name(), msg, fs.Name())
}

// singleDash is a flag named with one dash in the flag package's messages
// ("invalid value "x" for flag -seed").
var singleDash = regexp.MustCompile(`(^|[\s:])-([A-Za-z][\w-]*)`)

// dashed is a flag package message with its flags written --name.
func dashed(msg string) string { return singleDash.ReplaceAllString(msg, "$1--$2") }

// commandHelp is a command's --help: its usage text and its flags. parseFlags
// returns it, dispatch prints it (write), and the man page and the shell
// completion read the same (see helpOf), so the three never disagree.
type commandHelp struct {
	usage string
	flags *flag.FlagSet
}

func (h *commandHelp) Error() string        { return errHelp.Error() }
func (h *commandHelp) Is(target error) bool { return target == errHelp }

// synopsis is the usage text's "Usage:" lines, up to the first blank line.
func (h *commandHelp) synopsis() string {
	s, _, _ := strings.Cut(strings.TrimSpace(h.usage), "\n\n")
	return s
}

// description is the usage text after the "Usage:" lines: what the command does.
func (h *commandHelp) description() string {
	_, d, _ := strings.Cut(strings.TrimSpace(h.usage), "\n\n")
	return strings.TrimSpace(d)
}

// helpWidth is the width the flags' descriptions are wrapped to.
const helpWidth = 80

// write prints the help: the usage text, then every flag as --name VALUE with
// its description (and its default) indented under it.
func (h *commandHelp) write(w io.Writer) {
	fmt.Fprintln(w, strings.TrimSpace(h.usage))
	flags := helpFlags(h.flags)
	if len(flags) == 0 {
		return
	}
	fmt.Fprint(w, "\nFlags:\n")
	for _, f := range flags {
		fmt.Fprintf(w, "  %s\n", f.synopsis())
		for _, line := range wrap(f.text(), helpWidth-6) {
			fmt.Fprintf(w, "      %s\n", line)
		}
	}
}

// helpFlag is one flag as the help, the man page and the completion show it.
type helpFlag struct {
	name  string
	value string // what follows the flag ("PATH"); empty for a switch (a bool flag)
	usage string // without the value's backquotes
	def   string // the default, if it is worth saying
}

// synopsis is "--csv PATH", or "--explain" for a switch.
func (f helpFlag) synopsis() string {
	if f.value == "" {
		return "--" + f.name
	}
	return "--" + f.name + " " + f.value
}

// text is the flag's description with its default.
func (f helpFlag) text() string {
	if f.def == "" {
		return f.usage
	}
	return fmt.Sprintf("%s (default: %s)", f.usage, f.def)
}

// helpFlags lists fs's flags in name order. A flag's value is named by the word
// in backquotes in its usage (as flag.UnquoteUsage reads it), else by its type
// in capitals; the default is shown unless it is empty, zero or false.
func helpFlags(fs *flag.FlagSet) []helpFlag {
	var out []helpFlag
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		if isSwitch(f) {
			value = ""
		} else if !strings.Contains(f.Usage, "`") {
			value = strings.ToUpper(value)
		}
		hf := helpFlag{name: f.Name, value: value, usage: usage}
		if !slices.Contains([]string{"", "0", "false"}, f.DefValue) {
			hf.def = f.DefValue
		}
		out = append(out, hf)
	})
	return out
}

// isSwitch says f takes no value (a bool flag: --explain).
func isSwitch(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// wrap breaks s into lines of at most width characters at spaces (a longer
// word stands alone on its line).
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// notEmpty refuses a flag among names that was given an empty value (--csv ""),
// which would otherwise be taken as not given at all.
func notEmpty(fs *flag.FlagSet, names ...string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && f.Value.String() == "" && slices.Contains(names, f.Name) {
			err = usagef("%s: --%s is empty; give a value or leave the flag out", fs.Name(), f.Name)
		}
	})
	return err
}
