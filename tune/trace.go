// Package tune finds the limit that fits a trace: it replays a request log
// through a grid of algorithm × rate × burst for every period, every policy on
// every core, and reports for each how it treats ordinary keys and heavy
// hitters, then recommends the policy, or the pair of a short and a long limit,
// that holds every kind of heavy key hardest within a goal. A trace is what was
// offered, so nobody retries: each request is decided once.
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

// Trace is a request log read once: its requests in time order — in memory as
// Requests while they fit the budget, else spilled to disk by key (see
// spill.go) —, its keys interned, and what is known about each key.
type Trace struct {
	Name string
	Keys []string
	// KeyCount is the number of keys (len(Keys), except in a report merged
	// from partitions, which keeps only the keys it names).
	KeyCount int
	// Requests, in blocks of blockSize (so loading never copies them to grow),
	// unless they were spilled to disk (Spilled).
	Requests [][]Request
	// Count is the number of requests (of every partition); Span the time from
	// the origin to past the last, in whole seconds.
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
	// Partition is the keys whose requests were kept (every key's are counted in
	// Volume and the peaks).
	Partition Partition
	// Profiles are what each key did, when LoadOptions.Profiles asked (else
	// nil): see Profile.
	Profiles []Profile

	peaks   []periodPeaks // by period (see PeakOver)
	peaksMu sync.Mutex
	origin  time.Duration
	keyOf   map[string]uint32
	maxCost int64
	spill   *spill // the requests on disk, when they did not fit the budget
	budget  int64
	// firstSeen is where each key first appears, when LoadOptions.FirstSeen
	firstSeen []seen
	// files are the files read, and what each held
	files []FileRead
	// kindPairs are each key's kind (an index in Rules) when it does not and
	// when it does stand out, for a trace made from summaries (see Plan),
	// which has no profiles
	kindPairs [][2]uint8
}

// blockSize is the requests in one block of Trace.Requests: 1 MiB.
const blockSize = 1 << 16

// MaxCost is the largest cost a compact request holds.
const MaxCost = 1<<32 - 1

// requestBytes is a request's size in memory and on disk.
const requestBytes = 16

// LoadOptions say how to hold a trace.
type LoadOptions struct {
	// Budget is the most bytes the requests may take in memory (16 a request);
	// past it they are spilled to disk by key, and swept part by part, each part
	// at most half of it.
	Budget int64
	// Partition keeps only the requests of the keys in it (every key is still
	// counted: volumes and peaks are the whole trace's).
	Partition Partition
	// TempDir is where spilled requests go; empty is os.TempDir().
	TempDir string
	// Periods are periods other than the standard ones to measure every key's
	// peak over while reading (a partition keeps only its keys' requests, so it
	// cannot measure them later).
	Periods []time.Duration
	// Profiles builds each key's Profile from the lines' methods, paths,
	// statuses and User-Agents (Trace.Profiles).
	Profiles bool
	// CountOnly keeps no request: the keys, their volumes, peaks and profiles
	// only (a worker's scan, see Scan).
	CountOnly bool
	// FirstSeen notes where each key first appears (see seen).
	FirstSeen bool
	// Origin, when not nil, is the log's first second (from the epoch) for a
	// dated log, in place of its first request's: a worker reading its part of
	// a log measures time from the whole log's origin (see Plan).
	Origin *time.Duration
	// AllowEmpty accepts a log without a request (a part may hold no key).
	AllowEmpty bool
}

// seen is where a key first appears in a log: at µs from the epoch (or the
// log's start, for an undated log), in the file of rank Rank, at Line. Keys
// appear in the order of (At, Rank, Line), in one run over every file and in
// every worker's share of them alike.
type seen struct {
	At         int64
	Rank, Line int
}

// before says a appears before b.
func (a seen) before(b seen) bool {
	if a.At != b.At {
		return a.At < b.At
	}
	if a.Rank != b.Rank {
		return a.Rank < b.Rank
	}
	return a.Line < b.Line
}

// originMicros is the origin in µs: a request's time from the epoch (or the
// log's start) is its time from the origin plus this. A key's peaks and its
// pages a minute are counted in windows of that time, aligned to the clock's
// seconds, minutes, hours and days, so that they do not depend on where the
// log (or a worker's part of it) starts.
func (t *Trace) originMicros() int64 { return int64(t.origin / time.Microsecond) }

// Load reads the trace open gives once, keeping requests in memory up to budget
// bytes and spilling them to disk past that (see LoadWith).
func Load(name string, open func() (io.ReadCloser, error), o traces.Options, budget int64) (*Trace, error) {
	return LoadWith(name, open, o, LoadOptions{Budget: budget})
}

// LoadWith reads the trace open gives once, in one pass: it interns the keys,
// counts each key's requests and peaks over the standard periods, and keeps the
// requests of lo.Partition's keys in memory while they take at most lo.Budget
// bytes, moving them to disk by key past that. Close removes what it put on
// disk.
func LoadWith(name string, open func() (io.ReadCloser, error), o traces.Options, lo LoadOptions) (t *Trace, err error) {
	return LoadSource(OneFile(name, open), o, lo)
}

