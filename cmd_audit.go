package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/audit"
	"ratelab/internal/printable"
	"ratelab/scenarios"
	"ratelab/session"
	"ratelab/sim"
	"ratelab/traces"
	"ratelab/tune"
)

const auditUsage = `
Usage: ratelab audit --trace FILE --config FILE [--config-format PRODUCT] [--key ip|user|…]
                     [--log-format clf|jsonl|csv] [--exclude …] [--spread uniform]
                     [--format text|json] [--fail-on 'ordinary>0.1%,crawler>1%']

Replays a request log through the rate limits a site runs today (a product's
configuration, as --config reads it), rule by rule. Every refusal names its
decisive rule: the one the product's own order makes refuse it, at its
file:line (the first of a location's limits whose excess is over its burst,
the first descriptor bucket out of tokens, the window a refusal's Retry-After
tells). For each rule: how often it would refuse (fires), how often it is the
first to (decides), how many of its refusals fall on ordinary clients (neither
heavy hitters nor of an abusive kind, as ratelab tune classes the log's
clients), the clients it refuses most with their User-Agent and kind, and its
first and last refusal in the log's own time. The findings come first, in 24
lines of 80 columns: a rule that refuses ordinary clients (past --fail-on's
bound on ordinary, else 0.1% of their requests), a rule that never decides
(shadowed by another), one that never refuses, a zone or table several
contexts share. --format json has the rest. With --fail-on the command is a
CI check: exit 1 when some context refuses more than a share of a class's
requests (ordinary, heavy, abusive, all, or a kind: crawler, browser,
feed-reader…). Each context replays the whole log: which location or frontend
a request reaches is not modelled.`

// auditOptions are the flags of ratelab audit.
type auditOptions struct {
	trace          traceOptions
	format, failOn string
}

func runAudit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("audit", auditUsage, stderr)
	var o auditOptions
	o.trace.flags(fs, true, false)
	o.trace.noFormat = false // its own --log-format
	o.trace.formatFlag = "log-format"
	fs.StringVar(&o.trace.format, "log-format", "", "the log's `FORMAT`: clf (also common, combined), jsonl or csv; by default told by its first lines, else by its name")
	o.trace.configFlags(fs)
	fs.StringVar(&o.format, "format", "text", "the output's `FORMAT`: text (the findings in 24 lines) or json (everything)")
	fs.Func("fail-on", "exit 1 when some context refuses more than a share of a class's requests, `BOUNDS` like ordinary>0.1% (comma-separated, or the flag again; classes ordinary, heavy, abusive, all, or a kind)", func(s string) error {
		o.failOn = strings.Trim(o.failOn+","+s, ",")
		return nil
	})
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := notEmpty(fs, "trace", "config"); err != nil {
		return err
	}
	switch {
	case o.trace.config == "":
		return usagef("audit: --config FILE is required: the configuration to audit")
	case o.format != "text" && o.format != "json":
		return usagef("audit: --format is text or json, not %q", o.format)
	}
	var kinds []string
	for _, r := range tune.Rules {
		kinds = append(kinds, r.Kind)
	}
	var checks []audit.Check
	if o.failOn != "" {
		var err error
		if checks, err = audit.ParseChecks(o.failOn, kinds); err != nil {
			return usagef("--fail-on: %v", err)
		}
	}
	to, err := o.trace.options("audit")
	if err != nil {
		return err
	}
	conf, err := o.trace.readConfig()
	if err != nil {
		return err
	}
	ctx, stop := interrupts()
	defer stop()
	t, err := o.trace.load(to, tune.LoadOptions{Budget: 64 << 20, Profiles: true})
	if err != nil {
		return err
	}
	defer t.Close()
	periods, _ := tune.DefaultPeriods(t.Span)
	classes, err := t.Classify(periods)
	if err != nil {
		return usageError{err}
	}
	replay := scenarios.TraceReplay{
		Title: "audit", Seed: o.trace.seed, Policy: scenarios.TraceLimit{Algorithm: algorithms.TokenBucketName, Policy: algorithms.Policy{Limit: 1, Period: time.Second, Burst: 1}},
		Product: string(conf.Product.Name), ConfigFile: conf.File, Log: o.trace.replayLog(to, t),
	}
	doc, err := replay.Text()
	if err != nil {
		return err
	}
	src := scenarios.Source{Name: "--trace " + o.trace.file, Open: func(name string) (io.ReadCloser, error) { return os.Open(name) },
		Path: func(name string) string { return name }, Generated: true}
	c, err := scenarios.Parse(src, doc)
	if err != nil {
		return usageError{err}
	}
	cfg, err := c.Compile(c.Names()[0], scenarios.Overrides{})
	if err != nil {
		return usageError{err}
	}
	index := map[string]int{}
	for k, name := range t.Keys {
		index[name] = k
	}
	in := audit.Input{Config: cfg, Keys: make([]audit.Key, len(cfg.Keys)), When: func(at time.Duration) string { return t.When(int64(at / time.Microsecond)) }}
	for i, key := range cfg.Keys {
		k, ok := index[key.Name]
		if !ok {
			return fmt.Errorf("audit: the run's key %q is not among the log's: report this", printable.String(key.Name))
		}
		in.Keys[i] = audit.Key{Name: key.Name, Heavy: classes.Heavy[k]}
		in.Keys[i].Kind, in.Keys[i].Why, in.Keys[i].Abusive = classes.KindOf(t, k)
		if t.Profiles != nil {
			in.Keys[i].Agent = t.Profiles[k].Agent
		}
	}
	tally := audit.NewTally(in)
	startWork()
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		return err
	}
	defer r.Close()
	bar := newProgressBar(stderr, "virtual seconds")
	err = session.Drive(ctx, r, session.Through(cfg, cfg.Duration), session.Sinks{Rows: []func([]sim.Row) error{tally.Add}, Progress: progressOf(cfg, bar)})
	bar.done()
	if cause := context.Cause(ctx); cause != nil {
		return fmt.Errorf("%v; nothing was written", cause)
	}
	if err != nil {
		return err
	}
	rep := tally.Report(r.Metrics(), checks)
	rep.Title = fmt.Sprintf("ratelab audit: %s (%s) on %s", filepath.Base(conf.File), conf.Product.Name, filepath.Base(o.trace.file))
	rep.Log = audit.LogSummary{File: o.trace.file, Requests: t.Count, Clients: t.KeyCount, From: t.When(0), To: t.When(int64(t.Span/time.Microsecond) - 1)}
	if t.Stats.Resolution >= time.Second {
		rep.Log.WholeSeconds = "Whole-second stamps: each second's requests arrive at once (--spread uniform places them within it)."
		if t.Spread == traces.SpreadUniform {
			rep.Log.WholeSeconds = "Whole-second stamps, each request placed within its second (--spread uniform)."
		}
	}
	lanes, _ := conf.Ratelab(o.trace.traceKey(t.Format.Format))
	rep.AddFindings(audit.Shared(conf, lanes))
	rep.Notes = configNotes(conf, o.trace.traceKey(t.Format.Format), int64(t.KeyCount))
	for _, tr := range sim.TraceReports(cfg) {
		rep.Log.Unparsed += tr.Unparsed
		rep.Log.Shown = append(rep.Log.Shown, tr.Shown...)
	}
	if o.format == "json" {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		return err
	}
	if failed := rep.FailedChecks(); len(failed) > 0 {
		return fmt.Errorf("audit: --fail-on %s failed", strings.Join(failed, ", "))
	}
	return nil
}
