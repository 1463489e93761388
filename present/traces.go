package present

import (
	"fmt"
	"io"
	"time"

	"ratelab/internal/format"
	"ratelab/internal/printable"
	"ratelab/sim"
)

// WriteTraceNotes prints, for cfg, a line per trace client saying what was replayed and
// what was not (rows past the end, lines that could not be read, the first of
// them); nothing when there is no trace.
func WriteTraceNotes(w io.Writer, cfg *sim.Config) {
	for _, t := range sim.TraceReports(cfg) {
		format := t.Format
		if t.FormatByContent != "" {
			format += ": " + t.FormatByContent + ", told by its content"
		}
		fmt.Fprintf(w, "  trace %s (%s): %s replayed", printable.String(t.File), format, plural(t.Rows, "request", "requests"))
		if t.PastEnd > 0 {
			fmt.Fprintf(w, "; %s at or after the end (%s) not replayed", plural(t.PastEnd, "row", "rows"), time.Duration(t.CutoffMS*float64(time.Millisecond)))
		}
		if t.Unparsed > 0 {
			verb := "were"
			if t.Unparsed == 1 {
				verb = "was"
			}
			fmt.Fprintf(w, "; %s could not be read and %s skipped (--strict makes that an error):", plural(t.Unparsed, "line", "lines"), verb)
			for _, s := range t.Shown {
				fmt.Fprintf(w, "\n    %s", printable.String(fmt.Sprint(s)))
			}
			if int64(len(t.Shown)) < t.Unparsed {
				fmt.Fprintf(w, "\n    … and %d more", t.Unparsed-int64(len(t.Shown)))
			}
		}
		fmt.Fprintln(w)
	}
	if c := cfg.Classes; c != nil {
		heavy := HeavyKeys(cfg)
		fmt.Fprintf(w, "  heavy hitters (as ratelab tune classes them): %d of %d keys", len(heavy), len(cfg.Keys))
		if k := cfg.WatchKey; k >= 0 && k < len(cfg.Keys) {
			fmt.Fprintf(w, "; watched: %s", printable.String(cfg.Keys[k].Name))
		}
		if k := c.Typical; k >= 0 && k < len(cfg.Keys) {
			fmt.Fprintf(w, "; typical ordinary key: %s", printable.String(cfg.Keys[k].Name))
		}
		fmt.Fprintln(w)
	}
}

// HeavyKeys are the names of the keys cfg's classes call heavy hitters, in
// the configuration's order; nil without classes.
func HeavyKeys(cfg *sim.Config) []string {
	if cfg.Classes == nil {
		return nil
	}
	var out []string
	for k, h := range cfg.Classes.Heavy {
		if h && k < len(cfg.Keys) {
			out = append(out, cfg.Keys[k].Name)
		}
	}
	return out
}

// plural is format.Plural.
func plural(n int64, one, many string) string { return format.Plural(n, one, many) }
