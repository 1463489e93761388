package tune

import (
	"container/heap"
	"fmt"
	"io"
	"slices"

	"ratelab/traces"
)

// A log partitioned by key — a directory of files, or a glob's matches, each
// holding whole keys, as Spark's repartition, DuckDB's PARTITION_BY or ratelab
// tune split write it — is read as one log: its files' rows merged in time
// order, a tie between files broken by the file's rank (its place in name
// order) and then by line. That order is a fact of each row alone, so a worker
// that reads some of the files sees its keys' rows in the order one run over
// every file sees them, and a key first appears at its least (time, rank,
// line) either way (see Summary).

// Source is the files a log is read from.
type Source struct {
	// Name names the log in reports: the file, or the directory or pattern
	// the parts were found by.
	Name  string
	Files []SourceFile
}

// SourceFile is one file of a Source.
type SourceFile struct {
	Name string
	// Rank is its place among the log's parts (0 for a log of one file).
	Rank int
	Open func() (io.ReadCloser, error)
}

// OneFile is the source of a log of one file.
func OneFile(name string, open func() (io.ReadCloser, error)) Source {
	return Source{Name: name, Files: []SourceFile{{Name: name, Open: open}}}
}

// rows are a log's rows in time order, from one file or merged from several.
type rows interface {
	Next() (traces.Row, error)
	// Rank is the rank of the file the last row came from.
	Rank() int
	// Stats and Format are the log's, once Next has returned io.EOF.
	Stats() traces.Stats
	Format() traces.Detected
	// Files are the files read, with what each held, in the source's order.
	Files() []FileRead
	Close() error
}

// FileRead is one file of a log as it was read.
type FileRead struct {
	Name   string
	Rank   int
	Stats  traces.Stats
	Format traces.Detected
	// Blank says the file held nothing at all (no format to tell).
	Blank bool `json:",omitempty"`
}

func (p *part) read() FileRead {
	return FileRead{Name: p.name, Rank: p.rank, Stats: p.r.Stats(), Format: p.r.Format(), Blank: p.r.Empty()}
}

// openRows opens every file of src and returns their rows in the order above.
func openRows(src Source, o traces.Options) (rows, error) {
	if len(src.Files) == 0 {
		return nil, fmt.Errorf("%s: no file to read", src.Name)
	}
	m := &mergedRows{first: -1}
	if len(src.Files) > 1 {
		o.AllowEmpty = true // a part may hold no key; the log as a whole is checked (see LoadSource)
	}
	for _, f := range src.Files {
		rc, err := f.Open()
		if err != nil {
			m.Close()
			return nil, err
		}
		r, err := traces.Open(f.Name, rc, o)
		if err != nil {
			m.Close()
			return nil, err
		}
		// the parts that hold anything are of one format and one clock
		if a := m.full(); a != nil && !r.Empty() && r.Format().Format != a.r.Format().Format {
			b := r
			r.Close()
			m.Close()
			return nil, fmt.Errorf("%s is %s and %s is %s: the parts of one log are in one format", a.name, a.r.Format().Layout, f.Name, b.Format().Layout)
		}
		if a := m.full(); a != nil && !r.Empty() && r.Stats().Dated != a.r.Stats().Dated {
			r.Close()
			m.Close()
			return nil, fmt.Errorf("%s has times from the Unix epoch and %s from its start (or the other way round): the parts of one log are read with one time format", a.name, f.Name)
		}
		m.readers = append(m.readers, &part{r: r, name: f.Name, rank: f.Rank})
	}
	if len(m.readers) == 1 {
		return &oneFile{m.readers[0]}, nil
	}
	return m, nil
}

// part is one file's reader and the row it holds next.
type part struct {
	r    *traces.Reader
	name string
	rank int
	next traces.Row
}

// oneFile is the rows of a log of one file.
type oneFile struct{ p *part }

func (o *oneFile) Next() (traces.Row, error) { return o.p.r.Next() }
func (o *oneFile) Rank() int                 { return o.p.rank }
func (o *oneFile) Stats() traces.Stats       { return o.p.r.Stats() }
func (o *oneFile) Format() traces.Detected   { return o.p.r.Format() }
func (o *oneFile) Close() error              { return o.p.r.Close() }
func (o *oneFile) Files() []FileRead         { return []FileRead{o.p.read()} }

