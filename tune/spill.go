package tune

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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

// newSpill creates the bucket files in a new folder of dir (os.TempDir() when
// empty).
func newSpill(dir string) (*spill, error) {
	d, err := os.MkdirTemp(dir, "ratelab-tune-")
	if err != nil {
		return nil, fmt.Errorf("the trace does not fit --memory and cannot be spilled to disk: %v", err)
	}
	s := &spill{dir: d}
	for i := range s.files {
		f, err := os.Create(filepath.Join(d, fmt.Sprintf("%03d", i)))
		if err != nil {
			s.remove()
			return nil, fmt.Errorf("the trace does not fit --memory and cannot be spilled to disk: %v", err)
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
		return fmt.Errorf("spilling the trace to %s: %v", s.dir, err)
	}
	return nil
}

// flush writes out what the buffers hold and releases them.
func (s *spill) flush() error {
	for i, w := range s.w {
		if err := w.Flush(); err != nil {
			return fmt.Errorf("spilling the trace to %s: %v", s.dir, err)
		}
		s.w[i] = nil
	}
	return nil
}

// remove deletes the buckets.
func (s *spill) remove() error {
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
				return nil, fmt.Errorf("reading the spilled trace in %s: %v", s.dir, err)
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
