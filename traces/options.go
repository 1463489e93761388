// Package traces reads request logs — the Common and Combined Log Formats of
// Apache and nginx, JSON Lines, CSV with a header — into requests in time order:
// when, whose key, what cost. A log is written as requests complete, so its lines
// are not sorted; a reader puts them back in order within a bounded reorder
// window, spreads one-second timestamps over their second when asked, and counts
// (and shows the first few of) the lines it could not read instead of dropping
// them silently. Files ending in .gz are decompressed on the fly, and a UTF-8
// byte-order mark at the start of a file is skipped.
//
// A reader holds the rows of one reorder window and the interned keys, never the
// whole file: replay streams it, whatever its length.
package traces

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// Format is the layout of a trace file's lines.
type Format int

const (
	// FormatAuto leaves the format to the reader: the file's content says it
	// (see Sniff), or else its name (FormatOf).
	FormatAuto Format = iota
	// FormatCSV is comma-separated values with a header row naming the columns;
	// ratelab's own time_ms,key[,cost] is one such file.
	FormatCSV
	// FormatCLF is the Common Log Format (`%h %l %u %t "%r" %>s %b`) and the
	// Combined one, which appends `"%{Referer}i" "%{User-agent}i"` (Apache's
	// mod_log_config; nginx's predefined "combined" writes the same). Time is
	// `[10/Oct/2000:13:55:36 -0700]`, to the second.
	FormatCLF
	// FormatJSONL is one JSON object per line with named fields.
	FormatJSONL
)

// formatNames are the names a scenario file or --format may use.
var formatNames = map[string]Format{"auto": FormatAuto, "csv": FormatCSV, "clf": FormatCLF, "common": FormatCLF, "combined": FormatCLF, "jsonl": FormatJSONL, "ndjson": FormatJSONL}

// FormatNames lists the names ParseFormat reads, sorted.
func FormatNames() []string { return sortedKeys(formatNames) }

// String is the format's name.
func (f Format) String() string { return [...]string{"auto", "csv", "clf", "jsonl"}[f] }

// ParseFormat reads a format's name: csv, clf (also common, combined), jsonl
// (also ndjson) or auto.
func ParseFormat(name string) (Format, error) {
	if f, ok := formatNames[name]; ok {
		return f, nil
	}
	return 0, fmt.Errorf("unknown format %q; use csv, clf (Common or Combined Log Format), jsonl or auto (by the file's content)", name)
}

// FormatOf is the format a file's name says, a .gz suffix aside: .log and .txt
// are Common/Combined Log Format, .jsonl, .ndjson and .json JSON Lines, .csv
// CSV; false when the name says none.
func FormatOf(name string) (Format, bool) {
	ext := strings.ToLower(path.Ext(strings.TrimSuffix(strings.ToLower(name), ".gz")))
	switch ext {
	case ".log", ".txt":
		return FormatCLF, true
	case ".jsonl", ".ndjson", ".json":
		return FormatJSONL, true
	case ".csv":
		return FormatCSV, true
	}
	return FormatAuto, false
}

// TimeFormat is how a JSON Lines or CSV time field is written.
type TimeFormat int

const (
	// TimeAuto: a column called time_ms holds milliseconds from the trace's
	// start (TimeOffsetMS); otherwise a string is RFC 3339, and a number is
	// Unix milliseconds when it is 1e11 or more (after March 1973), else Unix
	// seconds.
	TimeAuto TimeFormat = iota
	TimeOffsetMS
	TimeRFC3339
	TimeUnix
	TimeUnixMS
)

var timeFormatNames = map[string]TimeFormat{"auto": TimeAuto, "": TimeAuto, "ms": TimeOffsetMS, "rfc3339": TimeRFC3339, "unix": TimeUnix, "unix_ms": TimeUnixMS}

// TimeFormatNames lists the names ParseTimeFormat reads, sorted.
func TimeFormatNames() []string { return sortedKeys(timeFormatNames) }

// ParseTimeFormat reads a time format's name: auto, ms (milliseconds from the
// trace's start), rfc3339, unix (seconds) or unix_ms.
func ParseTimeFormat(name string) (TimeFormat, error) {
	if f, ok := timeFormatNames[name]; ok {
		return f, nil
	}
	return 0, fmt.Errorf("unknown time_format %q; use auto, ms (milliseconds from the start), rfc3339, unix (seconds) or unix_ms", name)
}

