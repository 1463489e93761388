package traces

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"syscall"
	"time"
)

// Row is one request of a trace.
type Row struct {
	// At is when the request came, in whole microseconds: from the Unix epoch for
	// dated formats (a log's [10/Oct/2000:13:55:36 -0700], RFC 3339, Unix
	// seconds), from the trace's start for milliseconds-from-the-start (a CSV's
	// time_ms). Stats.Dated says which.
	At   time.Duration
	Key  string
	Cost int64
	// Line is the row's line in the file (its first line, for a CSV record
	// spanning several).
	Line int
	// Detail is the line's method, path, status and User-Agent, when
	// Options.Details asks for them.
	Detail Detail
	// Raw is the line, without its end, when Options.Raw asks for it.
	Raw []byte
}

// Problem is a line that could not be read, and why.
type Problem struct {
	// File is the file the line is in, when a log is read from several (see
	// MergeStats); "" for a log of one file.
	File string `json:",omitempty"`
	Line int
	Why  string
}

// Where is FILE:LINE, the file being name unless the problem names its own.
func (p Problem) Where(name string) string {
	if p.File != "" {
		name = p.File
	}
	return fmt.Sprintf("%s:%d", name, p.Line)
}

// Stats describe what a reader has read so far.
type Stats struct {
	Rows     int64 // requests read and handed out
	Unparsed int64 // lines that could not be read, skipped
	// Shown are the first MaxUnparsedShown of the unreadable lines.
	Shown []Problem
	// First and Last are the earliest and the latest time handed out.
	First, Last time.Duration
	// Dated says the times are from the Unix epoch (else from the trace's start).
	Dated bool
	// Resolution is the coarsest a timestamp read was written to: 1s for an
	// access log (its times are whole seconds), 1ms for whole milliseconds.
	// Spread does not change it.
	Resolution time.Duration
	// Excluded are the requests an exclusion dropped (Options.Exclude).
	Excluded int64
	// Zone is the first dated line's time zone, as seconds east of UTC, when
	// the format writes one (ZoneKnown): a Common Log's -0700. Times are shown
	// in it, as the log writes them.
	Zone      int
	ZoneKnown bool
}

// Reader reads a trace's requests in time order: lines within the reorder window
// of the latest time read are put back in order (by time, then line), one that is
// further behind is an error naming its line, its time, the window and the fix.
// It holds one window of rows and the distinct keys, so replay streams any length
// of file.
type Reader struct {
	name   string
	closer io.Closer
	parse  parser
	opts   Options

	pending window
	newest  int64 // µs: the latest time read
	newLine int   // its line
	window  int64 // µs
	eof     bool
	stats   Stats
	keys    map[string]string
	blank   bool              // the file holds nothing (Options.AllowEmpty)
	header  []byte            // a CSV's header line
	details map[string]string // interned methods and agents
	err     error

	detected Detected
}

// parser reads a file's records one at a time. next returns the next record, or a
// *lineProblem for a record it could not read (the reader counts and skips it),
// io.EOF at the end, or another error that stops the read.
type parser interface {
	next() (record, error)
	dated() bool
}

// record is one request as read, before reordering: at and res in µs (res the
// timestamp's resolution, which a uniform spread fills).
type record struct {
	at, res int64
	key     string
	cost    int64
	line    int
	detail  Detail
	raw     []byte // Options.Raw
}

// lineProblem is a record that could not be read.
type lineProblem struct {
	line int
	why  string
}

func (p *lineProblem) Error() string { return fmt.Sprintf("line %d: %s", p.line, p.why) }

