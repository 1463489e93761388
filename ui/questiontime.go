package ui

// When the run stops for a lesson's question: the next question's instant,
// and the questions passed by a seek.

import "time"

// questionAt is the instant of the next question to ask, or never.
func (r *runner) questionAt() time.Duration {
	if r.cfg != nil && r.nextQuestion < len(r.cfg.Questions) {
		return r.cfg.Questions[r.nextQuestion].At
	}
	return never
}

// questionDue says the run shown has reached the next question's instant by
// playing (not by a seek still under way).
func (r *runner) questionDue() bool {
	return r.snap != nil && r.eng != nil && !r.seeking && r.snap.Now >= r.questionAt()
}

// takeQuestion returns the question the run has reached, if one is due, and
// pauses the run there; resume says the run was going, and goes on once the
// question is closed (see Model.closeQuiz).
func (r *runner) takeQuestion() (q int, resume bool, ok bool) {
	if !r.questionDue() {
		return 0, false, false
	}
	q, resume = r.nextQuestion, !r.paused
	r.nextQuestion++
	r.paused = true
	r.generation++ // a frame out is dropped
	return q, resume, true
}

// passQuestions makes the questions at or before t passed and those after it
// to be asked: a seek to t passes the ones it crosses, and going back before
// one asks it again.
func (r *runner) passQuestions(t time.Duration) {
	r.nextQuestion = 0
	if r.cfg == nil {
		return
	}
	for r.nextQuestion < len(r.cfg.Questions) && r.cfg.Questions[r.nextQuestion].At <= t {
		r.nextQuestion++
	}
}
