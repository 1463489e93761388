package session

import (
	"context"
	"fmt"
	"time"

	"ratelab/sim"
)

// Target is how far one drive takes a run, and in what steps.
type Target struct {
	// To is the virtual time to reach; at most the run's end.
	To time.Duration
	// Step is the most virtual time one advance covers (0: a tick): the series
	// goes to its sinks at the end of each, so a step bounds the samples held,
	// and a signal or a budget is looked at between steps as well as within.
	Step time.Duration
	// Budget, when > 0, ends the drive early, at the end of the step in which the
	// run's decisions (over all lanes) grew by this many: the UI's frame budget,
	// which lets the virtual clock fall behind rather than the keyboard.
	Budget int64
}

// Through is the target of a headless drive to t: a virtual second (or a tick,
// if longer) at a time, as run, report and the UI's exports advance.
func Through(cfg *sim.Config, t time.Duration) Target {
	return Target{To: t, Step: max(time.Second, cfg.Tick)}
}

// Sinks are what a drive feeds as the run advances; each may be empty.
type Sinks struct {
	// Rows each receive every decision, in batches ordered by time and then
	// lane, once its attempt's fate is known (the request CSV; the charts' zoom,
	// plots.Recorder). At the drive's end the rows of attempts still in flight
	// go as they stand (sim.Run.FinishRows).
	Rows []func([]sim.Row) error
	// Series each receive every lane's sample of every tick, by tick then lane
	// (the series CSV).
	Series []func(lane int, s sim.Sample) error
	// Progress, when not nil, is told after each step the virtual time reached
	// and the target's.
	Progress func(now, to time.Duration)
}

// Drive advances r to t.To, step by step, feeding sinks as it goes: the one loop
// through which run, report, --plot, the UI and its exports all advance a run.
//
// Sinks of rows or series can only be attached before the run's first advance:
// a drive that gives them starts from virtual time 0, and they stay attached for
// later drives of the same run. ctx, when done, stops the drive between steps (the
// run's own context, see sim.Run.Bound and Options.Context, stops it within one);
// the error is then a *sim.Stopped saying where. Any other error (a sink that
// failed, a lane that failed) stops it too, and is returned as is. The run's Now
// says where it got: short of t.To when the budget ran out.
func Drive(ctx context.Context, r *sim.Run, t Target, sinks Sinks) error {
	if len(sinks.Rows) > 0 || len(sinks.Series) > 0 {
		if r.Now() > 0 {
			return fmt.Errorf("session.Drive: sinks are attached before the run's first advance (it is at %s)", r.Now())
		}
		attach(r, sinks)
	}
	to := min(t.To, r.Config.Duration)
	step := t.Step
	if step <= 0 {
		step = r.Config.Tick
	}
	start := r.Decisions()
	for r.Now() < to {
		if err := context.Cause(ctx); err != nil {
			return &sim.Stopped{At: r.Now(), Cause: err}
		}
		if err := r.AdvanceTo(min(r.Now()+step, to)); err != nil {
			return err
		}
		if sinks.Progress != nil {
			sinks.Progress(r.Now(), to)
		}
		if t.Budget > 0 && r.Decisions()-start >= t.Budget {
			break
		}
	}
	if len(sinks.Rows) > 0 {
		return r.FinishRows()
	}
	return nil
}

// attach makes r hand its rows and samples to every sink given.
func attach(r *sim.Run, sinks Sinks) {
	switch rows := sinks.Rows; len(rows) {
	case 0:
	case 1:
		r.OnRows(rows[0])
	default:
		r.OnRows(func(batch []sim.Row) error {
			for _, sink := range rows {
				if err := sink(batch); err != nil {
					return err
				}
			}
			return nil
		})
	}
	switch series := sinks.Series; len(series) {
	case 0:
	case 1:
		r.OnSeries(series[0])
	default:
		r.OnSeries(func(lane int, s sim.Sample) error {
			for _, sink := range series {
				if err := sink(lane, s); err != nil {
					return err
				}
			}
			return nil
		})
	}
}
