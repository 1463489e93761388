package sim

import (
	"time"

	"ratelab/internal/slab"
)

// backendRun is a lane's copy of the backend (see Backend): the jobs it holds, the
// servers busy, the queue, and the busy time integrated for utilisation.
type backendRun struct {
	b        Backend
	jobs     slab.Slab[job]
	busy     int
	queue    []int32 // jobs waiting, oldest at head
	head     int
	errors   int64
	wasted   int64   // jobs served after their client gave up
	busyArea float64 // Σ busy servers × seconds
	changed  time.Duration
}

// job is one accepted request's visit to the backend. It outlives the request's
// interest in it when the client times out: abandoned jobs are still served.
type job struct {
	req       int32
	abandoned bool  // the client timed out; serving it is wasted work
	done      bool  // served
	expired   bool  // its timeout has fired, or it has none
	row       int64 // a timed-out attempt's row, held until the job is served
}

// setBusy changes the number of busy servers at now, integrating the time before.
func (b *backendRun) setBusy(now time.Duration, busy int) {
	b.busyArea += float64(b.busy) * (now - b.changed).Seconds()
	b.busy, b.changed = busy, now
}

// utilization is the share of capacity used from the start to now.
func (b *backendRun) utilization(now time.Duration) float64 {
	if now <= 0 {
		return 0
	}
	area := b.busyArea + float64(b.busy)*(now-b.changed).Seconds()
	return area / (float64(b.b.Concurrency) * now.Seconds())
}

func (b *backendRun) queued() int { return len(b.queue) - b.head }

// release frees a job once it is both served and past its timeout.
func (b *backendRun) release(id int32) {
	if j := b.jobs.At(id); j.done && j.expired {
		b.jobs.Release(id)
	}
}

// backendArrive hands an accepted request to the backend: into service, into the
// queue, or failed at once when the queue is full.
func (l *Lane) backendArrive(id int32) {
	b := l.backend
	if b.busy >= b.b.Concurrency && b.queued() >= b.b.Queue {
		b.errors++
		l.tick.BackendErrors++
		l.failedAs(id, OutcomeFailed)
		return
	}
	j := b.jobs.Put(job{req: id, expired: b.b.Timeout == 0})
	deadline, timed := l.deadline(l.reqs.At(id))
	if b.busy < b.b.Concurrency && timed && l.now+b.b.ServiceTime <= deadline {
		// served at once, done before its client would give up: no timeout
		b.jobs.At(j).expired = true
		l.serve(j)
		return
	}
	if timed {
		l.schedule(deadline, evBackendTimeout, int(j))
	}
	if b.busy < b.b.Concurrency {
		l.serve(j)
		return
	}
	if b.head > 64 && b.head >= len(b.queue)/2 {
		b.queue = append(b.queue[:0], b.queue[b.head:]...)
		b.head = 0
	}
	b.queue = append(b.queue, j)
}

func (l *Lane) serve(j int32) {
	l.backend.setBusy(l.now, l.backend.busy+1)
	l.schedule(l.now+l.backend.b.ServiceTime, evBackendDone, int(j))
}

// backendDone finishes job j, answers its client unless it gave up, and starts the
// next job in the queue.
func (l *Lane) backendDone(j int32) {
	b := l.backend
	b.setBusy(l.now, b.busy-1)
	jb := b.jobs.At(j)
	jb.done = true
	if jb.abandoned {
		b.wasted++
		if row := l.rowOf(jb.row); row != nil {
			row.Wasted = true
			l.releaseRow(jb.row)
		}
	} else {
		l.succeeded(jb.req)
	}
	b.release(j)
	if b.queued() > 0 {
		next := b.queue[b.head]
		b.head++
		l.serve(next)
	}
}

// deadline is when r's client stops waiting for the answer to its current
// attempt: the backend's Timeout after it sent it, the time spent in the
// limiter (a round trip to its store, a leaky bucket's queue, a reservation)
// included; false when the client waits for ever (no backend, or no timeout).
func (l *Lane) deadline(r *request) (time.Duration, bool) {
	if l.backend == nil || l.backend.b.Timeout <= 0 {
		return 0, false
	}
	return r.sent + l.backend.b.Timeout, true
}

// deadlinePassed: the client of request id stops waiting while the request is
// still in the limiter's queue. It fails as timed out (and may be retried), an
// error the client sees like the backend's; the application, its client gone,
// does not forward it, so the backend never sees it, but the limiter has spent
// its units.
func (l *Lane) deadlinePassed(id int32) {
	l.backend.errors++
	l.rec.m.QueueTimeouts++
	l.tick.BackendErrors++
	if row := l.failedAs(id, OutcomeTimedOut); row != 0 {
		l.releaseRow(row) // nothing more will be known of it
	}
}

// backendTimeout: the client of job j stops waiting. If the job is not served yet,
// the request fails (and may be retried) while the job stays in line.
func (l *Lane) backendTimeout(j int32) {
	b := l.backend
	jb := b.jobs.At(j)
	jb.expired = true
	if !jb.done {
		jb.abandoned = true
		b.errors++
		l.tick.BackendErrors++
		jb.row = l.failedAs(jb.req, OutcomeTimedOut)
	}
	b.release(j)
}
