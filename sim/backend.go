package sim

import "time"

// backendRun is a lane's copy of the backend (see Backend): servers busy, the queue
// of requests waiting (FIFO), and the busy time integrated for utilisation.
type backendRun struct {
	b        Backend
	busy     int
	queue    []int32
	head     int
	errors   int64
	busyArea float64 // Σ busy servers × seconds
	changed  time.Duration
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

// backendArrive hands an accepted request to the backend: into service, into the
// queue, or failed at once when the queue is full.
func (l *Lane) backendArrive(id int32) {
	b := l.backend
	switch {
	case b.busy < b.b.Concurrency:
		l.serve(id)
	case b.queued() < b.b.Queue:
		l.reqs[id].queued = l.now
		if b.head > 64 && b.head >= len(b.queue)/2 {
			b.queue = append(b.queue[:0], b.queue[b.head:]...)
			b.head = 0
		}
		b.queue = append(b.queue, id)
	default:
		b.errors++
		l.failed(id, false, noDecision)
	}
}

func (l *Lane) serve(id int32) {
	l.backend.setBusy(l.now, l.backend.busy+1)
	l.schedule(l.now+l.backend.b.ServiceTime, evBackendDone, int(id))
}

// backendDone completes request id and starts the next in the queue; requests that
// waited past the timeout fail as they reach the front.
func (l *Lane) backendDone(id int32) {
	b := l.backend
	b.setBusy(l.now, b.busy-1)
	l.succeeded(id)
	for b.queued() > 0 {
		next := b.queue[b.head]
		b.head++
		if b.b.Timeout > 0 && l.now-l.reqs[next].queued > b.b.Timeout {
			b.errors++
			l.failed(next, false, noDecision)
			continue
		}
		l.serve(next)
		break
	}
}
