// Package outputs writes a run as files — the request CSV, the series CSV, its
// charts — the one way a run becomes outputs, for ratelab run, report and the
// UI's exports (e and P): session.Drive feeds the CSV writers (package present)
// and the charts' recorder (package plots) as the run advances, then the writers
// are flushed, the charts drawn, and the files put in place.
//
// Nothing is put in place unless all of it was written: a failure, or a signal
// (the context done) before the commit, leaves what was at every path as it
// was. A File is written aside and renamed (internal/atomicfile) or written
// through (standard output, a device, a FIFO: what went there cannot be taken
// back, and File.Through says so).
package outputs

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"ratelab/plots"
	"ratelab/present"
	"ratelab/session"
	"ratelab/sim"
)

// File is a destination for a CSV: written, then committed (put in place) once
// the whole run is, or aborted.
type File interface {
	io.Writer
	Commit() error
	Abort()
}

// Outputs are what to write; each is optional.
type Outputs struct {
	// Requests and Series take the request CSV (every decision and what became
	// of it) and the series CSV (each lane's samples, every tick).
	Requests, Series File
	// Headers adds to the request CSV the rate-limit headers each response
	// sends, in each lane's family (present.NewRequestWriterWithHeaders).
	Headers bool
	// Charts is a folder to draw every chart into, as SVG and PNG (made if
	// missing): the caller's, which it puts in place itself (a folder written
	// whole, internal/atomicdir, or a report's figures/).
	Charts string
	// ChartsName is how messages name the charts' folder ("--plot charts").
	ChartsName string
	// Progress, when not nil, is told after each step the virtual time reached
	// and the time the run is written up to.
	Progress func(now, to time.Duration)
}

// Written is what a write drew: the charts, and what they could not show
// (plots.Figures' notes).
type Written struct {
	Figures []plots.Figure
	Notes   []string
}

// Write advances r, which has not advanced yet, to upTo (its end, or less: the
// run so far, as the UI exports it), writes o, and commits its files. Attempts
// still in flight at upTo are written as they stand. A signal (ctx done) stops
// it: the error is then a *sim.Stopped saying where, or ctx's cause, and nothing
// is committed.
func Write(ctx context.Context, r *sim.Run, upTo time.Duration, o Outputs) (w Written, err error) {
	cfg := r.Config
	var sinks session.Sinks
	var rows *present.RequestWriter
	if o.Requests != nil {
		newWriter := present.NewRequestWriter
		if o.Headers {
			newWriter = present.NewRequestWriterWithHeaders
		}
		if rows, err = newWriter(o.Requests, cfg); err != nil {
			return w, err
		}
		sinks.Rows = append(sinks.Rows, rows.Write)
	}
	var samples *present.SeriesWriter
	if o.Series != nil {
		if samples, err = present.NewSeriesWriter(o.Series, cfg); err != nil {
			return w, err
		}
		sinks.Series = append(sinks.Series, samples.Write)
	}
	var decisions *plots.Recorder // what the charts' zoom counts, kept as the run goes
	if o.Charts != "" {
		decisions = plots.NewRecorder()
		defer decisions.Close()
		sinks.Rows = append(sinks.Rows, decisions.Rows)
	}
	sinks.Progress = o.Progress
	if err := session.Drive(ctx, r, session.Through(cfg, upTo), sinks); err != nil {
		return w, err
	}
	if rows != nil {
		if err := rows.Flush(); err != nil {
			return w, err
		}
	}
	if samples != nil {
		if err := samples.Flush(); err != nil {
			return w, err
		}
	}
	if o.Charts != "" {
		if w, err = draw(ctx, r, decisions, o.Charts); err != nil {
			if ctx.Err() != nil {
				return w, context.Cause(ctx)
			}
			return w, fmt.Errorf("drawing the charts for %s: %w", o.ChartsName, err)
		}
	}
	if ctx.Err() != nil { // a signal after the last decision: still nothing committed
		return w, context.Cause(ctx)
	}
	for _, f := range []File{o.Requests, o.Series} {
		if f != nil {
			if err := f.Commit(); err != nil {
				return w, err
			}
		}
	}
	return w, nil
}

// draw draws r's charts as it stands, the zoom counted from the decisions rec
// kept (see plots.From), and writes each as SVG and PNG into dir, which it makes.
// ctx, when done, stops the writing.
func draw(ctx context.Context, r *sim.Run, rec *plots.Recorder, dir string) (Written, error) {
	d, err := plots.From(r, rec)
	if err != nil {
		return Written{}, err
	}
	figs, notes, err := plots.Figures(d)
	if err != nil {
		return Written{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Written{}, err
	}
	return Written{Figures: figs, Notes: notes}, plots.WriteFiles(ctx, dir, figs)
}
