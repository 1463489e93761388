package sim

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// TraceRow is one request of a trace file.
type TraceRow struct {
	At   time.Duration // from the start of the trace, to the microsecond
	Key  string
	Cost int64
}

// TraceReader reads a trace file row by row, so replay holds one row at a time
// whatever the file's size.
type TraceReader interface {
	// Next returns the next row, or io.EOF after the last. An error names the
	// file and line.
	Next() (TraceRow, error)
	Close() error
}

// MaxTraceCost is the largest cost a trace row may carry.
const MaxTraceCost = 1 << 30

// NewTraceReader reads the trace CSV in r, named name in errors: a header row
// time_ms,key[,cost], then one row per request with time_ms (milliseconds from the
// start, decimals allowed, never decreasing), key (not empty) and an optional cost
// (a whole number >= 1, default 1).
func NewTraceReader(name string, r io.ReadCloser) (TraceReader, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	t := &traceReader{name: name, csv: cr, closer: r}
	header, err := cr.Read()
	if err == io.EOF {
		r.Close()
		return nil, fmt.Errorf("%s: the file is empty; want a header row time_ms,key[,cost]", name)
	}
	if err != nil {
		r.Close()
		return nil, t.wrap(err)
	}
	names := strings.Join(header, ",")
	if names != "time_ms,key" && names != "time_ms,key,cost" {
		r.Close()
		return nil, fmt.Errorf("%s:1: header is %q; want time_ms,key or time_ms,key,cost", name, names)
	}
	t.hasCost = len(header) == 3
	return t, nil
}

type traceReader struct {
	name    string
	csv     *csv.Reader
	closer  io.Closer
	hasCost bool
	last    time.Duration
}

func (t *traceReader) Close() error { return t.closer.Close() }

func (t *traceReader) Next() (TraceRow, error) {
	rec, err := t.csv.Read()
	if err != nil {
		if err == io.EOF {
			return TraceRow{}, io.EOF
		}
		return TraceRow{}, t.wrap(err)
	}
	line, _ := t.csv.FieldPos(0)
	bad := func(format string, args ...any) (TraceRow, error) {
		return TraceRow{}, fmt.Errorf("%s:%d: %s", t.name, line, fmt.Sprintf(format, args...))
	}
	want := 2
	if t.hasCost {
		want = 3
	}
	if len(rec) != want {
		return bad("%d fields; want %d (%s)", len(rec), want, map[bool]string{false: "time_ms,key", true: "time_ms,key,cost"}[t.hasCost])
	}
	ms, err := strconv.ParseFloat(strings.TrimSpace(rec[0]), 64)
	if err != nil || math.IsNaN(ms) || math.IsInf(ms, 0) {
		return bad("time_ms %q is not a number of milliseconds", rec[0])
	}
	if ms < 0 || ms > float64(math.MaxInt64/int64(time.Millisecond)) {
		return bad("time_ms %s is out of range; want milliseconds from the start of the trace, >= 0", rec[0])
	}
	row := TraceRow{At: time.Duration(math.Round(ms*1000)) * time.Microsecond, Key: strings.TrimSpace(rec[1]), Cost: 1}
	if row.At < t.last {
		return bad("time_ms %s is before the previous row's %.3f; sort the file by time", rec[0], float64(t.last)/float64(time.Millisecond))
	}
	if row.Key == "" {
		return bad("key is empty")
	}
	if t.hasCost {
		c, err := strconv.ParseInt(strings.TrimSpace(rec[2]), 10, 64)
		if err != nil || c < 1 || c > MaxTraceCost {
			return bad("cost %q must be a whole number from 1 to %d", rec[2], MaxTraceCost)
		}
		row.Cost = c
	}
	t.last = row.At
	return row, nil
}

// wrap turns a csv.ParseError into "file:line: problem".
func (t *traceReader) wrap(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %v", t.name, pe.Line, pe.Err)
	}
	return fmt.Errorf("%s: %w", t.name, err)
}
