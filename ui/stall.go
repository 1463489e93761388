package ui

// A frame that does not land (Redis stopped answering) is said on the header:
// waiting for Redis, and for how long, checked on the wall clock.

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// stallAfter is how long a frame may be out before the header says it waits.
const stallAfter = time.Second

// stallMsg says frame number frame, job, has been out stallAfter (or a second
// more since the last stallMsg); the result of job is waited for again.
type stallMsg struct {
	frame int
	job   *job
}

// checkStall records how long the frame out has been out, and waits again for
// its result, checking a second later while it is still out. A frame no
// longer the one out (a seek or a restart submitted another) has its result
// waited for without a check.
func (r *runner) checkStall(m stallMsg) tea.Cmd {
	current := m.frame == r.frames && !r.frameOut.IsZero()
	if current {
		r.stalled = time.Since(r.frameOut)
	}
	switch {
	case m.job == nil: // a check the caller sent (tests)
		return nil
	case !current:
		return m.job.wait()
	}
	return m.job.waitOr(time.Second, m)
}

// stalledShown is what the header shows of stalled: whether a frame is out
// too long, and for how many whole seconds.
func (r *runner) stalledShown() [2]int64 {
	return [2]int64{min(int64(r.stalled), 1), int64(r.stalled / time.Second)}
}
