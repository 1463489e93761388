package ui

import (
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/algorithms"
	"ratelab/present/format"
	"ratelab/scenarios"
	"ratelab/session"
	"ratelab/sim"
)

// Frame is the wall time between two frames, and the virtual time one covers at
// 1×: virtual time advances by Frame × speed a frame.
const Frame = 50 * time.Millisecond

// FrameBudget is the most decisions one frame may make: at speeds the engine cannot
// keep up with, the virtual clock slows down rather than the keyboard.
const FrameBudget = 150_000

// speeds are the multiples of real time + and - step through; one past the last is
// "max": as much virtual time as FrameBudget allows per frame.
var speeds = []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000}

// speedOne is the index of 1× in speeds.
const speedOne = 3

// speedName renders the speed for the header.
func speedName(i int) string {
	if i >= len(speeds) {
		return "max"
	}
	return fmt.Sprintf("%g×", speeds[i])
}

// FrameMsg asks for one frame: advance virtual time, redraw. Generation must match
// the runner's, or the frame is stale and dropped.
type FrameMsg struct{ Generation int }

// runner is the simulation the UI shows: which scenario (its place in the
// catalogue, the command line's overrides, the [ ] { } adjustments), its compiled
// configuration, the running session, and how virtual time moves (speed, pause,
// the frames). Frames carry a generation, so a frame scheduled before a pause, a
// restart or a new scenario is dropped; paused means idle: no frame is scheduled.
type runner struct {
	catalogue *scenarios.Catalogue
	seed      *uint64
	lanes     []string
	redis     bool
	strict    bool
	session   session.Options
	manual    bool // the caller sends the frames (tests)

	index        int   // the scenario, in the catalogue
	limit, burst int64 // the [ ] { } adjustments; 0 is the scenario's own
	cfg          *sim.Config
	run          *session.Session
	released     bool   // the run's store is released; it can be drawn, not advanced
	problem      string // why there is no run, shown in its place
	failed       error  // keys of a released run that could not be removed

	speed      int // index into speeds
	paused     bool
	generation int

	// seeking: frames replay the run towards target (paused when there)
	seeking bool
	target  time.Duration

	// recorded are the inputs made live on this scenario (see sim.Input), in the
	// order made: every restart and replay includes them, after the
	// configuration's own. pending is one to make when a seek ends.
	recorded []sim.Input
	pending  *sim.Input
}

func (r *runner) name() string { return r.catalogue.Scenarios[r.index].Name }

func (r *runner) overrides() scenarios.Overrides {
	return scenarios.Overrides{Seed: r.seed, Lanes: r.lanes, Limit: r.limit, Burst: r.burst, Redis: r.redis, Strict: r.strict}
}

// compile compiles the current scenario with the adjustments.
func (r *runner) compile() (*sim.Config, error) {
	return r.catalogue.Compile(r.name(), r.overrides())
}

// open shows cfg (compiled by compile) from time zero.
func (r *runner) open(cfg *sim.Config) {
	r.cfg = cfg
	r.restart()
}

// load compiles the current scenario and opens it; a scenario that does not
// compile is kept as the problem shown.
func (r *runner) load() {
	cfg, err := r.compile()
	if err != nil {
		r.close()
		r.cfg, r.problem = nil, err.Error()
		return
	}
	r.open(cfg)
}

