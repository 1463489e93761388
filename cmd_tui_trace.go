package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"ratelab/algorithms"
	"ratelab/internal/format"
	"ratelab/internal/printable"
	"ratelab/products"
	"ratelab/products/all"
	"ratelab/scenarios"
	"ratelab/sim"
	"ratelab/traces"
	"ratelab/tune"
)

// traceCatalogue sweeps the trace as ratelab tune does (the default grid and
// goal) and returns a catalogue of one scenario that replays it through the
// recommended policy (or, when none meets the goal, the closest) and its
// neighbours in the grid, one lane each, and, with --config, a lane per
// context that limits in the product's configuration; notes are what that
// configuration does that its lanes do not model ("file:line: …").
func traceCatalogue(ctx context.Context, cmd string, o traceOptions, stderr io.Writer) (*scenarios.Catalogue, string, []string, error) {
	to, err := o.options(cmd)
	if err != nil {
		return nil, "", nil, err
	}
	// a scenario replays one file: a folder or a pattern of a log's parts is
	// tune's alone, said before the sweep
	info, statErr := os.Stat(o.file)
	if statErr == nil && info.IsDir() || statErr != nil && tune.IsPattern(o.file) {
		if _, err := tune.PartsOf(o.file); err != nil {
			return nil, "", nil, usageError{err}
		}
		return nil, "", nil, usagef("%s --trace replays one file, and %s is a log's parts: join them into one file in time order, or tune them with ratelab tune --trace %s", cmd, o.file, format.ShellQuote(o.file))
	}
	goal, err := tune.ParseGoal(cmp.Or(o.goal, tune.DefaultGoal.String())) // none given: the default
	switch {
	case err != nil:
		return nil, "", nil, usagef("--goal: %v", err)
	case goal.Name == tune.GoalCapacity || goal.Name == tune.GoalFairShare:
		return nil, "", nil, usagef("--goal %s is about the backend, not a limit per key to replay: ratelab tune --goal %s --capacity N/s answers it", goal.Name, goal.Name)
	}
	// the configuration is read before the sweep: a file its product would
	// refuse stops the command at once
	conf, err := o.readConfig()
	if err != nil {
		return nil, "", nil, err
	}
	t, err := o.load(to, tune.LoadOptions{Budget: 64 << 20, Profiles: true}) // past 4 M requests, on disk
	if err != nil {
		return nil, "", nil, err
	}
	defer t.Close()
	var notes []string
	if conf != nil {
		notes = configNotes(conf, o.traceKey(t.Format.Format), int64(t.KeyCount))
	}
	bar := newProgressBar(stderr, "policies")
	rep, err := tune.Run(ctx, t, tune.Options{Points: tune.DefaultPoints, Goal: goal, Progress: bar.update, Holdout: -1})
	bar.done()
	if err != nil {
		return nil, "", nil, sweepError(err)
	}
	doc, err := traceScenario(o, to, rep, rep.Lanes(6), conf)
	if err != nil {
		return nil, "", nil, err
	}
	src := scenarios.Source{Name: "--trace " + o.file, Open: func(name string) (io.ReadCloser, error) { return os.Open(name) },
		Path: func(name string) string { return name }, Generated: true} // paths as given, relative to the working folder
	c, err := scenarios.Parse(src, []byte(doc))
	if err != nil {
		return nil, "", nil, usageError{err}
	}
	return c, c.Names()[0], notes, nil
}

// readConfig reads --config, of the product --config-format names or its
// content tells; nil without --config. A file the product would refuse is a
// usage error naming its file:line and the fix.
func (o *traceOptions) readConfig() (*products.Config, error) {
	if o.config == "" {
		if o.configFormat != "" {
			return nil, usagef("--config-format says the product of --config FILE; give --config too")
		}
		return nil, nil
	}
	var opts products.Options
	if o.configFormat != "" {
		p, err := all.Products.Lookup(o.configFormat)
		if err != nil {
			return nil, usagef("--config-format: %v", err)
		}
		opts.Product = p
	} else if data, err := products.ReadLimited(o.config); err == nil {
		if _, ok := all.Products.Detect(data); !ok {
			return nil, usagef("--config %s: %s; give --config-format %s", o.config, all.Products.NotDetected(), strings.Join(all.Products.Names(), " or "))
		}
	}
	cfg, err := all.Products.ReadFile(o.config, opts)
	if err != nil {
		if _, ok := errors.AsType[*products.Error](err); ok {
			return nil, usagef("--config %v", err)
		}
		return nil, usagef("--config: %v", err)
	}
	if len(cfg.Lanes) == 0 {
		why := ""
		if len(cfg.Warnings) > 0 {
			why = "; " + cfg.Warnings[0].String()
		}
		return nil, usagef("--config %s: its %s configuration limits no request (it has no %s)%s", o.config, cfg.Product, cfg.Product.Limiting, why)
	}
	if lanes, notes := cfg.Ratelab(""); len(lanes) == 0 && len(notes) > 0 {
		return nil, usagef("--config %s: ratelab can run none of its limits: %s", o.config, notes[0])
	}
	return cfg, nil
}

