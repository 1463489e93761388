package sim

import (
	"fmt"
	"time"

	"ratelab/algorithms"
)

// A request row's fate: what became of the attempt after its decision. The
// decision is known when it lands, but whether an accepted request was served,
// failed at the backend or was given up on by its client is known later (a queue
// delay, a reservation, the backend's service time or timeout). With a row sink,
// a lane holds its rows, in the order it decided them, until each one's fate is
// known, and hands them to its stream (stream.go) in that order: a row leaves
// once it and every row before it are settled. The rows held are those decided
// since the oldest attempt still in flight, so memory follows what is in flight,
// not the length of the run. Without a backend every fate is known when the
// decision lands (an accepted request is served when it goes ahead, after any
// queue delay or reservation; or it is still waiting at the run's end), so no
// row waits; with one, a row waits for the backend's answer or the client's
// timeout, and the rows decided meanwhile wait behind it. When the run reaches
// its end (or FinishRows is called) the rows still waiting leave with the
// outcome in_flight.

// Outcome is what became of one attempt.
type Outcome uint8

const (
	// OutcomeInFlight: the run ended (or stopped being written) before the
	// attempt's fate was known: queued, reserved or in the backend.
	OutcomeInFlight Outcome = iota
	// OutcomeServed: accepted and served (without a backend: accepted, and its
	// queue delay or reservation passed).
	OutcomeServed
	// OutcomeFailed: accepted, and the backend refused it at once (its queue was
	// full); the client retries it.
	OutcomeFailed
	// OutcomeTimedOut: accepted, and its client stopped waiting (the backend's
	// timeout, from when it sent the attempt), at the backend or still in the
	// limiter's queue; the client retries it. A backend that has it may still
	// serve it later (wasted).
	OutcomeTimedOut
	// OutcomeDenied: refused by the limiter (or a WATCH that kept losing); the
	// client retries it.
	OutcomeDenied
	// OutcomeStoreError: decided by the lane's on_error because the store failed
	// to answer; allowed says which way. What became of the request after that is
	// not followed in this row.
	OutcomeStoreError
	// OutcomeGaveUp: refused, or accepted and failed or timed out at the backend,
	// and the client's retry policy gives up: this was its last attempt.
	OutcomeGaveUp
)

var outcomeNames = [...]string{"in_flight", "served", "failed", "timed_out", "denied", "store_error", "gave_up"}

// String is the outcome as the request CSV writes it.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// heldRows are a lane's rows waiting to leave: a queue in decision order, each
// row numbered (from 1) so the request or backend job that settles it finds it.
// The newest rows are in memory; past spoolMemory of them they go, oldest
// first, to a spool (spool.go), and those whose fate is still to come stay in
// memory too (late), where they are settled: memory follows the rows in flight,
// the rest waits on disk.
type heldRows struct {
	rows  []heldRow // the newest rows
	head  int       // rows' first not yet handed on (0 while older holds rows)
	first int64     // the number of rows[0]
	older spool     // the rows before rows[head], handed on first
	late  map[int64]*heldRow
	gone  int64 // the number of the next row to hand on
}

type heldRow struct {
	row     Row
	settled bool
}

// add queues a row, zero, to fill in place, and returns it and its number;
// keep, once it is filled, moves rows to the spool when too many are held.
func (h *heldRows) add() (*Row, int64) {
	if h.first == 0 {
		h.first, h.gone = 1, 1
	}
	if h.head > 64 && h.head >= len(h.rows)/2 {
		n := copy(h.rows, h.rows[h.head:])
		clear(h.rows[n:])
		h.rows = h.rows[:n]
		h.first += int64(h.head)
		h.head = 0
	}
	h.rows = append(h.rows, heldRow{})
	return &h.rows[len(h.rows)-1].row, h.first + int64(len(h.rows)) - 1
}

// keep moves the rows in memory to the spool once there are more than
// spoolMemory of them; those still waiting for their fate stay here as well,
// and are taken from here when their turn comes.
func (h *heldRows) keep() error {
	if len(h.rows)-h.head <= spoolMemory {
		return nil
	}
	for i := h.head; i < len(h.rows); i++ {
		hr := h.rows[i]
		if !hr.settled {
			if h.late == nil {
				h.late = map[int64]*heldRow{}
			}
			h.late[h.first+int64(i)] = &heldRow{row: hr.row}
		}
		if err := h.older.push(hr.row); err != nil {
			return err
		}
	}
	h.first += int64(len(h.rows))
	clear(h.rows)
	h.rows, h.head = h.rows[:0], 0
	return nil
}

