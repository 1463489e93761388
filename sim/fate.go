package sim

import "time"

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
	// OutcomeTimedOut: accepted, and its client stopped waiting for the backend
	// (its timeout); the client retries it. The backend may still serve it later
	// (wasted).
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
type heldRows struct {
	rows  []heldRow
	head  int   // the first row not yet handed on
	first int64 // the number of rows[0]
}

type heldRow struct {
	row     Row
	settled bool
}

// add queues row and returns its number.
func (h *heldRows) add(row Row) int64 {
	if h.first == 0 {
		h.first = 1
	}
	if h.head > 64 && h.head >= len(h.rows)/2 {
		n := copy(h.rows, h.rows[h.head:])
		clear(h.rows[n:])
		h.rows = h.rows[:n]
		h.first += int64(h.head)
		h.head = 0
	}
	h.rows = append(h.rows, heldRow{row: row})
	return h.first + int64(len(h.rows)) - 1
}

// at is row number n, or nil when it has left already (FinishRows let it go
// before its fate was known).
func (h *heldRows) at(n int64) *Row {
	if n < h.first+int64(h.head) {
		return nil
	}
	return &h.rows[n-h.first].row
}

// from is the time of the first row still held, or never.
func (h *heldRows) from() time.Duration {
	if h.head == len(h.rows) {
		return never
	}
	return h.rows[h.head].row.At
}

// heldRow queues the row just recorded for request r, to be settled later.
func (l *Lane) holdRow(r *request, row Row) {
	row.DecidedAt = l.stamp(r)
	row.Latency = -1
	r.row = l.held.add(row)
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
	h := &l.held
	if h.at(n) == nil {
		return
	}
	h.rows[n-h.first].settled = true
	for h.head < len(h.rows) && h.rows[h.head].settled {
		l.stream.add(h.rows[h.head].row)
		h.rows[h.head] = heldRow{}
		h.head++
	}
}

// finishRows lets every row still held leave as it is: in_flight unless its
// outcome is known (a timed-out attempt the backend has not served).
func (l *Lane) finishRows() {
	h := &l.held
	for ; h.head < len(h.rows); h.head++ {
		l.stream.add(h.rows[h.head].row)
		h.rows[h.head] = heldRow{}
	}
}

// rowOf is row number n while it is held; nil for 0 (no row: no sink, or
// settled already) or a row that has left.
func (l *Lane) rowOf(n int64) *Row {
	if n == 0 {
		return nil
	}
	return l.held.at(n)
}