// LoadSource reads a log of one file or several (see Source) as LoadWith does.
func LoadSource(src Source, o traces.Options, lo LoadOptions) (t *Trace, err error) {
	name := src.Name
	o.Details = o.Details || lo.Profiles
	o.AllowEmpty = o.AllowEmpty || lo.AllowEmpty
	r, err := openRows(src, o)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	t = &Trace{Name: name, keyOf: map[string]uint32{}, Format: r.Format(), Spread: o.Spread, Partition: lo.Partition, budget: lo.Budget}
	if lo.Origin != nil {
		t.origin = *lo.Origin
	}
	defer func() {
		if err != nil {
			t.Close()
		}
	}()
	peaks := newPeakCounters(0, lo.Periods...)
	var bucket []uint16 // per key: its bucket on disk, or notKept
	var kept int64      // requests kept
	for {
		row, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return t, err
		}
		if t.Count == 0 && r.Stats().Dated && lo.Origin == nil {
			t.origin = row.At.Truncate(time.Second)
		}
		k, ok := t.keyOf[row.Key]
		if !ok {
			if len(t.Keys) == 1<<32-1 {
				return t, fmt.Errorf("%s: more than %d keys", name, uint32(1<<32-1))
			}
			k = uint32(len(t.Keys))
			t.keyOf[row.Key] = k
			t.Keys = append(t.Keys, row.Key)
			t.Volume = append(t.Volume, 0)
			if lo.Profiles {
				t.Profiles = append(t.Profiles, Profile{})
			}
			if lo.FirstSeen {
				t.firstSeen = append(t.firstSeen, seen{At: int64(row.At / time.Microsecond), Rank: r.Rank(), Line: row.Line})
			}
			peaks.grow()
			h := keyHash(row.Key)
			b := uint16(h >> 56) // the high bits: the partition takes the low ones
			if !lo.Partition.Has(h) {
				b = notKept
			}
			bucket = append(bucket, b)
		}
		if row.Cost > MaxCost {
			return t, fmt.Errorf("%s:%d: cost %d is more than %d", name, row.Line, row.Cost, int64(MaxCost))
		}
		at := int64((row.At - t.origin) / time.Microsecond)
		if at < 0 {
			return t, fmt.Errorf("%s: a request at %s, before the log's first second (%s) that the plan was made for: the plan is of another log", name, row.At, t.origin)
		}
		t.Count++
		t.maxCost = max(t.maxCost, row.Cost)
		t.Volume[k]++
		if lo.Profiles {
			t.Profiles[k].add(at+t.originMicros(), &row.Detail)
		}
		peaks.add(k, at+t.originMicros())
		t.Span = time.Duration(at/1e6+1) * time.Second
		if bucket[k] == notKept || lo.CountOnly {
			continue
		}
		kept++
		q := Request{At: at, Key: k, Cost: uint32(row.Cost)}
		if t.spill == nil && kept*requestBytes > lo.Budget {
			// past the budget: every request so far to disk, and the rest after
			if t.spill, err = newSpill(lo.TempDir); err != nil {
				return t, err
			}
			for _, block := range t.Requests {
				for _, q := range block {
					if err := t.spill.add(bucket[q.Key], q); err != nil {
						return t, err
					}
				}
			}
			t.Requests = nil
		}
		if t.spill != nil {
			if err := t.spill.add(bucket[k], q); err != nil {
				return t, err
			}
			continue
		}
		if n := len(t.Requests); n == 0 || len(t.Requests[n-1]) == blockSize {
			t.Requests = append(t.Requests, make([]Request, 0, min(blockSize, max(1024, 2*len(t.Requests)*blockSize))))
		}
		last := &t.Requests[len(t.Requests)-1]
		*last = append(*last, q)
	}
	if t.spill != nil {
		if err := t.spill.flush(); err != nil {
			return t, err
		}
	}
	t.Stats, t.files = r.Stats(), r.Files()
	if t.Count == 0 && !lo.AllowEmpty {
		return t, fmt.Errorf("%s: none of its %d files holds a request; give a log with at least one", name, len(src.Files))
	}
	t.KeyCount = len(t.Keys)
	t.setPeaks(peaks)
	return t, nil
}

// notKept marks a key outside the partition: its requests are counted, not kept.
const notKept = 1 << 8

// Replayable says the trace holds every key's requests (in memory or on
// disk) to replay: not a partition's, nor a report merged from partials.
func (t *Trace) Replayable() bool {
	return t.Partition.All() && (t.spill != nil || len(t.Requests) > 0)
}

// Spilled says the requests are on disk.
func (t *Trace) Spilled() bool { return t.spill != nil }

// Close removes the requests spilled to disk, if any.
func (t *Trace) Close() error {
	if t.spill == nil {
		return nil
	}
	return t.spill.remove()
}

// FromRequests is a trace of requests already in memory (sorted by time, keys
// indexing keys), for tests and benchmarks.
func FromRequests(name string, keys []string, reqs []Request) *Trace {
	t := &Trace{Name: name, Keys: keys, KeyCount: len(keys), Requests: [][]Request{reqs}, Count: int64(len(reqs)), Volume: make([]int64, len(keys))}
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

// parts are the trace's requests as parts of disjoint keys, each in time order,
// to replay one after the other: all of them in memory, or the spilled buckets
// a batch at a time.
func (t *Trace) parts() []func() ([][]Request, error) {
	if t.spill == nil {
		return []func() ([][]Request, error){func() ([][]Request, error) { return t.Requests, nil }}
	}
	return t.spill.batches(t.budget / 2)
}

// each calls fn with every request kept, key by key part, in time order within
// each part.
func (t *Trace) each(fn func(Request)) error {
	for _, part := range t.parts() {
		blocks, err := part()
		if err != nil {
			return err
		}
		for _, block := range blocks {
			for _, q := range block {
				fn(q)
			}
		}
	}
	return nil
}

// MaxRequestCost is the largest cost of any request.
func (t *Trace) MaxRequestCost() int64 { return max(t.maxCost, 1) }
