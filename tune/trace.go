// Package tune finds the limit that fits a trace: it replays a request log
// through a grid of algorithm × rate × burst, every policy on every core, and
// reports for each how it treats ordinary keys and heavy hitters, then
// recommends the tightest policy that meets a goal. A trace is what was offered,
// so nobody retries: each request is decided once.
package tune

import (
	"fmt"
	"io"
	"sync"
	"time"

	"ratelab/traces"
)

// Request is one request of a compact trace: 16 bytes.
type Request struct {
	At   int64  // µs from the trace's origin
	Key  uint32 // index into Trace.Keys
	Cost uint32
}

// Trace is a request log read once: its requests in time order (in memory as
// Requests when they fit the budget, else read again from the file for each
// worker), its keys interned, and what is known about each key.
type Trace struct {
	Name string
	Keys []string
	// Requests, in blocks of blockSize (so loading never copies them to grow),
	// unless the trace is streamed (Streamed).
	Requests [][]Request
	Streamed bool
	// Count is the number of requests; Span the time from the origin to past
	// the last, in whole seconds.
	Count int64
	Span  time.Duration
	// Volume is each key's requests; Peak the most it sent in one second (see
	// PeakOver for other periods).
	Volume []int64
	Peak   []int64
	Stats  traces.Stats
	// Format is the format the file was read in, and how it was chosen (given,
	// by its content, by its name).
	Format traces.Detected
	// Spread is how requests stamped the same instant were placed (see
	// traces.Spread).
	Spread traces.Spread

	peaks   []periodPeaks // by period (see PeakOver)
	peaksMu sync.Mutex
	origin  time.Duration
	open    func() (*traces.Reader, error)
	keyOf   map[string]uint32
	maxCost int64
}

// blockSize is the requests in one block of Trace.Requests: 1 MiB.
const blockSize = 1 << 16

// MaxCost is the largest cost a compact request holds.
const MaxCost = 1<<32 - 1

// Load reads the trace open gives once. Requests are kept in memory while they
// take at most budget bytes (16 a request); past that the trace is streamed:
// every worker reads the file again (the keys are still kept, once).
func Load(name string, open func() (io.ReadCloser, error), o traces.Options, budget int64) (*Trace, error) {
	reader := func() (*traces.Reader, error) {
		rc, err := open()
		if err != nil {
			return nil, err
		}
		return traces.Open(name, rc, o)
	}
	r, err := reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	t := &Trace{Name: name, keyOf: map[string]uint32{}, Format: r.Format(), Spread: o.Spread}
	o.Strict = false             // the later reads skip what this one reported
	o.Format = r.Format().Format // and need not tell the format again
	t.open = reader
	peaks := newPeakCounters(0)
	for {
		row, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if t.Count == 0 && r.Stats().Dated {
			t.origin = row.At.Truncate(time.Second)
		}
		k, ok := t.keyOf[row.Key]
		if !ok {
			if len(t.Keys) == 1<<32-1 {
				return nil, fmt.Errorf("%s: more than %d keys", name, uint32(1<<32-1))
			}
			k = uint32(len(t.Keys))
			t.keyOf[row.Key] = k
			t.Keys = append(t.Keys, row.Key)
			t.Volume = append(t.Volume, 0)
			peaks.grow()
		}
		if row.Cost > MaxCost {
			return nil, fmt.Errorf("%s:%d: cost %d is more than %d", name, row.Line, row.Cost, int64(MaxCost))
		}
		at := int64((row.At - t.origin) / time.Microsecond)
		t.Count++
		t.maxCost = max(t.maxCost, row.Cost)
		t.Volume[k]++
		peaks.add(k, at)
		t.Span = time.Duration(at/1e6+1) * time.Second
		if !t.Streamed && (t.Count)*16 > budget {
			t.Streamed, t.Requests = true, nil
		}
		if !t.Streamed {
			if n := len(t.Requests); n == 0 || len(t.Requests[n-1]) == blockSize {
				t.Requests = append(t.Requests, make([]Request, 0, blockSize))
			}
			last := &t.Requests[len(t.Requests)-1]
			*last = append(*last, Request{At: at, Key: k, Cost: uint32(row.Cost)})
		}
	}
	t.Stats = r.Stats()
	t.setPeaks(peaks)
	return t, nil
}

// FromRequests is a trace of requests already in memory (sorted by time, keys
// indexing keys), for tests and benchmarks.
func FromRequests(name string, keys []string, reqs []Request) *Trace {
	t := &Trace{Name: name, Keys: keys, Requests: [][]Request{reqs}, Count: int64(len(reqs)), Volume: make([]int64, len(keys))}
	peaks := newPeakCounters(len(keys))
	for _, r := range reqs {
		t.Volume[r.Key]++
		peaks.add(r.Key, r.At)
		t.maxCost = max(t.maxCost, int64(r.Cost))
		t.Span = time.Duration(r.At/1e6+1) * time.Second
	}
	t.setPeaks(peaks)
	return t
}

// setPeaks keeps the peaks measured while loading; Peak is the second's.
func (t *Trace) setPeaks(pcs peakCounters) {
	t.peaks = pcs.done()
	t.Peak = t.peaks[0].peak
}

// each calls fn with every request in time order: from memory, or read again
// from the file.
func (t *Trace) each(fn func(Request)) error {
	if !t.Streamed {
		for _, block := range t.Requests {
			for _, r := range block {
				fn(r)
			}
		}
		return nil
	}
	r, err := t.open()
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		row, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		fn(Request{At: int64((row.At - t.origin) / time.Microsecond), Key: t.keyOf[row.Key], Cost: uint32(row.Cost)})
	}
}

// MaxRequestCost is the largest cost of any request.
func (t *Trace) MaxRequestCost() int64 { return max(t.maxCost, 1) }
