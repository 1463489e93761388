package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ratelab/internal/atomicdir"
	"ratelab/internal/outpath"
	"ratelab/plots"
	"ratelab/present"
	"ratelab/present/format"
	"ratelab/report"
	"ratelab/session"
	"ratelab/sim"
)

const reportUsage = `
Usage: ratelab report --scenario NAME [--file F] [--lanes a,b] [--seed N] [--redis URL]
                      [--out DIR] [--strict]

Runs one scenario headless and writes it as a page to share: DIR/index.html (one
self-contained file: the lesson and its claims judged, the comparison table and
what its columns mean, each lane's verdict, the charts, the policy and seed; no
JavaScript, nothing fetched, prints well), with beside it requests.csv and
series.csv (the run's CSVs, as ratelab run --csv and --series write them) and
every chart as SVG and PNG in figures/. DIR appears whole or not at all: it is
written in a temporary folder beside it and renamed. An existing DIR is replaced
only when it is empty or ratelab wrote it (it holds a .ratelab file); any other
is refused.`

func runReport(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("report", reportUsage, stderr)
	var o runOptions
	o.scenarioFlags(fs, "the scenario to report, by `NAME` (see ratelab list)")
	var out string
	fs.StringVar(&out, "out", "", "the folder `DIR` to write (default: NAME-report in the current folder)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := notEmpty(fs, "scenario", "file", "lanes", "redis", "out"); err != nil {
		return err
	}
	if o.scenario == "" {
		return usagef("report: --scenario is required; see ratelab list for the names")
	}
	if out == "" {
		out = o.scenario + "-report"
	}
	ctx, stop := interrupts() // see runRun
	defer stop()
	_, cfg, err := compileScenario(o, nil)
	if err != nil {
		return err
	}
	if len(cfg.Lanes) == 0 {
		return usagef("report: scenario %q has no lanes to report; give it a [[scenario.lane]] (or leave out --lanes)", o.scenario)
	}
	if err := distinct(append(inputsOf(cfg, map[string]string{o.file: "the scenario file (--file)"}), outpath.Folder("--out", out))); err != nil {
		return err
	}
	dir, err := atomicdir.Create(out)
	if err != nil {
		return usagef("report: --out %v", err)
	}
	defer dir.Abort()
	so := session.Options{RedisURL: o.redis, MustReach: true, Context: ctx}

	requests, err := os.Create(filepath.Join(dir.Path(), "requests.csv"))
	if err != nil {
		return err
	}
	defer requests.Close()
	series, err := os.Create(filepath.Join(dir.Path(), "series.csv"))
	if err != nil {
		return err
	}
	defer series.Close()
	startWork()
	r, err := session.Start(cfg, so)
	if ctx.Err() != nil {
		return fmt.Errorf("%v before the run started; nothing was written", context.Cause(ctx))
	}
	if err != nil {
		return err
	}
	defer func() {
		if cerr := r.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	rows, err := present.NewRequestWriter(named{requests, out + "/requests.csv"}, cfg)
	if err != nil {
		return err
	}
	samples, err := present.NewSeriesWriter(named{series, out + "/series.csv"}, cfg)
	if err != nil {
		return err
	}
	decisions := plots.NewRecorder() // what the charts' zoom counts, kept as the run goes
	defer decisions.Close()
	bar := newProgressBar(stderr, "virtual seconds")
	defer bar.done()
	sinks := session.Sinks{Rows: []func([]sim.Row) error{rows.Write, decisions.Rows}, Series: []func(int, sim.Sample) error{samples.Write}}
	if err := drive(ctx, r.Run, sinks, bar); err != nil {
		var s *sim.Stopped
		if errors.As(err, &s) && ctx.Err() != nil {
			return fmt.Errorf("%v at %s of %s of virtual time; nothing was written", context.Cause(ctx), format.Duration(s.At), format.Duration(cfg.Duration))
		}
		return err
	}
	bar.done()
	for _, f := range []interface{ Flush() error }{rows, samples} {
		if err := f.Flush(); err != nil {
			return err
		}
	}
	for _, f := range []*os.File{requests, series} {
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", f.Name(), err)
		}
	}
	figs, notes, err := drawPlots(ctx, r.Run, decisions, filepath.Join(dir.Path(), "figures"))
	if cause := context.Cause(ctx); cause != nil {
		return fmt.Errorf("%v while drawing the charts; nothing was written", cause)
	}
	if err != nil {
		return err
	}
	page := report.Page{
		Config: cfg, Metrics: r.Metrics(), Claims: r.Claims(), Answers: r.Answers(), Figures: figs, Notes: notes,
		Files: []report.File{
			{Name: "requests.csv", What: "every decision, one row each, as ratelab run --csv writes it (its columns: docs/csv-and-metrics.md in ratelab's repository)"},
			{Name: "series.csv", What: "each lane's series, one row per tick, as ratelab run --series writes it (the same section)"},
			{Name: "figures/", What: "every chart above as SVG and PNG, for slides and documents"},
		},
		Command: reportCommand(o),
	}
	index, err := os.Create(filepath.Join(dir.Path(), "index.html"))
	if err != nil {
		return err
	}
	defer index.Close()
	if err := report.Write(index, page); err != nil {
		return fmt.Errorf("writing %s/index.html: %w", out, err)
	}
	if err := index.Close(); err != nil {
		return fmt.Errorf("writing %s/index.html: %w", out, err)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%v; nothing was written", context.Cause(ctx))
	}
	if err := dir.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: index.html (%d charts), requests.csv, series.csv, figures/\n", out, len(figs))
	for _, n := range notes {
		fmt.Fprintf(stdout, "  %s\n", n)
	}
	return nil
}

// reportCommand is the command that makes the same page: the scenario and what
// changes the run (not the folder, nor a Redis address, which do not).
func reportCommand(o runOptions) string {
	parts := []string{"ratelab report --scenario " + o.scenario}
	if o.file != "" {
		parts = append(parts, "--file "+o.file)
	}
	if o.lanes != "" {
		parts = append(parts, "--lanes "+o.lanes)
	}
	if o.seed != nil {
		parts = append(parts, fmt.Sprintf("--seed %d", *o.seed))
	}
	return strings.Join(parts, " ")
}

// drive runs r to its end through session.Drive, a virtual second (or a tick) at
// a time, feeding sinks, and shows how far it is on bar. A signal stops it (see
// sim.Run.Bound): the error, a *sim.Stopped, says where.
func drive(ctx context.Context, r *sim.Run, sinks session.Sinks, bar *progressBar) error {
	t := session.Through(r.Config, r.Config.Duration)
	total := int((t.To + t.Step - 1) / t.Step)
	sinks.Progress = func(now, _ time.Duration) { bar.update(int((now+t.Step-1)/t.Step), total) }
	return session.Drive(ctx, r, t, sinks)
}

// drawPlots draws r's charts as it stands, the zoom counted from the decisions
// rec kept (see plots.From), and writes each as SVG and PNG into dir, which it
// makes. ctx, when done, stops the writing.
func drawPlots(ctx context.Context, r *sim.Run, rec *plots.Recorder, dir string) ([]plots.Figure, []string, error) {
	d, err := plots.From(r, rec)
	if err != nil {
		return nil, nil, err
	}
	figs, notes, err := plots.Figures(d)
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	return figs, notes, plots.WriteFiles(ctx, dir, figs)
}
