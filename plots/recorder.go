package plots

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

// Recorder keeps what the charts need of a run's decisions as they stream by: a
// row sink (session.Sinks.Rows) beside the CSV's, so the zoom on the busiest
// moment — which is known only once the run is over, from its metrics — is
// counted from the decisions themselves without running the scenario again.
//
// Each decision is kept as 8 bytes (its time to the microsecond, its lane, its
// answer), in time order: the newest in memory, up to recorderMemory of them,
// the rest in a temporary file, removed from its folder as soon as it is made so
// nothing is left behind whatever happens to the process. Close releases it.
type Recorder struct {
	buf   []byte
	file  *os.File
	count int64 // decisions kept, in the file and then in buf
	err   error
}

// recorderMemory is the most decisions a Recorder keeps in memory before it
// writes them to its file.
var recorderMemory = 1 << 17

// A decision is packed as its time in µs (the high 42 bits: 50 days), its lane
// (21 bits) and whether it was allowed (the low bit). The zoom's bins are whole
// microseconds starting on a multiple of themselves, so the time to the
// microsecond puts each decision in the bin its exact time does.
const (
	timeShift = 22
	laneBits  = 21
	maxLanes  = 1 << laneBits
	maxMicros = 1<<(64-timeShift) - 1
)

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{} }

// Rows keeps rows, which come in time order (as a run's row sink has them).
func (r *Recorder) Rows(rows []sim.Row) error {
	if r.err != nil {
		return r.err
	}
	for i := range rows {
		row := &rows[i]
		us := int64(row.At / algorithms.Resolution)
		if us < 0 || us > maxMicros || row.Lane >= maxLanes {
			r.err = fmt.Errorf("plots: a decision at %v in lane %d is past what the charts' recorder holds (50 days, %d lanes)", row.At, row.Lane, maxLanes)
			return r.err
		}
		v := uint64(us)<<timeShift | uint64(row.Lane)<<1
		if row.Allowed {
			v |= 1
		}
		r.buf = binary.LittleEndian.AppendUint64(r.buf, v)
		r.count++
		if len(r.buf) >= 8*recorderMemory {
			if err := r.spill(); err != nil {
				r.err = err
				return err
			}
		}
	}
	return nil
}

// spill writes what is in memory to the end of the file.
func (r *Recorder) spill() error {
	if r.file == nil {
		f, err := os.CreateTemp("", "ratelab-decisions-")
		if err != nil {
			return err
		}
		os.Remove(f.Name()) // it lives as long as it is open
		r.file = f
	}
	if _, err := r.file.Write(r.buf); err != nil {
		return fmt.Errorf("keeping the decisions for the charts: %w", err)
	}
	r.buf = r.buf[:0]
	return nil
}

// Close releases the file; the Recorder is empty after.
func (r *Recorder) Close() error {
	r.buf, r.count = nil, 0
	if r.file == nil {
		return nil
	}
	err := r.file.Close()
	r.file = nil
	return err
}

// fill counts the decisions kept in z's stretch into its bins: those on disk
// found by a binary search for the stretch's start, then read through to its end.
func (r *Recorder) fill(z *Zoom) error {
	if r.err != nil {
		return r.err
	}
	onDisk := r.count - int64(len(r.buf)/8)
	at := func(i int64) (uint64, error) {
		if i >= onDisk {
			return binary.LittleEndian.Uint64(r.buf[8*(i-onDisk):]), nil
		}
		var b [8]byte
		if _, err := r.file.ReadAt(b[:], 8*i); err != nil {
			return 0, fmt.Errorf("reading back the decisions for the charts: %w", err)
		}
		return binary.LittleEndian.Uint64(b[:]), nil
	}
	from := uint64(z.From/algorithms.Resolution) << timeShift
	var searchErr error
	first := sort.Search(int(r.count), func(i int) bool {
		v, err := at(int64(i))
		searchErr = errors.Join(searchErr, err)
		return v >= from
	})
	if searchErr != nil {
		return searchErr
	}
	var chunk []byte
	for i := int64(first); i < r.count; i++ {
		var v uint64
		if i < onDisk {
			if len(chunk) == 0 {
				n := min(onDisk-i, 1<<13)
				chunk = make([]byte, 8*n)
				if _, err := r.file.ReadAt(chunk, 8*i); err != nil && err != io.EOF {
					return fmt.Errorf("reading back the decisions for the charts: %w", err)
				}
			}
			v, chunk = binary.LittleEndian.Uint64(chunk), chunk[8:]
		} else {
			v = binary.LittleEndian.Uint64(r.buf[8*(i-onDisk):])
		}
		t := time.Duration(v>>timeShift) * algorithms.Resolution
		if t >= z.To {
			break
		}
		z.count(t, int(v>>1&(maxLanes-1)), v&1 == 1)
	}
	return nil
}
