package scenarios

import (
	"errors"
	"fmt"
	"io"
	"time"

	"ratelab/sim"
	"ratelab/traces"
)

// A trace client replays a request log (see package traces). The compiler reads
// the whole file once: every line is checked (a bad one is counted and shown, or
// under --strict an error with its line), the keys are interned, the rows counted,
// the span measured; the run then streams the file again for each lane.

// traceScan is what one read of a trace client's file found.
type traceScan struct {
	opts   traces.Options
	origin time.Duration // subtracted from the rows' times: the first second of a dated trace, else 0
	span   time.Duration // from the origin to past the last row, in whole seconds
	cutoff time.Duration // rows at or after this (from the origin) are not replayed; -1: none were cut
	keys   []string      // the replayed rows' keys, in order of first use
	rows   int64         // rows replayed
	past   int64         // rows at or after the cutoff
	cost   int64         // the largest cost replayed
	stats  traces.Stats
	format traces.Detected // the format read, and how it was chosen
}

// hasTrace says whether any client replays a trace.
func (c *compiler) hasTrace() bool {
	for _, spec := range c.s.Clients {
		if spec.Pattern.Value() == patternTrace {
			return true
		}
	}
	return false
}

// traceSpan reads every trace client's file and returns the duration that covers
// them all (start + span), for a scenario that does not set one.
func (c *compiler) traceSpan() (time.Duration, error) {
	var longest time.Duration
	for i := range c.s.Clients {
		spec := &c.s.Clients[i]
		if spec.Pattern.Value() != patternTrace {
			continue
		}
		bad := func(key, format string, args ...any) error {
			return c.fail([]any{"client", i, key}, "client %q: %s", spec.Name, fmt.Sprintf(format, args...))
		}
		scan, err := c.scanTrace(spec, -1, bad)
		if err != nil {
			return 0, err
		}
		c.scans[i] = scan
		longest = max(longest, spec.Start.Duration+scan.span)
	}
	return longest, nil
}

// traceOptions are how spec's file is read.
func (c *compiler) traceOptions(spec *ClientSpec, bad func(string, string, ...any) error) (traces.Options, error) {
	o := traces.Options{Key: spec.Key, TimeField: spec.TimeField, CostField: spec.CostField, Strict: c.overrides.Strict,
		MaxCost: sim.MaxTraceCost, Seed: c.seed()}
	var err error
	// a format not set is left to the reader: the file's content, or its name
	o.Format, o.TimeFormat = spec.Format.Value(), spec.TimeFormat.Value()
	if o.Spread, err = traces.ParseSpread(spec.Spread.Mode); err != nil || spec.Spread.Duration.Duration != 0 {
		return o, bad("spread", "a trace's spread is \"none\" or \"uniform\", not a duration (got %s)", spec.Spread)
	}
	if w := spec.ReorderWindow; w != nil {
		if w.Duration < 0 || w.Duration > 24*time.Hour {
			return o, bad("reorder_window", "reorder_window must be from 0 to 24h (got %s)", w)
		}
		o.ReorderWindow = w.Duration
		if o.ReorderWindow == 0 {
			o.ReorderWindow = time.Microsecond // 0 means sorted: no row may go back
		}
	}
	for _, e := range spec.Exclude {
		ex, err := traces.ParseExclusions(e)
		if err != nil {
			return o, bad("exclude", "exclude: %v", err)
		}
		o.Exclude = append(o.Exclude, ex...)
	}
	if o.Spread == traces.SpreadUniform && o.ReorderWindow != 0 && o.ReorderWindow < time.Second {
		return o, bad("reorder_window", "spread = \"uniform\" moves rows within their second, so reorder_window must be at least 1s (got %s)", spec.ReorderWindow)
	}
	return o, nil
}

// seed is the scenario's seed with the overrides applied (it seeds the spread).
func (c *compiler) seed() uint64 {
	switch {
	case c.overrides.Seed != nil:
		return *c.overrides.Seed
	case c.s.Seed != nil:
		return *c.s.Seed
	}
	return 1
}

// openTrace opens spec's file with o, the rows' times made relative to origin.
func (c *compiler) openTrace(spec *ClientSpec, o traces.Options, origin time.Duration) (*traceRows, error) {
	rc, err := c.open(spec.File)
	if err != nil {
		return nil, err
	}
	r, err := traces.Open(spec.File, rc, o)
	if err != nil {
		return nil, err
	}
	return &traceRows{r: r, origin: origin}, nil
}

