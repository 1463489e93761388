package sim

import (
	"context"
	"sync/atomic"
	"time"
)

// Streaming the request rows. Each lane runs on a goroutine of its own and hands
// its rows, in the order it decided them (time order), to the run in batches of at
// most rowBatch through a channel that holds at most streamDepth batches: a lane
// that gets ahead of the writer waits for it. The run merges the lanes' heads by
// (time, lane) and hands the merged rows to the sink in batches of at most
// rowBatch as it goes, and gives each batch back to its lane once merged. Memory
// is fixed whatever the number of decisions in one tick: each lane owns
// streamBatches batches, allocated once, and the merge one more.
//
// The merge is the order the CSV promises (time, then lane; a lane's own rows in
// the order it decided them), and it is the same however the goroutines are
// scheduled: the merge takes a row only once every lane has either shown its
// next row or said it has no more for this advance.
//
// A lane holds its rows until their fate is known (fate.go), so at the end of an
// advance it may still owe rows decided before rows another lane has sent; it
// says from when (hold). The merge writes only rows before every such time and
// carries the rest to the next advance in a spool per lane (spool.go: in memory,
// then a temporary file), where they come before what the lanes send then. The
// rows carried are those decided since the oldest attempt still in flight, over
// all lanes.

// rowBatch is the most rows in one batch, from a lane or to the sink.
const rowBatch = 4096

// streamDepth is the most full batches a lane may have waiting for the merge.
const streamDepth = 2

// streamBatches is the batches a lane owns: the one it fills, those waiting, the
// one the merge is reading. A lane with none free waits for the merge.
const streamBatches = streamDepth + 2

// rowStream is one lane's side of the stream.
type rowStream struct {
	batch []Row        // being filled
	out   chan []Row   // full batches; nil ends an advance
	free  chan []Row   // batches the merge is done with, to fill again
	sent  atomic.Int64 // rows handed to the merge so far (a test watches it)
	// hold, set before the lane ends an advance, is the time of the first row it
	// still holds (never: none); its later rows are at or after it.
	hold time.Duration
}

func newRowStream() *rowStream {
	s := &rowStream{batch: make([]Row, 0, rowBatch), out: make(chan []Row, streamDepth), free: make(chan []Row, streamBatches)}
	for range streamBatches - 1 {
		s.free <- make([]Row, 0, rowBatch)
	}
	return s
}

// add appends a row, sending the batch when it is full.
func (s *rowStream) add(row Row) {
	s.batch = append(s.batch, row)
	if len(s.batch) == rowBatch {
		s.send()
	}
}

// send hands the batch to the merge (waiting while streamDepth batches wait) and
// starts filling a free one (waiting for the merge to give one back).
func (s *rowStream) send() {
	s.out <- s.batch
	s.sent.Add(int64(len(s.batch)))
	s.batch = <-s.free
}

// end sends what is left and says the lane has no more rows for this advance.
func (s *rowStream) end() {
	if len(s.batch) > 0 {
		s.send()
	}
	s.out <- nil
}

// merge takes every lane's rows of the advance under way, merged by (time, lane),
// and hands them to the sink in batches; it returns once every lane has ended its
// advance. When the sink fails, or the run is told to stop, the rows that still
// come are dropped and the error returned (see flush).
func (r *Run) merge() error {
	n := len(r.streams)
	heads := make([][]Row, n) // each lane's batch being merged
	pos := make([]int, n)     // its next row
	open := make([]bool, n)
	for i := range open {
		open[i] = true
	}
	out := r.merged[:0]
	var failed error
	blocked := false // a lane still holds a row that comes before the next one
	ended := 0       // lanes that have ended their advance (only they can owe rows)
	for {
		best, fromCarry := -1, false
		var bestAt time.Duration
		for i, s := range r.streams {
			// a lane's rows carried from the last advance come first
			if c, err := r.carry[i].peek(); err != nil {
				if failed == nil {
					failed = err
				}
			} else if c != nil && !blocked {
				if best < 0 || c.At < bestAt {
					best, bestAt, fromCarry = i, c.At, true
				}
				continue
			}
			if !open[i] {
				continue
			}
			if pos[i] == len(heads[i]) {
				if heads[i] != nil {
					r.recycle(i, heads[i])
				}
				heads[i], pos[i] = <-s.out, 0
				if heads[i] == nil {
					open[i] = false
					ended++
					continue
				}
			}
			if best < 0 || heads[i][pos[i]].At < bestAt {
				best, bestAt, fromCarry = i, heads[i][pos[i]].At, false
			}
		}
		if best < 0 {
			break
		}
		var row *Row
		if fromCarry {
			row, _ = r.carry[best].peek()
		} else {
			row = &heads[best][pos[best]]
		}
		if failed == nil && !blocked && ended > 0 {
			blocked = r.owesBefore(row.At, best, open)
		}
		if blocked && fromCarry {
			continue // it stays first in its carry (and carries are not looked at again)
		}
		if failed == nil && blocked {
			// this row and every one still to come wait for the next advance,
			// in each lane's carry, after what it already holds
			failed = r.carry[best].push(*row)
		} else if failed == nil {
			out = append(out, *row)
		}
		if fromCarry {
			r.carry[best].pop()
		} else {
			pos[best]++
		}
		if failed != nil || blocked { // failed: drop the rest, so that no lane waits on a full stream
			continue
		}
		if len(out) == rowBatch {
			failed = r.flush(out)
			out = out[:0]
		}
	}
	if failed == nil && len(out) > 0 {
		failed = r.flush(out)
	}
	r.merged = out[:0]
	return failed
}

// owesBefore says a lane that has ended its advance still holds a row that
// comes before lane's row at `at`, by (time, lane). Only ended lanes can: an
// open one's rows to come are at or after the row it shows.
func (r *Run) owesBefore(at time.Duration, lane int, open []bool) bool {
	for i, s := range r.streams {
		if !open[i] && (s.hold < at || s.hold == at && i < lane) {
			return true
		}
	}
	return false
}

// flush hands a merged batch to the sink, unless the run was told to stop: then
// nothing more is written, and the error says where the run stopped. A sink that
// fails stops the lanes.
func (r *Run) flush(rows []Row) error {
	if cause := context.Cause(r.ctx); cause != nil {
		return &Stopped{At: r.now, Cause: cause}
	}
	if err := r.rows(rows); err != nil {
		r.halt(err)
		return err
	}
	return nil
}

// recycle gives lane i's merged batch back to it. free holds every batch the
// lane owns, so this never waits.
func (r *Run) recycle(i int, b []Row) { r.streams[i].free <- b[:0] }