// traceKey is what the replayed requests are keyed by: --key, or ip for a
// Common/Combined Log ("" for another format without --key: its key field).
func (o *traceOptions) traceKey(f traces.Format) string {
	switch {
	case o.key != "":
		return o.key
	case f == traces.FormatCLF:
		return "ip"
	}
	return ""
}

// configNotes are what a configuration does that its lanes do not model, how
// its keys differ from the trace's, and the zones or tables too small for the
// trace's keys (of 32 bytes, where the key's length is not fixed), each
// "file:line: …".
func configNotes(cfg *products.Config, traceKey string, keys int64) []string {
	_, mapped := cfg.Ratelab(traceKey)
	mapped = append(mapped, cfg.KeyWarnings(keys, 32)...)
	var notes []string
	for _, w := range append(cfg.Warnings, mapped...) {
		notes = append(notes, w.String())
	}
	if n := len(cfg.Lanes); n > 1 {
		notes = append(notes, fmt.Sprintf("%s: its %d lanes each replay the whole log: which location or frontend a request reaches is not modelled, so read each lane as that limit on all of the traffic", cfg.File, n))
	}
	return notes
}

// traceScenario is the scenario file for the trace and the chosen lanes (the
// first, the recommended policy, named "recommended: …" so that a script finds
// it in run's CSV and JSON), and the configuration's.
func traceScenario(o traceOptions, to traces.Options, rep *tune.Report, lanes []tune.Limits, conf *products.Config) (string, error) {
	t := rep.Trace
	first := lanes[0]
	limit := func(p tune.Policy, name, key string) scenarios.TraceLimit {
		return scenarios.TraceLimit{Name: name, Algorithm: p.Algorithm, Policy: algorithms.Policy{Limit: p.Limit, Period: p.Period, Burst: p.Burst}, Key: key}
	}
	r := scenarios.TraceReplay{
		Title: fmt.Sprintf("%s: the recommended limit and its neighbours", printable.Name(filepath.Base(o.file))),
		// escaped: the log's file and keys may hold what a terminal acts on
		Lesson:    printable.Name(rep.Advice() + " The first lane, named \"recommended: …\", is that policy; the others are the best of each period and its neighbours in the grid (" + o.tuneCommand() + " shows it all)."),
		Seed:      o.seed,
		WatchKey:  t.Keys[rep.Classes.Heaviest],
		HeavyKeys: heavyKeys(rep),
		Policy:    limit(first.Policy, "", ""),
		Log:       o.replayLog(to, t),
	}
	if c := rep.Classes; !c.Heavy[c.Median] { // a log of a few keys may have no ordinary one of median volume
		r.TypicalKey = t.Keys[c.Median]
	}
	for i, l := range lanes {
		name := laneName(l.Policy)
		if l.Layered() {
			name += " + " + laneName(l.Long)
		}
		if i == 0 && rep.Best >= 0 {
			name = sim.Recommended + ": " + name
		} else if i == 0 { // nothing met the goal: the closest
			name = sim.Recommended + " (closest to the goal): " + name
		}
		lane := scenarios.TraceLane{Name: name, Limits: []scenarios.TraceLimit{limit(l.Policy, "", "")}}
		if l.Layered() { // both limits, all or nothing, each on its own key
			lane.Limits = []scenarios.TraceLimit{limit(l.Policy, format.LimitRate(l.Limit, l.Period), "short:{key}"), limit(l.Long, format.LimitRate(l.Long.Limit, l.Long.Period), "long:{key}")}
		}
		r.Lanes = append(r.Lanes, lane)
	}
	if conf != nil {
		// the configuration's lanes, named after their contexts (the scenario
		// compiler reads the file again, as a scenario file's config_file)
		r.Product, r.ConfigFile = string(conf.Product.Name), conf.File
	}
	text, err := r.Text()
	return string(text), err
}

// replayLog is the log t, read with to, as a trace replay reads it again:
// the same file, format, key, fields, spread and exclusions.
func (o traceOptions) replayLog(to traces.Options, t *tune.Trace) scenarios.TraceLog {
	l := scenarios.TraceLog{File: o.file, Format: t.Format.Format, ReorderWindow: to.ReorderWindow, Key: o.key, TimeField: o.timeField,
		CostField: o.costField, Spread: to.Spread == traces.SpreadUniform}
	if o.timeFormat != "auto" {
		l.TimeFormat = o.timeFormat
	}
	for _, e := range to.Exclude {
		l.Exclude = append(l.Exclude, e.String())
	}
	return l
}

// heavyKeys are the names of the keys the sweep classed as heavy hitters, in
// the trace's order.
func heavyKeys(rep *tune.Report) []string {
	var keys []string
	for k, heavy := range rep.Classes.Heavy {
		if heavy {
			keys = append(keys, rep.Trace.Keys[k])
		}
	}
	return keys
}

// laneName is "token-bucket 5/s burst 20", "fixed-window 300/h".
func laneName(p tune.Policy) string {
	name := fmt.Sprintf("%s %s", p.Algorithm, format.LimitRate(p.Limit, p.Period))
	if info, _ := algorithms.Lookup(p.Algorithm); p.Burst != p.Limit || info.HasBurst() {
		name += fmt.Sprintf(" burst %d", p.Burst)
	}
	return name
}
