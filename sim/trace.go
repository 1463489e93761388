package sim

import (
	"time"
)

// TraceRow is one request of a trace file.
type TraceRow struct {
	At   time.Duration // from the start of the trace, to the microsecond
	Key  string
	Cost int64
}

// TraceReader reads a trace file row by row, in time order, so replay holds one
// row at a time (the traces package: one reorder window) whatever the file's size.
type TraceReader interface {
	// Next returns the next row, or io.EOF after the last. An error names the
	// file and line.
	Next() (TraceRow, error)
	Close() error
}

// MaxTraceCost is the largest cost a trace row may carry.
const MaxTraceCost = 1 << 30

// TraceReport is what reading a trace client's file found, shown with the run's
// results so nothing in the file is left out silently.
type TraceReport struct {
	File   string `json:"file"`
	Format string `json:"format"`
	// FormatByContent is the layout the file's first lines showed ("Combined
	// Log Format") when neither the scenario nor the file's name said it.
	FormatByContent string `json:"format_by_content,omitempty"`
	// Rows is the requests replayed.
	Rows int64 `json:"rows"`
	// PastEnd is the rows at or after the client's stop, CutoffMS milliseconds
	// into the run, not replayed.
	PastEnd  int64   `json:"past_end"`
	CutoffMS float64 `json:"cutoff_ms"`
	// Unparsed is the lines that could not be read, skipped; Shown the first
	// few, as "file:line: why".
	Unparsed int64    `json:"unparsed"`
	Shown    []string `json:"unparsed_shown,omitempty"`
}

// TraceReports are the reports of cfg's trace clients, in client order.
func TraceReports(cfg *Config) []TraceReport {
	var out []TraceReport
	for _, c := range cfg.Clients {
		if t, ok := c.Pattern.(Trace); ok {
			out = append(out, t.Report)
		}
	}
	return out
}
