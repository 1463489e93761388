package ui

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/present"
	"ratelab/session"
	"ratelab/sim"
)

// The UI's run lives in an engine, and only the engine's jobs touch it: starting
// it (session.Start, which may dial Redis), advancing it (session.Drive, where
// every decision on Redis is a round trip), making an input, and closing it
// (removing its keys from Redis). Update submits a job and returns at once; the
// job runs on a goroutine of the engine's own, after the jobs submitted before
// it, and its tea.Cmd returns its typed result (jobDone: the run's new snapshot)
// when it is done. So a Redis that stops answering delays the picture, never a
// key press: Update and View read only the latest snapshot.
//
// Each engine has a generation (its id): a result of an engine that is no longer
// the one shown — the run was restarted, the scenario switched, a seek went
// back — is dropped. The results of one engine are applied in the order its
// jobs were submitted, each once, however the runtime delivers their messages.

// engine is one run of the UI and the queue of jobs on it.
type engine struct {
	id     int
	cfg    *sim.Config
	opts   session.Options
	cancel context.CancelFunc // ends the run's context: its Redis calls in flight end at once

	mu      sync.Mutex // guards queue and working; never held while a job runs
	queue   []*job
	working bool

	// the jobs submitted, in order (appended and read by Update only)
	jobs []*job
	// closed is closed once the run is closed (see retire); closeErr says why its
	// keys could not be removed
	closed   chan struct{}
	closeErr error

	// owned by the job running
	sess     *session.Session
	startErr error
}

// job is one piece of work on an engine's run, and its result once finished;
// a job with no do closes the run.
type job struct {
	seq      int
	do       func(e *engine) jobDone
	finished chan struct{} // closed when result is set
	result   jobDone
}

// jobDone is a job's result: the run's snapshot after it (nil when the run
// failed: err says why); for a frame, the generation of the frame it advanced
// (see FrameMsg); for an input, the input made.
type jobDone struct {
	engine, seq int
	snap        *snapshot
	err         error
	frame       bool
	generation  int
	input       *sim.Input
}

// snapshot is what the screen draws of the run: the engine's sim.Snapshot, and
// each lane's verdict, worded once per snapshot rather than at every redraw.
type snapshot struct {
	*sim.Snapshot
	verdicts []string
}

func newSnapshot(cfg *sim.Config, s *sim.Snapshot) *snapshot {
	v := &snapshot{Snapshot: s, verdicts: make([]string, len(s.Metrics))}
	for i, m := range s.Metrics {
		v.verdicts[i] = present.Verdict(cfg, m)
	}
	return v
}

// newEngine makes the engine of a run of cfg and submits its start.
func newEngine(id int, cfg *sim.Config, opts session.Options) (*engine, tea.Cmd) {
	parent := opts.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancel(parent)
	opts.Context = ctx
	e := &engine{id: id, cfg: cfg, opts: opts, cancel: cancel, closed: make(chan struct{})}
	return e, e.submit(func(e *engine) jobDone { return jobDone{} })
}

// submit queues do after the jobs already submitted and returns the command
// that waits for its result. The run is started before the first job runs; a
// job on a run that could not start returns that error.
func (e *engine) submit(do func(e *engine) jobDone) tea.Cmd {
	return e.enqueue(do).wait()
}

// enqueue queues do after the jobs already submitted and returns its job.
func (e *engine) enqueue(do func(e *engine) jobDone) *job {
	j := &job{seq: len(e.jobs), do: do, finished: make(chan struct{})}
	e.jobs = append(e.jobs, j)
	e.mu.Lock()
	e.queue = append(e.queue, j)
	if !e.working {
		e.working = true
		go e.work()
	}
	e.mu.Unlock()
	return j
}

// wait is the command that returns j's result once it is finished.
func (j *job) wait() tea.Cmd {
	return func() tea.Msg {
		<-j.finished
		return j.result
	}
}

// waitOr is wait, unless j is still running after d: then the command returns
// late instead, and whoever takes late waits for the result again. Its timer is
// stopped when j finishes first (the usual case), so a job that finishes in
// time wakes nothing later.
func (j *job) waitOr(d time.Duration, late tea.Msg) tea.Cmd {
	return func() tea.Msg {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-j.finished:
			return j.result
		case <-t.C:
			return late
		}
	}
}

// work runs the queued jobs in order, then ends; the next submit starts it again.
func (e *engine) work() {
	for {
		e.mu.Lock()
		if len(e.queue) == 0 {
			e.working = false
			e.mu.Unlock()
			return
		}
		j := e.queue[0]
		e.queue[0] = nil
		e.queue = e.queue[1:]
		e.mu.Unlock()
		if j.do == nil { // retired: the last job
			if e.sess != nil {
				e.closeErr = e.sess.Close()
			}
			close(e.closed)
			close(j.finished)
			continue
		}
		j.result = e.run(j)
		close(j.finished)
	}
}

// run runs one job: starting the run first if it is not, and taking its
// snapshot after.
func (e *engine) run(j *job) (done jobDone) {
	done = jobDone{engine: e.id, seq: j.seq}
	if err := context.Cause(e.opts.Context); err != nil {
		done.err = err // retired (its result is dropped), or the program is ending
		return done
	}
	if e.sess == nil && e.startErr == nil {
		e.sess, e.startErr = session.Start(e.cfg, e.opts)
		if e.startErr == nil {
			e.sess.KeepLive()
		}
	}
	if e.startErr != nil {
		done.err = e.startErr
		return done
	}
	r := j.do(e)
	done.err, done.input, done.frame, done.generation = r.err, r.input, r.frame, r.generation
	if done.err == nil {
		done.snap = newSnapshot(e.cfg, e.sess.Snapshot())
	}
	return done
}

// drive is the job of a frame of generation gen: it advances the run to the
// target `to` gives for the run's time (session.Drive, a tick at a time, bounded
// by the frame budget).
func drive(gen int, to func(now time.Duration) time.Duration) func(e *engine) jobDone {
	return func(e *engine) jobDone {
		t := session.Target{To: to(e.sess.Now()), Step: e.cfg.Tick, Budget: FrameBudget}
		return jobDone{err: session.Drive(e.opts.Context, e.sess.Run, t, session.Sinks{}), frame: true, generation: gen}
	}
}

// retire ends the run: its context at once (a job blocked on Redis returns),
// then, after the jobs queued, it is closed and its keys removed; the command
// reports how that went (closedMsg).
func (e *engine) retire() tea.Cmd {
	e.cancel()
	e.mu.Lock()
	e.queue = append(e.queue, &job{do: nil, finished: make(chan struct{})})
	if !e.working {
		e.working = true
		go e.work()
	}
	e.mu.Unlock()
	return func() tea.Msg {
		<-e.closed
		return closedMsg{engine: e.id, err: e.closeErr}
	}
}

// closedMsg says an engine's run is closed; err, that its keys could not be
// removed from Redis (they expire by themselves).
type closedMsg struct {
	engine int
	err    error
}