// scanTrace reads spec's file once. Rows from cutoff on (from the trace's origin)
// are counted but not kept; cutoff < 0 keeps them all.
func (c *compiler) scanTrace(spec *ClientSpec, cutoff time.Duration, bad func(string, string, ...any) error) (*traceScan, error) {
	if spec.File == "" {
		return nil, bad("file", "a trace client needs file = \"path/to/access.log\" (relative to %s)", c.src.Name)
	}
	o, err := c.traceOptions(spec, bad)
	if err != nil {
		return nil, err
	}
	tr, err := c.openTrace(spec, o, 0)
	var unknown *traces.UnknownFormatError
	switch {
	case errors.As(err, &unknown):
		return nil, bad("format", "%v; set format = \"clf\", \"jsonl\" or \"csv\"", err)
	case err != nil:
		return nil, bad("file", "%v (the path is relative to %s)", err, c.src.Name)
	}
	defer tr.Close()
	o.Format = tr.r.Format().Format // the later reads need not tell it again
	scan := &traceScan{opts: o, cutoff: cutoff, format: tr.r.Format()}
	seen := map[string]bool{}
	for n := 0; ; n++ {
		row, err := tr.r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, bad("file", "%v", err)
		}
		if n == 0 && tr.r.Stats().Dated {
			scan.origin = row.At.Truncate(time.Second)
		}
		at := row.At - scan.origin
		scan.span = at.Truncate(time.Second) + time.Second
		if cutoff >= 0 && at >= cutoff {
			scan.past++
			continue
		}
		scan.rows++
		if scan.rows > MaxOffered {
			return nil, bad("file", "%s has more than %d rows; ratelab replays at most that many requests (set duration to replay its start)", spec.File, MaxOffered)
		}
		if !seen[row.Key] {
			if len(c.cfg.Keys)+len(scan.keys) >= MaxKeys {
				return nil, bad("file", "%s has more than %d distinct keys", spec.File, MaxKeys)
			}
			seen[row.Key] = true
			scan.keys = append(scan.keys, row.Key)
		}
		scan.cost = max(scan.cost, row.Cost)
	}
	scan.stats = tr.r.Stats()
	return scan, nil
}

// trace compiles a trace client: its file read once (or the read made for the
// duration reused), its keys interned in its tier.
func (c *compiler) trace(i int, spec *ClientSpec, cl *sim.Client, tier int, bad func(string, string, ...any) error) error {
	cutoff := cl.Stop - cl.Start
	scan := c.scans[i]
	if scan == nil || scan.span > cutoff {
		var err error
		if scan, err = c.scanTrace(spec, cutoff, bad); err != nil {
			return err
		}
	}
	if scan.rows == 0 {
		return bad("file", "%s has no request within the client's first %s; raise stop (or duration), or lower start", spec.File, cutoff)
	}
	t := sim.Trace{KeyIndex: make(map[string]int, len(scan.keys)), Rows: int(scan.rows), MaxCost: scan.cost}
	for _, k := range scan.keys {
		t.KeyIndex[k] = len(cl.Keys)
		cl.Keys = append(cl.Keys, c.key(k, tier))
	}
	o, origin := scan.opts, scan.origin
	o.Strict = false // the file was read whole already; the run skips what that read reported
	t.Open = func() (sim.TraceReader, error) { return c.openTrace(spec, o, origin) }
	t.Report = sim.TraceReport{File: spec.File, Format: o.Format.String(), Rows: scan.rows, PastEnd: scan.past, CutoffMS: float64(cl.Stop) / float64(time.Millisecond), Unparsed: scan.stats.Unparsed}
	if scan.format.By == traces.FormatByContent {
		t.Report.FormatByContent = scan.format.Layout
	}
	for _, p := range scan.stats.Shown {
		t.Report.Shown = append(t.Report.Shown, fmt.Sprintf("%s:%d: %s", spec.File, p.Line, p.Why))
	}
	cl.Pattern = t
	return nil
}

// traceRows hands a traces.Reader's rows to the engine, their times relative to
// the trace's origin.
type traceRows struct {
	r      *traces.Reader
	origin time.Duration
}

func (t *traceRows) Next() (sim.TraceRow, error) {
	row, err := t.r.Next()
	return sim.TraceRow{At: row.At - t.origin, Key: row.Key, Cost: row.Cost}, err
}

func (t *traceRows) Close() error { return t.r.Close() }