// Open reads the trace in rc (named name in messages; closed by Close) with o:
// gzip-compressed data (by its magic number) is decompressed, a UTF-8 byte-order
// mark skipped. With FormatAuto the format is the one the first lines are in
// (Sniff), else the one the name says (FormatOf); when neither says, the error
// is an *UnknownFormatError. A header that does not fit o (a CSV without the
// named columns) is an error now.
func Open(name string, rc io.ReadCloser, o Options) (*Reader, error) {
	r := &Reader{name: name, closer: rc, opts: o, window: int64(o.window() / time.Microsecond), newest: -1 << 62, keys: map[string]string{}, details: map[string]string{}}
	br := bufio.NewReaderSize(rc, 256<<10)
	var text io.Reader = br
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF {
		// the file itself cannot be read (a folder, an I/O error): say so, not
		// that its lines tell no format
		rc.Close()
		return nil, readError(name, err)
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		text = gz
	}
	br = bufio.NewReaderSize(&lineGuard{r: text}, 256<<10)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte{0xEF, 0xBB, 0xBF}) {
		br.Discard(3)
	}
	if head, _ := br.Peek(1); len(head) == 0 && o.AllowEmpty {
		// nothing to tell a format by, and nothing to read: a part of a log
		// partitioned by key that holds no key
		r.blank, r.eof = true, true
		r.detected = Detected{Format: o.Format, Layout: "an empty file", By: FormatByContent}
		r.parse = emptyParser{}
		return r, nil
	}
	r.detected = Detected{Format: o.Format, Layout: layouts[o.Format], By: FormatGiven}
	if o.Format == FormatAuto {
		head, _ := br.Peek(sniffBytes)
		byName, named := FormatOf(name)
		sniffed, ok := Sniff(head)
		switch {
		case ok && named && sniffed.Format == byName:
			sniffed.By = FormatByName
			r.detected = sniffed
		case ok:
			r.detected = sniffed
		case named:
			r.detected = Detected{Format: byName, Layout: layouts[byName], By: FormatByName}
		default:
			rc.Close()
			first := ""
			if lines := sampleLines(head); len(lines) > 0 {
				first = clip(lines[0], 60)
			}
			return nil, &UnknownFormatError{Name: name, First: first}
		}
		o.Format = r.detected.Format
		r.opts.Format = o.Format
	}
	switch o.Format {
	case FormatCLF:
		r.parse, err = newCLF(r, br, o)
	case FormatJSONL:
		r.parse, err = newJSONL(r, br, o)
	case FormatCSV:
		r.parse, err = newCSV(r, br, o)
	default:
		err = fmt.Errorf("unknown format %d", o.Format)
	}
	if err != nil {
		rc.Close()
		var lp *lineProblem
		if errors.As(err, &lp) {
			return nil, fmt.Errorf("%s:%d: %s", name, lp.line, lp.why)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	r.stats.Dated = r.parse.dated()
	return r, nil
}

// readError is why the file name cannot be read at all: a folder is named as
// one, with what to give instead; another error as the system says it.
func readError(name string, err error) error {
	if errors.Is(err, syscall.EISDIR) {
		return fmt.Errorf("%s is a directory, not a request log; give the log file itself (for several logs, join them into one file, oldest first)", name)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s cannot be read: %w", name, err)
}

// layouts describe the formats for a person, when the content did not say more.
var layouts = map[Format]string{FormatCLF: "Common/Combined Log Format", FormatJSONL: "JSON Lines", FormatCSV: "CSV with a header"}

// Format is the format the file is read in, and how it was chosen.
func (r *Reader) Format() Detected { return r.detected }

// Empty says the file holds nothing at all, read with Options.AllowEmpty: it
// has no format and no rows.
func (r *Reader) Empty() bool { return r.blank }

// emptyParser is an empty file's parser.
type emptyParser struct{}

func (emptyParser) next() (record, error) { return record{}, io.EOF }
func (emptyParser) dated() bool           { return false }

// Header is a CSV's header line, written back as one line; nil for the other
// formats.
func (r *Reader) Header() []byte { return r.header }

// Close closes the file.
func (r *Reader) Close() error { return r.closer.Close() }

// Stats are what has been read so far; complete once Next has returned io.EOF.
func (r *Reader) Stats() Stats { return r.stats }

// Next returns the next request in time order, or io.EOF after the last. A file
// with no request at all is an error at its end, saying what was wrong with its
// lines.
func (r *Reader) Next() (Row, error) {
	if r.err != nil {
		return Row{}, r.err
	}
	for !r.pending.ready(r.newest-r.window, r.eof) {
		if r.eof {
			if r.stats.Rows == 0 && !r.opts.AllowEmpty {
				r.err = r.empty()
				return Row{}, r.err
			}
			return Row{}, io.EOF
		}
		if err := r.read(); err != nil {
			r.err = err
			return Row{}, err
		}
	}
	rec := r.pending.pop()
	if r.stats.Rows == 0 {
		r.stats.First = time.Duration(rec.at) * time.Microsecond
	}
	r.stats.Rows++
	r.stats.Last = time.Duration(rec.at) * time.Microsecond
	return Row{At: time.Duration(rec.at) * time.Microsecond, Key: rec.key, Cost: rec.cost, Line: rec.line, Detail: rec.detail, Raw: rec.raw}, nil
}

// read reads one more record into the window.
func (r *Reader) read() error {
	rec, err := r.parse.next()
	var bad *lineProblem
	switch {
	case err == io.EOF:
		r.eof = true
		return nil
	case errors.As(err, &bad):
		return r.skip(bad)
	case err != nil:
		return fmt.Errorf("%s: %w", r.name, err)
	}
	if rec.at < 0 || rec.at > maxTime {
		return r.skip(&lineProblem{rec.line, fmt.Sprintf("time %s is outside %s, the times ratelab can place", r.show(rec.at), r.timeRange())})
	}
	if len(r.opts.Exclude) > 0 && excluded(r.opts.Exclude, &rec.detail) {
		r.stats.Excluded++
		return nil
	}
	if r.opts.MaxCost > 0 && rec.cost > r.opts.MaxCost {
		return r.skip(&lineProblem{rec.line, fmt.Sprintf("cost %d is more than %d", rec.cost, r.opts.MaxCost)})
	}
	r.stats.Resolution = max(r.stats.Resolution, time.Duration(rec.res)*time.Microsecond)
	if r.opts.Spread == SpreadUniform && rec.res > 1 {
		rec.at = min(rec.at+int64(spreadHash(r.opts.Seed, uint64(rec.line))%uint64(rec.res)), maxTime)
	}
	if rec.at < r.newest-r.window {
		return &OrderError{File: r.name, Line: rec.line, At: r.show(rec.at), Behind: time.Duration(r.newest-rec.at) * time.Microsecond,
			Latest: r.show(r.newest), LatestLine: r.newLine, Window: r.opts.window()}
	}
	if rec.at > r.newest {
		r.newest, r.newLine = rec.at, rec.line
	}
	r.pending.push(rec)
	return nil
}

// skip counts a line that could not be read (and keeps the first few to show), or
// stops the read with it under Strict.
func (r *Reader) skip(p *lineProblem) error {
	if r.opts.Strict {
		return fmt.Errorf("%s:%d: %s (with --strict every line must be readable)", r.name, p.line, p.why)
	}
	r.stats.Unparsed++
	if len(r.stats.Shown) < MaxUnparsedShown {
		r.stats.Shown = append(r.stats.Shown, Problem{Line: p.line, Why: p.why})
	}
	return nil
}

// empty is the error for a file that gave no request.
func (r *Reader) empty() error {
	if r.stats.Excluded > 0 && r.stats.Unparsed == 0 {
		return fmt.Errorf("%s: every one of its %d requests was left out by the exclusions (--exclude, or the trace's exclude); leave out fewer", r.name, r.stats.Excluded)
	}
	if r.stats.Unparsed == 0 {
		return fmt.Errorf("%s: the trace has no requests; give a file with at least one", r.name)
	}
	p := r.stats.Shown[0]
	return fmt.Errorf("%s: none of its %d lines could be read as %s; the first: %s:%d: %s (check format, key and the field names)", r.name, r.stats.Unparsed, r.opts.Format, r.name, p.Line, p.Why)
}

// maxTime is the latest time a row may have, in µs from the epoch (or from the
// start): a Row's At is a time.Duration, which holds up to 2262-04-11. With
// times from 0 (1970, or the start) the span between any two rows fits one too.
const maxTime = math.MaxInt64 / int64(time.Microsecond/time.Nanosecond)

// timeRange is the times a row may have (0 to maxTime), for a message.
func (r *Reader) timeRange() string {
	if r.stats.Dated {
		return "1970-01-01 to " + time.UnixMicro(maxTime).UTC().Format(time.DateOnly)
	}
	return r.show(0) + " to " + r.show(maxTime)
}

// show renders a time in µs for a message: a date for dated formats, else
// milliseconds from the start.
// OrderError is a line further behind the latest time read before it than the
// reorder window: the file is not in time order.
type OrderError struct {
	File       string
	Line       int
	At         string        // the line's time, as the file writes times
	Behind     time.Duration // how far behind the latest
	Latest     string        // the latest time read before it, at LatestLine
	LatestLine int
	Window     time.Duration
}

func (e *OrderError) Error() string {
	return fmt.Sprintf("%s:%d: time %s is %s behind the latest time read before it (%s, line %d), more than the reorder window of %s; raise reorder_window (--reorder-window) to at least that, or sort the file by time",
		e.File, e.Line, e.At, e.Behind, e.Latest, e.LatestLine, e.Window)
}

func (r *Reader) show(us int64) string {
	if r.stats.Dated {
		return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.999999Z")
	}
	return fmt.Sprintf("%.3fms", float64(us)/1000)
}

// intern returns the key's one string, so the rows of a key share it and reading
// a known key allocates nothing.
func (r *Reader) intern(b []byte) string {
	if s, ok := r.keys[string(b)]; ok {
		return s
	}
	s := string(b)
	r.keys[s] = s
	return s
}

// spreadHash is SplitMix64's finaliser over the seed and the line: a uniform,
// deterministic draw per row.
func spreadHash(seed, line uint64) uint64 {
	x := seed*0x9e3779b97f4a7c15 + line + 0x632be59bd9b4e019
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