// at is row number n while it may still change, or nil when it has left
// already (FinishRows let it go before its fate was known) or was settled
// before it went to the spool.
func (h *heldRows) at(n int64) *heldRow {
	switch {
	case n < h.gone:
		return nil
	case n < h.first+int64(h.head):
		return h.late[n]
	}
	return &h.rows[n-h.first]
}

// from is the time of the first row still held, or never.
func (h *heldRows) from() time.Duration {
	if h.older.len() > 0 {
		row, err := h.older.peek()
		if err != nil {
			return 0 // hold everything back: the lane fails when it reads it again
		}
		return row.At
	}
	if h.head == len(h.rows) {
		return never
	}
	return h.rows[h.head].row.At
}

// next hands on the first row if it is settled (or all is true), and says
// whether it did.
func (l *Lane) next(all bool) bool {
	h := &l.held
	if h.older.len() > 0 {
		row, err := h.older.peek()
		if err != nil {
			l.err = fmt.Errorf("reading back the rows waiting for their fate: %w", err)
			return false
		}
		if late := h.late[h.gone]; late != nil {
			if !late.settled && !all {
				return false
			}
			row = &late.row
			delete(h.late, h.gone)
		}
		l.stream.add(row)
		h.older.pop()
		h.gone++
		return true
	}
	if h.head == len(h.rows) || !h.rows[h.head].settled && !all {
		return false
	}
	l.stream.add(&h.rows[h.head].row)
	h.rows[h.head] = heldRow{}
	h.head++
	h.gone++
	return true
}

// holdRow queues the row of request r's decision d, landed now, to be settled
// later. The row is filled in its place in the queue, field by field (a Row
// built apart and copied in is read back wide from the narrow stores that built
// it).
func (l *Lane) holdRow(r *request, d *algorithms.Decision, shard int32, limits []algorithms.Decision, rule, also int16) {
	row, n := l.held.add()
	row.At, row.Lane, row.Client, row.Key = l.now, l.Index, int(r.client), int(r.key)
	row.Request, row.Attempt, row.Cost = r.n, int(r.attempt), r.cost
	row.Allowed, row.Remaining, row.RetryAfter, row.Shadow = d.Allowed, d.Remaining, d.RetryAfter, d.Shadow
	row.ResetAfter, row.Limit, row.Shard, row.Limits = d.ResetAfter, d.Limit, shard, limits
	row.Decisive, row.AlsoRefusing = rule, also
	row.DecidedAt, row.Latency = l.stamp(r), -1
	if err := l.held.keep(); err != nil && l.err == nil {
		l.err = fmt.Errorf("keeping the rows waiting for their fate: %w", err)
	}
	r.row = n
}

// rowAccepted notes when the accepted request r goes ahead and its queue delay.
func (l *Lane) rowAccepted(r *request, admitted, delay time.Duration) {
	if row := l.rowOf(r.row); row != nil {
		row.AdmittedAt, row.QueueDelay = admitted, delay
	}
}

// settleRow gives request r's current row its outcome, its answer having reached
// the application at answered, and lets it leave unless keep (a timed-out
// attempt's row waits for the backend to say whether it served the job anyway).
// It returns the row's number when it keeps it, else 0.
func (l *Lane) settleRow(r *request, o Outcome, answered time.Duration, keep bool) int64 {
	n := r.row
	r.row = 0
	row := l.rowOf(n)
	if row == nil {
		return 0
	}
	row.Outcome, row.Latency = o, answered-r.first
	if o == OutcomeInFlight {
		row.Latency = -1
	}
	if !keep {
		l.releaseRow(n)
		return 0
	}
	return n
}

// releaseRow lets row n leave, with every settled row after it up to the next
// one still waiting.
func (l *Lane) releaseRow(n int64) {
	held := l.held.at(n)
	if held == nil {
		return
	}
	held.settled = true
	for l.next(false) {
	}
}

// finishRows lets every row still held leave as it is: in_flight unless its
// outcome is known (a timed-out attempt the backend has not served).
func (l *Lane) finishRows() {
	for l.next(true) {
	}
}

// rowOf is row number n while it is held; nil for 0 (no row: no sink, or
// settled already) or a row that has left.
func (l *Lane) rowOf(n int64) *Row {
	if n == 0 {
		return nil
	}
	if held := l.held.at(n); held != nil {
		return &held.row
	}
	return nil
}
