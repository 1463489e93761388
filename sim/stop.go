package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"ratelab/internal/format"
)

// Stopping a run early. A run stops before the time it was asked to reach when its
// context is done (the user pressed Ctrl-C, the UI closed an export) or when a
// lane has done more work than its budget (a fuzz test's bound): events handled
// plus decisions asked for, since one event may ask for many (a delivery of 100).
// Each lane looks at both every checkEvery events, so it stops within a few
// thousand events of being told, whatever the load: a burst of millions at one
// instant, a retry storm, a limiter on a Redis that does not answer (its calls
// end when the same context is done; see algorithms/redislua).

// checkEvery is how many events a lane handles between two looks at its stop
// conditions: a counter, not a clock read per event.
const checkEvery = 1024

// ErrBudget is the cause of a run stopped because a lane did more work than the
// budget given to Bound.
var ErrBudget = errors.New("the run's budget of work is spent")

// Stopped is the error of a run that stopped before the time it was asked to
// reach. Nothing after At was decided; the run cannot go on.
type Stopped struct {
	// At is the virtual time every lane had reached when the run stopped.
	At time.Duration
	// Cause is why: the context's cause (context.Canceled, …) or ErrBudget.
	Cause error
}

func (s *Stopped) Error() string {
	return fmt.Sprintf("stopped at %s of virtual time: %v", format.Duration(s.At), s.Cause)
}

func (s *Stopped) Unwrap() error { return s.Cause }

// Bound makes the run stop early when ctx is done, or when one lane's work (events
// handled plus decisions asked for) passes maxWork (0: no limit); AdvanceTo then
// returns a *Stopped. Call it before the first AdvanceTo.
func (r *Run) Bound(ctx context.Context, maxWork int64) {
	r.cancel(nil)
	r.ctx, r.cancel = context.WithCancelCause(ctx)
	for _, l := range r.Lanes {
		l.ctx, l.budget = r.ctx, maxWork
	}
}

// halt tells every lane to stop at its next look (a sink that failed).
func (r *Run) halt(cause error) { r.cancel(cause) }

// counted counts an event the lane handled and, every checkEvery, looks at the
// stop conditions; a lane told to stop sets its error, which ends its advance.
func (l *Lane) counted() {
	l.handled++
	if l.handled%checkEvery != 0 {
		return
	}
	if err := context.Cause(l.ctx); err != nil {
		l.err = &Stopped{Cause: err}
	} else if l.budget > 0 && l.handled+l.rec.m.Attempts > l.budget {
		l.err = &Stopped{Cause: ErrBudget}
	}
}

// stopped returns the run's *Stopped when a lane stopped early, at the earliest
// time a lane had reached, and nil otherwise.
func (r *Run) stopped() *Stopped {
	var first *Stopped
	at := never
	for _, l := range r.Lanes {
		var s *Stopped
		if errors.As(l.err, &s) {
			if first == nil {
				first = s
			}
		}
		at = min(at, l.now)
	}
	if first == nil {
		return nil
	}
	return &Stopped{At: at, Cause: first.Cause}
}
