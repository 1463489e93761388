package ui

import (
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/algorithms"
	"ratelab/internal/format"
	"ratelab/scenarios"
	"ratelab/session"
	"ratelab/sim"
)

// Frame is the wall time between two frames, and the virtual time one covers at
// 1×: virtual time advances by Frame × speed a frame.
const Frame = 50 * time.Millisecond

// FPS is the most times a second Bubble Tea's renderer looks for a new screen
// to write (tea.WithFPS; its default is 60): one look a frame, since nothing on
// the screen moves between two frames. Its renderer wakes this often for as long
// as the program runs, paused or not (charm.land/bubbletea/v2 v2.0.10, tea.go,
// Program.startRenderer: a time.Ticker at the FPS, stopped only when the
// program ends); a key's effect shows within 1/FPS.
const FPS = int(time.Second / Frame)

// ProgramOptions are the options the UI's Bubble Tea program runs with.
func ProgramOptions() []tea.ProgramOption {
	return []tea.ProgramOption{tea.WithFPS(FPS)}
}

// FrameBudget is the most decisions one frame may make: at speeds the engine cannot
// keep up with, the virtual clock slows down rather than the keyboard.
const FrameBudget = 150_000

// FrameMsg asks for one frame: advance virtual time, redraw. Generation must match
// the runner's, or the frame is stale and dropped.
type FrameMsg struct{ Generation int }

// runner is the simulation the UI shows: which scenario (its place in the
// catalogue, the command line's overrides, the [ ] { } adjustments), its compiled
// configuration, the engine running it (engine.go) and the latest snapshot of
// it, and how virtual time moves (speed, pause, the frames). Frames carry a
// generation, so a frame scheduled before a pause, a restart or a new scenario
// is dropped; paused means idle: no frame is scheduled. The runner never touches
// the run itself: it submits jobs to the engine and draws their snapshots.
type runner struct {
	catalogue *scenarios.Catalogue
	seed      *uint64
	lanes     []string
	redis     bool
	strict    bool
	session   session.Options
	manual    bool // the caller sends the frames (tests)

	index        int    // the scenario, in the catalogue
	watch        string // the key chosen to watch (W); "" for the scenario's
	limit, burst int64  // the [ ] { } adjustments; 0 is the scenario's own
	cfg          *sim.Config
	problem      string // why there is no run, shown in its place
	failed       error  // keys of closed runs that could not be removed

	eng     *engine   // the run shown; nil when there is none (see problem)
	snap    *snapshot // its latest snapshot: what the screen draws
	applied int       // the engine's jobs whose results are applied
	retired []*engine // runs being closed
	engines int       // engines made, for their generations

	speed      int // index into speeds
	paused     bool
	generation int

	// seeking: frames replay the run towards target (paused when there)
	seeking bool
	target  time.Duration

	// nextQuestion is the first of the lesson's questions (cfg.Questions, in
	// the order asked) the run has not yet asked or passed: playing, the run
	// stops at its instant and it is asked (see takeQuestion); a seek past it
	// passes it, and going back before it makes it next again.
	nextQuestion int

	// recorded are the inputs made live on this scenario (see sim.Input), in the
	// order made: every restart and replay includes them, after the
	// configuration's own. pending is one to make when a seek ends.
	recorded []sim.Input
	pending  *sim.Input
	// inflight are the inputs submitted to the engine whose results (which
	// record them) have not come yet, in the order submitted.
	inflight []sim.Input

	// a frame's advance out longer than stallAfter (a Redis that stopped
	// answering: each call waits up to its deadline) is said on the header,
	// with how long, so a frozen clock is never silent. frameOut is when the
	// frame now out was submitted (zero when none), frames counts frames
	// submitted (a check belongs to one), stalled how long the one out had
	// been out at the latest check.
	frameOut time.Time
	frames   int
	stalled  time.Duration
}

func (r *runner) name() string { return r.catalogue.Scenarios[r.index].Name }

func (r *runner) overrides() scenarios.Overrides {
	return scenarios.Overrides{Seed: r.seed, Lanes: r.lanes, Limit: r.limit, Burst: r.burst, Redis: r.redis, Strict: r.strict, WatchKey: r.watch}
}

// compile compiles the current scenario with the adjustments.
func (r *runner) compile() (*sim.Config, error) {
	cfg, err := r.catalogue.Compile(r.name(), r.overrides())
	if err == nil && (r.limit > 0 || r.burst > 0) {
		// a question's premise ("against 100 per second") and its feedback
		// are written for the scenario's own policy: not asked on another
		cfg.Questions = nil
	}
	return cfg, err
}

// now is the virtual time the snapshot shows.
func (r *runner) now() time.Duration {
	if r.snap == nil {
		return 0
	}
	return r.snap.Now
}

// done says the run shown has reached its end.
func (r *runner) done() bool { return r.snap != nil && r.snap.Done }

