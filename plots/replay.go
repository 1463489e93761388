package plots

import (
	"errors"
	"time"

	"ratelab/session"
	"ratelab/sim"
)

// FillZoom picks d's zoom (ZoomOn) and fills it from a fresh replay of the run up
// to the zoom's end: the run is deterministic, so the replay makes the same
// decisions. so is how the run was started (its Redis, its context: a signal
// stops the replay too). With no zoom to show, d.Zoom stays nil.
func FillZoom(d *Data, so session.Options) (err error) {
	z := ZoomOn(d)
	if z == nil {
		return nil
	}
	s, err := session.Start(d.Config, so)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := s.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	s.OnRows(z.Rows)
	end := min(z.To, d.UpTo)
	if err := advance(s.Run, end); err != nil {
		return err
	}
	// a row waits for its attempt's fate (with a backend): the rows decided
	// before end but not yet known come now
	if err := s.FinishRows(); err != nil {
		return err
	}
	d.Zoom = z
	return nil
}

// Replay runs cfg afresh up to upTo and takes its figures' data, zoom included:
// the UI's charts of the run so far, drawn without stopping it.
func Replay(cfg *sim.Config, upTo time.Duration, so session.Options) (d *Data, err error) {
	s, err := session.Start(cfg, so)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := s.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	if err := advance(s.Run, upTo); err != nil {
		return nil, err
	}
	d = From(s.Run)
	return d, FillZoom(d, so)
}

// advance runs r to t a bounded stretch at a time, so rows and samples waiting for
// their sinks stay few.
func advance(r *sim.Run, t time.Duration) error {
	step := max(time.Second, r.Config.Tick)
	for at := r.Now(); at < t; {
		at = min(at+step, t)
		if err := r.AdvanceTo(at); err != nil {
			return err
		}
	}
	return nil
}