// Spread is what becomes of requests whose timestamps share an instant.
type Spread int

const (
	// SpreadNone keeps each request at its timestamp: a log stamped to the
	// second puts all of a second's requests at its first microsecond.
	SpreadNone Spread = iota
	// SpreadUniform moves each request to a point within its timestamp's
	// resolution (the second, for a Common Log), drawn uniformly by a hash of
	// the trace's seed and the line's number: the same file and seed give the
	// same times, every run.
	SpreadUniform
)

// spreadNames are the names ParseSpread reads; empty is none.
var spreadNames = map[string]Spread{"": SpreadNone, "none": SpreadNone, "uniform": SpreadUniform}

// SpreadNames lists the names ParseSpread reads, sorted.
func SpreadNames() []string { return sortedKeys(spreadNames) }

// ParseSpread reads "none" or "uniform".
func ParseSpread(name string) (Spread, error) {
	if s, ok := spreadNames[name]; ok {
		return s, nil
	}
	return 0, fmt.Errorf("spread must be \"none\" or \"uniform\" (got %q)", name)
}

// sortedKeys is m's keys but the empty one (which stands for the default), sorted.
func sortedKeys[V any](m map[string]V) []string {
	var keys []string
	for k := range m {
		if k != "" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// DefaultReorderWindow is how far back in time a line may go, behind the latest
// time already read, and still be put in order: longer than any request should
// take.
const DefaultReorderWindow = 5 * time.Minute

// MaxUnparsedShown is how many unreadable lines a reader keeps to show.
const MaxUnparsedShown = 5

// NoCost, as Options.CostField, reads no cost: every request costs 1.
const NoCost = "none"

// Options say how to read a trace.
type Options struct {
	// Format is the file's layout; FormatAuto (the zero value) lets the reader
	// tell it from the content or the name (see Open).
	Format Format
	// Key names what identifies a client: for a Common/Combined Log, ip (also
	// host), user, ident, method or path (without the query string); for JSON
	// Lines and CSV, field names. Several joined by "+" (ip+path) make one key
	// of their values joined by a space (where more than one may hold a space,
	// each value's "\" and " " escaped with a "\", so that two rows share a key
	// only when every value is the same: see appendKeyValue). Empty: ip for a
	// log, key otherwise.
	Key string
	// TimeField and CostField name the JSON Lines or CSV fields of the time and
	// the cost; empty: time (or a CSV's time_ms column) and cost. A row without
	// a cost costs 1; a CSV must have the cost column it names. CostField
	// NoCost reads no cost: every request costs 1 (as a product that counts
	// requests sees them).
	TimeField, CostField string
	TimeFormat           TimeFormat
	// ReorderWindow bounds how far a line's time may be behind the latest time
	// read; 0 is DefaultReorderWindow.
	ReorderWindow time.Duration
	Spread        Spread
	// Seed seeds SpreadUniform.
	Seed uint64
	// Strict makes any unreadable line an error instead of a counted skip.
	Strict bool
	// MaxCost is the largest cost a row may have; 0 is no limit.
	MaxCost int64
	// AllowEmpty accepts a file without a request (else an error at its end).
	AllowEmpty bool
	// Details reads each line's method, path, status and User-Agent into
	// Row.Detail (see Detail); an exclusion reads them whatever it says.
	Details bool
	// Exclude drops the requests that match any of its exclusions (counted in
	// Stats.Excluded, skipped by everything else).
	Exclude []Exclusion
	// Raw hands out each row's line as Row.Raw (a CSV record written back as
	// one line), for a tool that copies the lines it reads (tune split).
	Raw bool
}

// details says the parser must read each line's Detail.
func (o Options) details() bool { return o.Details || len(o.Exclude) > 0 }

// keyParts splits Key into its parts, with the default for the format.
func (o Options) keyParts() []string {
	k := o.Key
	if k == "" {
		k = "key"
		if o.Format == FormatCLF {
			k = "ip"
		}
	}
	parts := strings.Split(k, "+")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func (o Options) window() time.Duration {
	if o.ReorderWindow <= 0 {
		return DefaultReorderWindow
	}
	return o.ReorderWindow
}