// open shows cfg (compiled by compile) from time zero.
func (r *runner) open(cfg *sim.Config) tea.Cmd {
	r.cfg = cfg
	return r.restart()
}

// load compiles the current scenario and opens it; a scenario that does not
// compile is kept as the problem shown.
func (r *runner) load() tea.Cmd {
	cfg, err := r.compile()
	if err != nil {
		cmd := r.close()
		r.cfg, r.problem = nil, err.Error()
		return cmd
	}
	return r.open(cfg)
}

// restart starts the current configuration over in a new engine, shown from
// its opening snapshot at once, and invalidates pending frames and the old
// engine's results. A problem starting it (a Redis URL that is not one) comes
// back from the engine and is shown.
func (r *runner) restart() tea.Cmd {
	closing := r.close()
	r.problem = ""
	r.generation++
	r.engines++
	cfg := r.cfgWithInputs()
	var start tea.Cmd
	r.eng, start = newEngine(r.engines, cfg, r.session)
	r.snap, r.applied = newSnapshot(cfg, sim.Opening(cfg)), 0
	r.nextQuestion = 0
	r.inflight = nil // their results, the old engine's, are dropped
	return tea.Batch(closing, start)
}

// settings are the live controls' values in force at the time shown: those the
// scenario's own inputs and the inputs recorded up to that time leave, then
// those of the inputs made and not yet recorded (see controls).
func (r *runner) settings() settings {
	if r.cfg == nil {
		return settingsOf(nil)
	}
	now := r.now()
	var in []sim.Input
	for _, i := range r.cfg.Inputs {
		if i.At <= now {
			in = append(in, i)
		}
	}
	for _, i := range r.recorded {
		if i.At <= now {
			in = append(in, i)
		}
	}
	in = append(in, r.inflight...)
	if r.pending != nil {
		in = append(in, *r.pending)
	}
	return settingsOf(in)
}

// inputCounts are how many inputs are recorded in all (made and not yet
// recorded included), and how many of those are later than the time shown.
func (r *runner) inputCounts() (all, later int) {
	all = len(r.recorded) + len(r.inflight)
	if r.pending != nil {
		all++
	}
	for _, i := range r.recorded {
		if i.At > r.now() {
			later++
		}
	}
	return all, later
}

// cfgWithInputs is the configuration with the inputs recorded live after its own,
// as every run of it includes them.
func (r *runner) cfgWithInputs() *sim.Config {
	if len(r.recorded) == 0 {
		return r.cfg
	}
	with := *r.cfg
	with.Inputs = append(append([]sim.Input(nil), r.cfg.Inputs...), r.recorded...)
	return &with
}

// close retires the engine shown, if any, and drops it and its snapshot.
func (r *runner) close() tea.Cmd {
	if r.eng == nil {
		return nil
	}
	e := r.eng
	r.eng, r.snap = nil, nil
	r.retired = append(r.retired, e)
	return e.retire()
}

// closed notes that a retired engine's run is closed.
func (r *runner) closed(msg closedMsg) {
	for i, e := range r.retired {
		if e.id == msg.engine {
			r.retired = append(r.retired[:i], r.retired[i+1:]...)
			r.failed = errors.Join(r.failed, msg.err)
			return
		}
	}
}

// release closes every run, the one shown and those being closed, and waits (at
// most stopWait each) until their keys are removed: when the UI ends.
func (r *runner) release() {
	r.close()
	for _, e := range r.retired {
		select {
		case <-e.closed:
			r.failed = errors.Join(r.failed, e.closeErr)
		case <-time.After(stopWait):
			r.failed = errors.Join(r.failed, fmt.Errorf("the run of %s was still closing after %s; its Redis keys expire by themselves", e.cfg.Name, stopWait))
		}
	}
	r.retired = nil
}

// live says there is a run that can advance.
func (r *runner) live() bool { return r.eng != nil }

// nextFrame schedules the next frame of the current generation, unless paused (and
// not seeking), finished or driven by the caller.
func (r *runner) nextFrame() tea.Cmd {
	if (r.paused && !r.seeking) || !r.live() || (r.done() && !r.seeking) || r.manual {
		return nil
	}
	gen := r.generation
	return tea.Tick(Frame, func(time.Time) tea.Msg { return FrameMsg{Generation: gen} })
}

// frame submits one frame's advance at the current speed (or towards a seek's
// target); a stale frame (an older generation) or one arriving while paused does
// nothing. The next frame is scheduled when its result arrives (applied).
func (r *runner) frame(f FrameMsg) tea.Cmd {
	if f.Generation != r.generation || !r.live() || r.done() && !r.seeking {
		return nil
	}
	switch {
	case r.seeking:
		target := r.target
		return r.submitFrame(drive(f.Generation, func(time.Duration) time.Duration { return target }))
	case r.paused:
		return nil
	}
	span := time.Duration(-1) // max: as far as the budget goes
	if r.speed < len(speeds) {
		span = time.Duration(float64(Frame) * speeds[r.speed])
	}
	stop := r.questionAt() // the run pauses there to ask
	return r.submitFrame(drive(f.Generation, func(now time.Duration) time.Duration {
		if span < 0 {
			return stop
		}
		return min(now+span, stop)
	}))
}