// restart starts the current configuration over, and invalidates pending frames.
// A problem starting it (a Redis that is not there) is kept and shown.
func (r *runner) restart() {
	r.close()
	r.problem = ""
	r.generation++
	s, err := session.Start(r.cfgWithInputs(), r.session)
	if err != nil {
		r.problem = err.Error()
		return
	}
	r.run, r.released = s, false
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

// release releases what the run holds (Redis connections and keys) but keeps it,
// so what it showed can still be drawn.
func (r *runner) release() {
	if r.run != nil && !r.released {
		r.failed = errors.Join(r.failed, r.run.Close())
		r.released = true
	}
}

// close releases the run and drops it.
func (r *runner) close() {
	r.release()
	r.run = nil
}

// live says there is a run that can advance.
func (r *runner) live() bool { return r.run != nil && !r.released }

// nextFrame schedules the next frame of the current generation, unless paused (and
// not seeking), finished or driven by the caller.
func (r *runner) nextFrame() tea.Cmd {
	if (r.paused && !r.seeking) || !r.live() || (r.run.Done() && !r.seeking) || r.manual {
		return nil
	}
	gen := r.generation
	return tea.Tick(Frame, func(time.Time) tea.Msg { return FrameMsg{Generation: gen} })
}

// frame advances virtual time by one frame at the current speed and schedules the
// next; a stale frame (an older generation) or one arriving while paused does
// nothing.
func (r *runner) frame(f FrameMsg) tea.Cmd {
	if f.Generation != r.generation || !r.live() {
		return nil
	}
	if r.seeking {
		r.advance(r.target)
		if r.live() && r.run.Now() >= r.target {
			r.seeking = false
			if in := r.pending; in != nil {
				r.pending = nil
				r.addInput(*in)
			}
			return nil
		}
		return r.nextFrame()
	}
	if r.paused {
		return nil
	}
	target := r.cfg.Duration
	if r.speed < len(speeds) {
		target = r.run.Now() + time.Duration(float64(Frame)*speeds[r.speed])
	}
	r.advance(target)
	return r.nextFrame()
}

// seek moves the run to virtual time t (within the run) and pauses there. Going
// back replays the run from its start — it is deterministic, so the replay makes
// the same decisions and no history is kept — and going forward advances it; both
// in frames within the frame budget, so a long seek keeps the keyboard live.
func (r *runner) seek(t time.Duration) tea.Cmd {
	if r.cfg == nil {
		return nil
	}
	t = max(0, min(t, r.cfg.Duration))
	if r.run == nil || t < r.run.Now() {
		r.restart()
	}
	r.paused, r.seeking, r.target = true, true, t
	r.generation++
	if r.manual {
		return nil
	}
	return r.nextFrame()
}

// position is where the run is going: a seek's target while it replays (the
// engine restarts from 0 to go back), else the engine's time. Keys that step
// from here, so ← ← goes two columns back even when pressed during the replay.
func (r *runner) position() time.Duration {
	if r.seeking {
		return r.target
	}
	return r.run.Now()
}

// advance runs the engine towards target a tick at a time, stopping early when the
// frame's budget of decisions is spent: the virtual clock then falls behind, the
// keyboard does not. A run that fails stops, with the reason shown.
func (r *runner) advance(target time.Duration) {
	if !r.live() {
		return
	}
	if err := session.Drive(contextOf(r.session), r.run.Run, session.Target{To: target, Step: r.cfg.Tick, Budget: FrameBudget}, session.Sinks{}); err != nil {
		r.problem = err.Error()
		r.close()
	}
}

func (r *runner) pause() tea.Cmd {
	r.paused = !r.paused
	r.generation++
	return r.nextFrame()
}

func (r *runner) faster() { r.speed = min(r.speed+1, len(speeds)) }
func (r *runner) slower() { r.speed = max(r.speed-1, 0) }
func (r *runner) max()    { r.speed = len(speeds) }

// addInput makes in at the current virtual time in every lane, and records it. An
// input made after going back in time discards the recorded inputs after it: the
// run is replayed without them to now (a seek), and in is made when it gets there;
// the returned count says how many were discarded.
func (r *runner) addInput(in sim.Input) (discarded int, cmd tea.Cmd, err error) {
	if !r.live() {
		return 0, nil, fmt.Errorf("no run to send to")
	}
	if r.seeking {
		return 0, nil, fmt.Errorf("replaying to %s; wait for it", format.Duration(r.target))
	}
	in.At = r.run.Now()
	kept := len(r.recorded)
	for kept > 0 && r.recorded[kept-1].At > in.At {
		kept--
	}
	if discarded = len(r.recorded) - kept; discarded > 0 {
		r.recorded = r.recorded[:kept]
		r.restart()
		r.pending = &in
		return discarded, r.seek(in.At), nil
	}
	if err := r.run.AddInput(in); err != nil {
		return 0, nil, err
	}
	r.recorded = append(r.recorded, in)
	if r.paused {
		// paused, the input is made at once: the run moves on by the smallest step
		// (a microsecond), applying what was made at its instant
		r.advance(in.At + algorithms.Resolution)
	}
	return 0, nil, nil
}

// switchTo opens scenario i from its start, with no adjustments.
func (r *runner) switchTo(i int) tea.Cmd {
	r.index, r.limit, r.burst = i, 0, 0
	r.recorded, r.pending = nil, nil
	r.load()
	return r.nextFrame()
}

// adjust moves the default policy's burst (or, with rate, its limit) one step
// along a ladder of round numbers, up or down, and restarts the run with it. A
// step the scenario cannot take (a burst below a request's cost) is refused, and
// the error says why.
func (r *runner) adjust(rate bool, dir int) error {
	if r.cfg == nil {
		return nil
	}
	p := r.cfg.Tiers[0].Policy
	oldLimit, oldBurst := r.limit, r.burst
	if rate {
		r.limit = ladderStep(p.Limit, dir)
	} else {
		r.burst = ladderStep(p.Burst, dir)
	}
	cfg, err := r.compile()
	if err != nil {
		r.limit, r.burst = oldLimit, oldBurst
		return err
	}
	r.open(cfg)
	return nil
}

// ladder is the round numbers [ ] { } step through: 1, 2, 3, 5, 8 and 10, 15, 20,
// 25, 30, 40, 50, 60, 75 times each power of ten.
var ladder = []int64{1, 2, 3, 5, 8}

var decade = []int64{10, 15, 20, 25, 30, 40, 50, 60, 75}

// ladderStep returns the next round number above (dir > 0) or below v, at least 1.
func ladderStep(v int64, dir int) int64 {
	var steps []int64
	steps = append(steps, ladder...)
	for scale := int64(1); scale <= 1e12; scale *= 10 {
		for _, d := range decade {
			steps = append(steps, d*scale)
		}
	}
	if dir > 0 {
		for _, s := range steps {
			if s > v {
				return s
			}
		}
		return v
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i] < v {
			return steps[i]
		}
	}
	return 1
}
