package tune

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// A trace whose requests do not fit the memory budget is spilled to disk in the
// one pass that reads it: each request to one of spillBuckets files by its key's
// hash, so a key's requests are all in one file, in time order. A sweep then
// reads the buckets a batch at a time — as many as fit half the budget —, puts
// the batch in time order and replays it through every policy on every core;
// every policy's counts add up over the batches (see replay.go). Memory holds the
// keys and one batch, not the trace.

// spillBuckets is how many files the requests are spread over: a batch is at
// least one, so a trace spills to about spillBuckets times the budget at most
// before a batch outgrows it (the keys are hashed evenly).
const spillBuckets = 256

// spill is the buckets on disk.
type spill struct {
	dir   string
	files [spillBuckets]*os.File
	w     [spillBuckets]*bufio.Writer
	n     [spillBuckets]int64 // requests in each
	buf   [requestBytes]byte
}

// SpillError is a failure to write the requests to disk or to read them back
// (a full disk, a folder that cannot be written, an I/O error): a failure of
// the machine at run time, not of the trace or the flags.
type SpillError struct{ Err error }

func (e *SpillError) Error() string { return e.Err.Error() }
func (e *SpillError) Unwrap() error { return e.Err }

// readingBack is what a sweep does with a spill.
const readingBack = "reading back what was spilled"

// spillFailed is the SpillError for doing what on the spill in folder dir.
func spillFailed(dir, what string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the bucket's own name says nothing
	}
	fix := "free space there, or set TMPDIR to a folder with room"
	switch {
	case what == readingBack:
		fix = "run it again, or set TMPDIR to another folder"
	case errors.Is(err, fs.ErrNotExist):
		fix = "set TMPDIR to a folder that exists"
	case errors.Is(err, fs.ErrPermission):
		fix = "set TMPDIR to a folder you can write to"
	}
	return &SpillError{fmt.Errorf("the trace does not fit in memory, and %s in %s failed: %w; %s", what, dir, err, fix)}
}

// live are the spills not yet removed, so that a process about to exit on a
// signal removes them (RemoveTemporary), as it removes its outputs' temporary
// files (internal/atomicfile).
var live = struct {
	sync.Mutex
	spills map[*spill]bool
	closed bool // RemoveTemporary has run: no spill is made after
}{spills: map[*spill]bool{}}

// RemoveTemporary removes every spill not yet removed, for a process about to
// exit without returning through the Trace.Close its command deferred (a
// signal it could not wait on); no spill is made after it. A spill being
// written to is removed too: what is written after goes to files no longer in
// any folder, gone when the process exits.
func RemoveTemporary() {
	live.Lock()
	defer live.Unlock()
	live.closed = true
	for s := range live.spills {
		s.removeLocked()
	}
}

// newSpill creates the bucket files in a new folder of dir (os.TempDir() when
// empty).
func newSpill(dir string) (*spill, error) {
	live.Lock()
	defer live.Unlock()
	if dir == "" {
		dir = os.TempDir()
	}
	if live.closed {
		return nil, &SpillError{errors.New("the process is stopping")}
	}
	d, err := os.MkdirTemp(dir, "ratelab-tune-")
	if err != nil {
		return nil, spillFailed(dir, "making a folder to spill it to disk", err)
	}
	s := &spill{dir: d}
	live.spills[s] = true
	for i := range s.files {
		f, err := os.Create(filepath.Join(d, fmt.Sprintf("%03d", i)))
		if err != nil {
			s.removeLocked()
			return nil, spillFailed(dir, "spilling it to disk", err)
		}
		s.files[i], s.w[i] = f, bufio.NewWriterSize(f, 32<<10)
	}
	return s, nil
}

// add appends q to bucket b.
func (s *spill) add(b uint16, q Request) error {
	binary.LittleEndian.PutUint64(s.buf[0:], uint64(q.At))
	binary.LittleEndian.PutUint32(s.buf[8:], q.Key)
	binary.LittleEndian.PutUint32(s.buf[12:], q.Cost)
	s.n[b]++
	if _, err := s.w[b].Write(s.buf[:]); err != nil {
		return spillFailed(filepath.Dir(s.dir), "spilling it to disk", err)
	}
	return nil
}

// flush writes out what the buffers hold and releases them.
func (s *spill) flush() error {
	for i, w := range s.w {
		if err := w.Flush(); err != nil {
			return spillFailed(filepath.Dir(s.dir), "spilling it to disk", err)
		}
		s.w[i] = nil
	}
	return nil
}

// remove deletes the buckets.
func (s *spill) remove() error {
	live.Lock()
	defer live.Unlock()
	return s.removeLocked()
}

// removeLocked deletes the buckets, with live locked; once only.
func (s *spill) removeLocked() error {
	if !live.spills[s] {
		return nil
	}
	delete(live.spills, s)
	for _, f := range s.files {
		if f != nil {
			f.Close()
		}
	}
	return os.RemoveAll(s.dir)
}

// batches groups the buckets, in order, into batches of at most most bytes (at
// least one bucket each); each loads as one block in time order.
func (s *spill) batches(most int64) []func() ([][]Request, error) {
	var out []func() ([][]Request, error)
	for lo := 0; lo < spillBuckets; {
		hi, size := lo+1, s.n[lo]
		for hi < spillBuckets && (size+s.n[hi])*requestBytes <= most {
			size += s.n[hi]
			hi++
		}
		from, to, n := lo, hi, size
		out = append(out, func() ([][]Request, error) { return s.load(from, to, n) })
		lo = hi
	}
	return out
}

// load reads buckets [from, to) holding n requests into one block, in time
// order (a stable sort: each bucket is in time order, and keys do not meet
// across buckets).
func (s *spill) load(from, to int, n int64) ([][]Request, error) {
	reqs := make([]Request, 0, n)
	var buf [requestBytes]byte
	for b := from; b < to; b++ {
		r := bufio.NewReaderSize(io.NewSectionReader(s.files[b], 0, s.n[b]*requestBytes), 256<<10)
		for range s.n[b] {
			if _, err := io.ReadFull(r, buf[:]); err != nil {
				return nil, spillFailed(filepath.Dir(s.dir), readingBack, err)
			}
			reqs = append(reqs, Request{At: int64(binary.LittleEndian.Uint64(buf[0:])), Key: binary.LittleEndian.Uint32(buf[8:]), Cost: binary.LittleEndian.Uint32(buf[12:])})
		}
	}
	slices.SortStableFunc(reqs, func(a, b Request) int {
		switch {
		case a.At < b.At:
			return -1
		case a.At > b.At:
			return 1
		}
		return 0
	})
	return [][]Request{reqs}, nil
}