// submitFrame submits a frame's advance and returns the command that waits for
// its result, or for stallAfter if it takes longer (the check that says a frame
// is out too long; none when the caller drives frames: the tests). One
// command, not a result and a separate timer: a frame that lands in time, as
// nearly all do, leaves no timer to fire a second later.
func (r *runner) submitFrame(do func(e *engine) jobDone) tea.Cmd {
	j := r.eng.enqueue(do)
	r.frames++
	r.frameOut = time.Now()
	if r.manual {
		return j.wait()
	}
	return j.waitOr(stallAfter, stallMsg{frame: r.frames, job: j})
}

// never is past any run's end.
const never = time.Duration(1<<63 - 1)

// applied applies a job's result, and every result of the engine shown before it
// not applied yet, in the order the jobs were submitted; a result of another
// engine is dropped. It returns what comes next: the next frame, the input a
// seek was waiting for.
func (r *runner) apply(msg jobDone) tea.Cmd {
	if r.eng == nil || msg.engine != r.eng.id {
		return nil // stale: a run since restarted or closed
	}
	var cmds []tea.Cmd
	for r.applied <= msg.seq && r.applied < len(r.eng.jobs) {
		j := r.eng.jobs[r.applied]
		select {
		case <-j.finished:
		default:
			return tea.Batch(cmds...) // an earlier job is still running: its message comes
		}
		r.applied++
		cmds = append(cmds, r.applyOne(j.result))
		if r.eng == nil || r.eng.id != msg.engine {
			break // the result closed the run
		}
	}
	return tea.Batch(cmds...)
}

// applyOne applies one result of the engine shown.
func (r *runner) applyOne(d jobDone) tea.Cmd {
	if d.err != nil {
		r.problem = d.err.Error()
		return r.close()
	}
	r.snap = d.snap
	if d.frame {
		r.frameOut, r.stalled = time.Time{}, 0
	}
	if d.input != nil {
		r.recorded = append(r.recorded, *d.input)
		if len(r.inflight) > 0 {
			r.inflight = r.inflight[1:]
		}
	}
	if r.seeking && r.snap.Now >= r.target {
		r.seeking = false
		if in := r.pending; in != nil {
			r.pending = nil
			_, cmd, _ := r.addInput(*in)
			return cmd
		}
		return nil
	}
	if d.frame && d.generation == r.generation && !r.questionDue() {
		return r.nextFrame() // one chain of frames: a frame of an older generation (paused since) schedules none
	}
	return nil // at a question: the root asks it (takeQuestion)
}

func (r *runner) pause() tea.Cmd {
	r.paused = !r.paused
	r.generation++
	return r.nextFrame()
}

// addInput makes in at the run's current virtual time in every lane, and records
// it when its result comes. An input made after going back in time discards the
// recorded inputs after it: the run is replayed without them to now (a seek),
// and in is made when it gets there; the returned count says how many were
// discarded. While paused the run then moves on by the smallest step (a
// microsecond), applying what was made at its instant.
func (r *runner) addInput(in sim.Input) (discarded int, cmd tea.Cmd, err error) {
	if !r.live() {
		return 0, nil, fmt.Errorf("no run to send to")
	}
	if r.seeking {
		return 0, nil, fmt.Errorf("replaying to %s; wait for it", format.Duration(r.target))
	}
	at := r.now()
	kept := len(r.recorded)
	for kept > 0 && r.recorded[kept-1].At > at {
		kept--
	}
	if discarded = len(r.recorded) - kept; discarded > 0 {
		r.recorded = r.recorded[:kept]
		restart := r.restart()
		in.At = at
		r.pending = &in
		return discarded, tea.Batch(restart, r.seek(at)), nil
	}
	paused := r.paused
	r.inflight = append(r.inflight, in)
	return 0, r.eng.submit(func(e *engine) jobDone {
		in.At = e.sess.Now() // where the run is when the job runs: after the frames before it
		if err := e.sess.AddInput(in); err != nil {
			return jobDone{err: err}
		}
		if paused {
			if err := session.Drive(e.opts.Context, e.sess.Run, session.Target{To: in.At + algorithms.Resolution}, session.Sinks{}); err != nil {
				return jobDone{err: err}
			}
		}
		return jobDone{input: &in}
	}), nil
}

// switchTo opens scenario i from its start, with no adjustments.
func (r *runner) switchTo(i int) tea.Cmd {
	r.index, r.limit, r.burst, r.watch = i, 0, 0, ""
	r.recorded, r.pending, r.inflight = nil, nil, nil
	return tea.Batch(r.load(), r.nextFrame())
}