// mergedRows merges several files' rows: a heap of the files by their next
// row's (time, rank, line).
type mergedRows struct {
	readers []*part
	h       partHeap
	started bool
	last    int // the rank of the last row handed out
	first   int // the reader whose row was handed out first, -1 before
}

func (m *mergedRows) Next() (traces.Row, error) {
	if !m.started {
		m.started = true
		for _, p := range m.readers {
			if err := m.push(p); err != nil {
				return traces.Row{}, err
			}
		}
	}
	if len(m.h) == 0 {
		return traces.Row{}, io.EOF
	}
	p := m.h[0]
	row := p.next
	m.last = p.rank
	if m.first < 0 {
		m.first = slices.Index(m.readers, p)
	}
	heap.Pop(&m.h)
	if err := m.push(p); err != nil {
		return traces.Row{}, err
	}
	return row, nil
}

// push reads p's next row and puts it on the heap, unless p is done.
func (m *mergedRows) push(p *part) error {
	row, err := p.r.Next()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	p.next = row
	heap.Push(&m.h, p)
	return nil
}

func (m *mergedRows) Rank() int { return m.last }

func (m *mergedRows) Files() []FileRead {
	var out []FileRead
	for _, p := range m.readers {
		out = append(out, p.read())
	}
	return out
}

// Format is the first file's that is not empty.
func (m *mergedRows) Format() traces.Detected {
	if p := m.full(); p != nil {
		return p.r.Format()
	}
	return m.readers[0].r.Format()
}

// full is the first file that is not empty, nil when none is.
func (m *mergedRows) full() *part {
	for _, p := range m.readers {
		if !p.r.Empty() {
			return p
		}
	}
	return nil
}

// Stats are the files' stats added up (see MergeStats).
func (m *mergedRows) Stats() traces.Stats {
	var all []traces.Stats
	var names []string
	for _, p := range m.readers {
		all, names = append(all, p.r.Stats()), append(names, p.name)
	}
	return MergeStats(all, names, max(m.first, 0))
}

func (m *mergedRows) Close() error {
	for _, p := range m.readers {
		p.r.Close()
	}
	return nil
}

// MergeStats adds up the stats of a log's files, given in rank order: the rows,
// the lines skipped (the first shown, file by file, each naming its file) and
// excluded; the earliest and latest times, the coarsest resolution; the time
// zone of the file whose row came first (first, an index into all).
func MergeStats(all []traces.Stats, names []string, first int) traces.Stats {
	if len(all) == 1 {
		return all[0]
	}
	var s traces.Stats
	seen := false
	for i, st := range all {
		s.Rows += st.Rows
		s.Unparsed += st.Unparsed
		s.Excluded += st.Excluded
		for _, p := range st.Shown {
			if len(s.Shown) < traces.MaxUnparsedShown {
				p.File = names[i]
				s.Shown = append(s.Shown, p)
			}
		}
		s.Dated = s.Dated || st.Dated
		s.Resolution = max(s.Resolution, st.Resolution)
		if st.Rows == 0 {
			continue
		}
		if !seen || st.First < s.First {
			s.First = st.First
		}
		if !seen || st.Last > s.Last {
			s.Last = st.Last
		}
		seen = true
	}
	if first >= 0 && first < len(all) {
		s.Zone, s.ZoneKnown = all[first].Zone, all[first].ZoneKnown
	}
	return s
}

// partHeap orders files by their next row: time, then rank, then line.
type partHeap []*part

func (h partHeap) Len() int { return len(h) }
func (h partHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.next.At != b.next.At {
		return a.next.At < b.next.At
	}
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.next.Line < b.next.Line
}
func (h partHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *partHeap) Push(x any)   { *h = append(*h, x.(*part)) }
func (h *partHeap) Pop() any {
	old := *h
	p := old[len(old)-1]
	*h = old[:len(old)-1]
	return p
}
