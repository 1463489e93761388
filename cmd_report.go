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
	"ratelab/internal/atomicfile"
	"ratelab/internal/format"
	"ratelab/internal/outpath"
	"ratelab/outputs"
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

	var files []*output
	for _, name := range []string{"requests.csv", "series.csv"} {
		f, err := atomicfile.Create(filepath.Join(dir.Path(), name))
		if err != nil {
			return err
		}
		defer f.Abort()
		files = append(files, fileOutput(f, out+"/"+name))
	}
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
	bar := newProgressBar(stderr, "virtual seconds")
	defer bar.done()
	written, err := outputs.Write(ctx, r.Run, cfg.Duration, outputs.Outputs{Requests: files[0], Series: files[1],
		Charts: filepath.Join(dir.Path(), "figures"), ChartsName: "--out " + out, Progress: progressOf(cfg, bar)})
	if err != nil {
		var s *sim.Stopped
		switch {
		case errors.As(err, &s) && ctx.Err() != nil:
			return fmt.Errorf("%v at %s of %s of virtual time; nothing was written", context.Cause(ctx), format.Duration(s.At), format.Duration(cfg.Duration))
		case ctx.Err() != nil:
			return fmt.Errorf("%v while drawing the charts; nothing was written", context.Cause(ctx))
		}
		return err
	}
	bar.done()
	figs, notes := written.Figures, written.Notes
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

// progressOf shows on bar how far a run to its end is, a step of session.Through
// (a virtual second, or a tick) at a time.
func progressOf(cfg *sim.Config, bar *progressBar) func(now, to time.Duration) {
	t := session.Through(cfg, cfg.Duration)
	total := int((t.To + t.Step - 1) / t.Step)
	return func(now, _ time.Duration) { bar.update(int((now+t.Step-1)/t.Step), total) }
}
