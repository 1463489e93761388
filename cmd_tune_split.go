package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"ratelab/internal/atomicdir"
	"ratelab/internal/format"
	"ratelab/internal/outpath"
	"ratelab/internal/printable"
	"ratelab/traces"
	"ratelab/tune"
)

const tuneSplitUsage = `
Usage: ratelab tune split --parts N --out DIR [--trace FILE|-] [--format …] [--key …]

Splits a log by key for those who have no engine to partition it: one streaming
pass, any size, each key's lines into one of N parts (by the key's hash, as
--partition K/N), written as DIR/part-00000.log.gz … in the log's own format, a
CSV's header in each. Lines that cannot be read are left out and counted.`

// runTuneSplit is ratelab tune split.
func runTuneSplit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tune split", tuneSplitUsage, stderr)
	var o traceOptions
	o.flags(fs, true, true)
	var parts int
	var out string
	fs.IntVar(&parts, "parts", 0, fmt.Sprintf("how many parts, `N` (from 1 to %d)", tune.MaxSplitParts))
	fs.StringVar(&out, "out", "", "the `DIR` the parts are written to (made whole or not at all)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := notEmpty(fs, "trace", "out"); err != nil {
		return err
	}
	_, stop := interrupts() // a signal: the folder's temporary copy removed, nothing written, said so
	defer stop()
	if o.file == "" {
		o.file = "-"
	}
	switch {
	case parts == 0:
		return usagef("tune split: --parts N is required, N from 1 to %d", tune.MaxSplitParts)
	case parts < 1 || parts > tune.MaxSplitParts:
		return usagef("tune split: --parts %d: give N from 1 to %d", parts, tune.MaxSplitParts)
	case out == "":
		return usagef("tune split: --out DIR is required: the folder the parts are written to")
	case out == "-":
		return usagef("tune split: --out - would be a folder named -: split writes its parts to a folder (standard output cannot hold them); give the folder's path")
	case o.exclude != "":
		return usagef("tune split: --exclude is for the stages that read the parts (tune scan and sweep); split copies every line it can read")
	}
	to, err := o.options("tune split")
	if err != nil {
		return err
	}
	if tune.IsPattern(o.file) {
		return usagef("tune split: --trace %s is a pattern of files, and split reads one log (a file, or standard input): give the file, or tune the files as they are with ratelab tune --trace %s", format.ShellQuote(o.file), format.ShellQuote(o.file))
	}
	open := func() (io.ReadCloser, error) { return os.Open(o.file) }
	name := o.file
	if o.file == "-" {
		name, open = "standard input", func() (io.ReadCloser, error) { return io.NopCloser(os.Stdin), nil }
	}
	if err := logApart(o.file, outpath.Folder("--out", out)); err != nil {
		return err
	}
	return splitInto(out, name, open, to, parts, stdout)
}

// splitInto splits the log into parts written to the folder out, made whole or
// not at all, and says what went where.
func splitInto(out, name string, open func() (io.ReadCloser, error), to traces.Options, parts int, stdout io.Writer) error {
	d, err := atomicdir.Create(out)
	if err != nil {
		return usagef("tune split: --out %v", err)
	}
	defer d.Abort()
	st, err := tune.Split(name, open, to, parts, func(file string) (io.WriteCloser, error) {
		return os.Create(filepath.Join(d.Path(), file))
	})
	var write *tune.SplitWriteError
	switch {
	case errors.As(err, &write):
		return fmt.Errorf("tune split --out %s: %v; nothing was written", out, write)
	case err != nil:
		return usageError{err}
	}
	if err := d.Commit(); err != nil {
		return err
	}
	var keys int64
	for _, k := range st.Keys {
		keys += k
	}
	fmt.Fprintf(stdout, "%s (%s): %s from %s split into %s in %s\n", printable.Name(name), printable.String(st.Format.Layout),
		format.Plural(st.Stats.Rows, "request", "requests"), format.Plural(keys, "key", "keys"), format.Plural(int64(parts), "part", "parts"), printable.Name(out))
	const listed = 16
	for k := range min(parts, listed) {
		fmt.Fprintf(stdout, "  %s  %s, %s\n", tune.SplitName(k, st.Format.Format), format.Plural(st.Parts[k], "request", "requests"), format.Plural(st.Keys[k], "key", "keys"))
	}
	if parts > listed {
		fmt.Fprintf(stdout, "  … and %d more parts: %d to %d requests each\n", parts-listed, slices.Min(st.Parts[listed:]), slices.Max(st.Parts[listed:]))
	}
	if empty := slices.Index(st.Keys, 0); empty >= 0 {
		fmt.Fprintf(stdout, "%s holds no key (a hash leaves a part empty when there are few keys); every stage takes it as an empty part\n", tune.SplitName(empty, st.Format.Format))
	}
	if n := st.Stats.Unparsed; n > 0 {
		p := st.Stats.Shown[0]
		fmt.Fprintf(stdout, "%s could not be read and %s left out (first: %s: %s)\n", format.Plural(n, "line", "lines"), map[bool]string{true: "was", false: "were"}[n == 1], printable.String(p.Where(name)), printable.String(p.Why))
	}
	return nil
}
