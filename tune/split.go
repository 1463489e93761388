package tune

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"ratelab/traces"
)

// PartsOf is the source a path names: a directory's files (not those whose
// name starts with a dot), a pattern's matches (as a shell expands it: see pattern.go), each
// ranked by its place in name order; or one file.
func PartsOf(path string) (Source, error) {
	open := func(name string) func() (io.ReadCloser, error) {
		return func() (io.ReadCloser, error) { return os.Open(name) }
	}
	var names []string
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return Source{}, err
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".") {
				names = append(names, filepath.Join(path, e.Name()))
			}
		}
		if len(names) == 0 {
			return Source{}, fmt.Errorf("%s is a directory with no file in it, not a request log; give the log file itself, or the folder of a log partitioned by key", path)
		}
	} else if IsPattern(path) {
		var err error
		if names, err = globParts(path); err != nil {
			return Source{}, err
		}
	} else {
		return OneFile(path, open(path)), nil
	}
	// every part a file (a symlink to one too): a folder or a device among
	// them would be a part left out, or a read that never ends
	for _, n := range names {
		if err := isPart(n, path, names); err != nil {
			return Source{}, err
		}
	}
	sort.Strings(names)
	src := Source{Name: path}
	for i, n := range names {
		src.Files = append(src.Files, SourceFile{Name: n, Rank: i, Open: open(n)})
	}
	return src, nil
}

// Share is the files of src a worker reads as part p: those whose rank is K
// modulo N (every file for the whole source).
func (src Source) Share(p Partition) Source {
	out := Source{Name: src.Name}
	for _, f := range src.Files {
		if p.All() || f.Rank%p.N == p.K {
			out.Files = append(out.Files, f)
		}
	}
	return out
}

// SplitStats are what a split read and wrote.
type SplitStats struct {
	Stats traces.Stats
	// Parts are the requests written to each part; Keys its keys.
	Parts, Keys []int64
	// Format is the log's format, which the parts keep.
	Format traces.Detected
}

// SplitWriteError is a part that could not be written (a full disk, too
// many open files): a failure at run time, not of the input.
type SplitWriteError struct {
	Part string
	Err  error
}

func (e *SplitWriteError) Error() string {
	var pe *os.PathError
	if errors.As(e.Err, &pe) {
		return fmt.Sprintf("writing %s: %v", e.Part, pe.Err)
	}
	return fmt.Sprintf("writing %s: %v", e.Part, e.Err)
}

func (e *SplitWriteError) Unwrap() error { return e.Err }

// MaxSplitParts bounds the parts of a split: each holds a gzip stream open.
const MaxSplitParts = 4096

// SplitName is the file name of part k of a split: part-00003.log.gz.
func SplitName(k int, f traces.Format) string {
	ext := map[traces.Format]string{traces.FormatCLF: ".log", traces.FormatJSONL: ".jsonl", traces.FormatCSV: ".csv"}[f]
	return fmt.Sprintf("part-%05d%s.gz", k, ext)
}

// Split reads a log once and writes its requests into n parts by key — each
// key's lines in one part, the part its hash gives (the same as --partition
// K/N) —, each part a gzip stream of the log's own lines in the order they are
// read (time order), a CSV's header first in every part. Lines that cannot be
// read are left out (counted in the stats). Memory holds the reorder window
// and the keys' parts, whatever the log's size.
func Split(name string, open func() (io.ReadCloser, error), o traces.Options, n int, create func(name string) (io.WriteCloser, error)) (*SplitStats, error) {
	if n < 1 || n > MaxSplitParts {
		return nil, fmt.Errorf("--parts must be from 1 to %d (got %d)", MaxSplitParts, n)
	}
	rc, err := open()
	if err != nil {
		return nil, err
	}
	o.Raw = true
	r, err := traces.Open(name, rc, o)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	type out struct {
		f  io.WriteCloser
		gz *gzip.Writer
		bw *bufio.Writer
	}
	outs := make([]out, n)
	defer func() {
		for _, w := range outs {
			if w.f != nil {
				w.f.Close()
			}
		}
	}()
	st := &SplitStats{Parts: make([]int64, n), Keys: make([]int64, n), Format: r.Format()}
	for k := range outs {
		f, err := create(SplitName(k, st.Format.Format))
		if err != nil {
			return nil, &SplitWriteError{Part: SplitName(k, st.Format.Format), Err: err}
		}
		gz := gzip.NewWriter(f)
		outs[k] = out{f: f, gz: gz, bw: bufio.NewWriterSize(gz, 64<<10)}
		if h := r.Header(); h != nil {
			outs[k].bw.Write(h)
			outs[k].bw.WriteByte('\n')
		}
	}
	part := map[string]int{}
	for {
		row, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		k, ok := part[row.Key]
		if !ok {
			k = int(keyHash(row.Key) % uint64(n))
			part[row.Key] = k
			st.Keys[k]++
		}
		st.Parts[k]++
		w := outs[k].bw
		w.Write(row.Raw)
		if err := w.WriteByte('\n'); err != nil {
			return nil, &SplitWriteError{Part: SplitName(k, st.Format.Format), Err: err}
		}
	}
	for k, w := range outs {
		if err := w.bw.Flush(); err != nil {
			return nil, &SplitWriteError{Part: SplitName(k, st.Format.Format), Err: err}
		}
		if err := w.gz.Close(); err != nil {
			return nil, &SplitWriteError{Part: SplitName(k, st.Format.Format), Err: err}
		}
		err := w.f.Close()
		outs[k].f = nil
		if err != nil {
			return nil, &SplitWriteError{Part: SplitName(k, st.Format.Format), Err: err}
		}
	}
	st.Stats = r.Stats()
	return st, nil
}
