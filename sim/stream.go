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

// rowBatch is the most rows in one batch, from a lane (see laneBatch) or to
// the sink.
const rowBatch = 4096

// streamDepth is the most full batches a lane may have waiting for the merge.
const streamDepth = 2

// streamBatches is the batches a lane owns: the one it fills, those waiting, the
// one the merge is reading. A lane with none free waits for the merge.
const streamBatches = streamDepth + 2

// rowStream is one lane's side of the stream.
type rowStream struct {
	limit int          // the most rows in a batch (see laneBatch)
	batch []Row        // being filled
	out   chan []Row   // full batches; nil ends an advance
	free  chan []Row   // batches the merge is done with, to fill again
	sent  atomic.Int64 // rows handed to the merge so far (a test watches it)
	// waiting says the lane waits on its stream, full: streamDepth batches not
	// yet merged, or none free to fill (a test watches it)
	waiting atomic.Bool
	// hold, set before the lane ends an advance, is the time of the first row it
	// still holds (never: none); its later rows are at or after it.
	hold time.Duration
}

// laneBatch is the most rows in a lane's batch when lanes lanes stream:
// rowBatch, or fewer with many lanes, so that the rows waiting for the merge
// stay within streamBatches × rowsInFlight whatever the number of lanes (a
// lane's batch waits whole until it is full or the lane ends its advance, and
// the merge needs every lane's first row: 10,000 lanes of 4,096 rows would hold
// 7 GB).
func laneBatch(lanes int) int { return min(rowBatch, max(16, rowsInFlight/max(lanes, 1))) }

// rowsInFlight is the most rows the lanes' batches hold together (beyond the
// 16 a lane each when there are more than rowsInFlight/16 lanes).
const rowsInFlight = 1 << 16

func newRowStream(limit int) *rowStream {
	s := &rowStream{limit: limit, batch: make([]Row, 0, limit), out: make(chan []Row, streamDepth), free: make(chan []Row, streamBatches)}
	for range streamBatches - 1 {
		s.free <- make([]Row, 0, limit)
	}
	return s
}

// add appends a row, sending the batch when it is full.
func (s *rowStream) add(row *Row) {
	s.batch = append(s.batch, *row)
	if len(s.batch) == s.limit {
		s.send()
	}
}

// send hands the batch to the merge (waiting while streamDepth batches wait) and
// starts filling a free one (waiting for the merge to give one back).
func (s *rowStream) send() {
	select {
	case s.out <- s.batch:
	default:
		s.waiting.Store(true)
		s.out <- s.batch
		s.waiting.Store(false)
	}
	s.sent.Add(int64(len(s.batch)))
	select {
	case s.batch = <-s.free:
	default:
		s.waiting.Store(true)
		s.batch = <-s.free
		s.waiting.Store(false)
	}
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
// come are dropped and the error returned (see flush). The lanes' next rows wait
// in a heap by (time, lane), so a row costs O(log lanes) however many lanes run.
func (r *Run) merge() error {
	m := merging{r: r, heads: make([][]Row, len(r.streams)), pos: make([]int, len(r.streams)), open: make([]bool, len(r.streams))}
	for i := range m.open {
		m.open[i] = true
		m.offer(i)
	}
	out := r.merged[:0]
	for len(m.next) > 0 {
		best := m.next[0].lane
		var row *Row
		fromCarry := m.next[0].fromCarry
		if fromCarry {
			row, _ = r.carry[best].peek()
		} else {
			row = &m.heads[best][m.pos[best]]
		}
		if m.failed == nil && !m.blocked && m.ended > 0 && r.owesBefore(row.At, best, m.open) {
			m.block() // the carries wait too: the heap now holds stream heads only
			continue
		}
		if m.failed == nil && m.blocked {
			// this row and every one still to come wait for the next advance,
			// in each lane's carry, after what it already holds
			m.failed = r.carry[best].push(*row)
		} else if m.failed == nil {
			out = append(out, *row)
		}
		if fromCarry {
			r.carry[best].pop()
		} else {
			m.pos[best]++
		}
		m.pop()
		m.offer(best)
		if m.failed != nil || m.blocked { // failed: drop the rest, so that no lane waits on a full stream
			continue
		}
		if len(out) == rowBatch {
			m.failed = r.flush(out)
			out = out[:0]
		}
	}
	if m.failed == nil && len(out) > 0 {
		m.failed = r.flush(out)
	}
	r.merged = out[:0]
	return m.failed
}

// merging is one merge's state: each lane's batch being read and its next row,
// the heap of the lanes' next rows, and whether a lane still holds a row that
// comes before the next one (blocked: from then on every row is carried).
type merging struct {
	r       *Run
	heads   [][]Row // each lane's batch being merged
	pos     []int   // its next row
	open    []bool  // the lane has not ended its advance
	ended   int     // lanes that have (only they can owe rows)
	next    []mergeHead
	blocked bool
	failed  error
}

// mergeHead is a lane's next row in the heap: its time, and whether it is the
// first of the lane's carry (rows carried from the last advance come first).
type mergeHead struct {
	at        time.Duration
	lane      int
	fromCarry bool
}

func (a mergeHead) before(b mergeHead) bool { return a.at < b.at || a.at == b.at && a.lane < b.lane }

// offer puts lane i's next row in the heap: its carry's first (unless
// blocked), else its stream's, receiving its next batch when it has read the
// last (waiting for the lane); nothing once it has ended its advance.
func (m *merging) offer(i int) {
	r := m.r
	if c, err := r.carry[i].peek(); err != nil {
		if m.failed == nil {
			m.failed = err
		}
	} else if c != nil && !m.blocked {
		m.push(mergeHead{at: c.At, lane: i, fromCarry: true})
		return
	}
	if !m.open[i] {
		return
	}
	if m.pos[i] == len(m.heads[i]) {
		if m.heads[i] != nil {
			r.recycle(i, m.heads[i])
		}
		m.heads[i], m.pos[i] = <-r.streams[i].out, 0
		if m.heads[i] == nil {
			m.open[i] = false
			m.ended++
			return
		}
	}
	m.push(mergeHead{at: m.heads[i][m.pos[i]].At, lane: i})
}

// block stops looking at the carries: every lane's next row is its stream's.
func (m *merging) block() {
	m.blocked = true
	lanes := make([]int, 0, len(m.next))
	for _, h := range m.next {
		lanes = append(lanes, h.lane)
	}
	m.next = m.next[:0]
	for _, i := range lanes {
		m.offer(i)
	}
}

func (m *merging) push(h mergeHead) {
	m.next = append(m.next, h)
	for i := len(m.next) - 1; i > 0; {
		parent := (i - 1) / 2
		if !m.next[i].before(m.next[parent]) {
			break
		}
		m.next[i], m.next[parent] = m.next[parent], m.next[i]
		i = parent
	}
}

// pop takes the heap's first away.
func (m *merging) pop() {
	last := len(m.next) - 1
	m.next[0] = m.next[last]
	m.next = m.next[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(m.next) {
			return
		}
		if c+1 < len(m.next) && m.next[c+1].before(m.next[c]) {
			c++
		}
		if !m.next[c].before(m.next[i]) {
			return
		}
		m.next[i], m.next[c] = m.next[c], m.next[i]
		i = c
	}
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
