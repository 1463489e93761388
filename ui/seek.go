package ui

// Going to a virtual time: a seek replays the run from its start to there (it
// is deterministic), asking the questions passed on the way or not.

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// seek moves the run to virtual time t (within the run) and pauses there. Going
// back replays the run from its start — it is deterministic, so the replay makes
// the same decisions and no history is kept — and going forward advances it; both
// in frames within the frame budget, so a long seek keeps the picture moving.
// The lesson's questions at or before t are passed, not asked; those after it
// will be.
func (r *runner) seek(t time.Duration) tea.Cmd {
	return r.seekAsking(t, false)
}

// step moves the run forward to t as seek does, but as playing would: it stops
// at the next question on the way, which is then asked.
func (r *runner) step(t time.Duration) tea.Cmd {
	if r.cfg != nil && t > r.position() {
		if at := r.questionAt(); at > r.position() && at <= t {
			t = at
		}
		return r.seekAsking(t, true)
	}
	return r.seek(t)
}

// seekAsking is seek, or with ask step's: the questions it crosses are passed
// unless ask, when the caller has stopped t at the next one to be asked there.
func (r *runner) seekAsking(t time.Duration, ask bool) tea.Cmd {
	if r.cfg == nil {
		return nil
	}
	t = max(0, min(t, r.cfg.Duration))
	var restart tea.Cmd
	if r.eng == nil || t < r.now() {
		restart = r.restart()
	}
	if !ask {
		r.passQuestions(t)
	}
	r.paused, r.seeking, r.target = true, true, t
	r.generation++
	if r.manual {
		return restart
	}
	return tea.Batch(restart, r.nextFrame())
}

// position is where the run is going: a seek's target while it replays (the
// engine restarts from 0 to go back), else the snapshot's time. Keys that step
// from here, so ← ← goes two columns back even when pressed during the replay.
func (r *runner) position() time.Duration {
	if r.seeking {
		return r.target
	}
	return r.now()
}
