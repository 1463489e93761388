package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"ratelab/algorithms"
	"ratelab/internal/format"
	"ratelab/products"
	"ratelab/products/all"
	"ratelab/scenarios"
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
	// the configuration is read before the sweep: a file its product would
	// refuse stops the command at once
	conf, err := o.readConfig()
	if err != nil {
		return nil, "", nil, err
	}
	t, err := o.load(to, tune.LoadOptions{Budget: 64 << 20}) // past 4 M requests, on disk
	if err != nil {
		return nil, "", nil, err
	}
	defer t.Close()
	var notes []string
	if conf != nil {
		notes = configNotes(conf, o.traceKey(t.Format.Format), int64(t.KeyCount))
	}
	bar := newProgressBar(stderr, "policies")
	rep, err := tune.Run(ctx, t, tune.Options{Points: tune.DefaultPoints, Goal: tune.DefaultGoal, Progress: bar.update})
	bar.done()
	if err != nil {
		return nil, "", nil, sweepError(err)
	}
	doc := traceScenario(o, to, rep, rep.Lanes(6), conf)
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

// traceScenario writes the scenario file for the trace and the chosen lanes.
func traceScenario(o traceOptions, to traces.Options, rep *tune.Report, lanes []tune.Limits, conf *products.Config) string {
	t := rep.Trace
	first := lanes[0]
	var b strings.Builder
	fmt.Fprintf(&b, "[[scenario]]\nname = \"trace\"\ntitle = %s\nlesson = %s\nseed = %d\nwatch_key = %s\n\n",
		tomlString(fmt.Sprintf("%s: the recommended limit and its neighbours", filepath.Base(o.file))),
		tomlString(rep.Advice()+" The first lane (marked *) is that policy; the others are the best of each period and its neighbours in the grid ("+o.tuneCommand()+" shows it all)."),
		o.seed, tomlString(t.Keys[rep.Classes.Heaviest]))
	fmt.Fprintf(&b, "[scenario.policy]\nlimit = %d\nperiod = %s\nburst = %d\n\n", first.Limit, tomlString(first.Period.String()), first.Burst)
	for i, r := range lanes {
		name := laneName(r.Policy)
		if r.Layered() {
			name += " + " + laneName(r.Long)
		}
		if i == 0 {
			name += " *"
		}
		if !r.Layered() {
			fmt.Fprintf(&b, "[[scenario.lane]]\nname = %s\nalgorithm = %s\nlimit = %d\nperiod = %s\nburst = %d\n\n", tomlString(name), tomlString(string(r.Algorithm)), r.Limit, tomlString(r.Period.String()), r.Burst)
			continue
		}
		// a layered pair: both limits, all or nothing, each on its own key
		fmt.Fprintf(&b, "[[scenario.lane]]\nname = %s\ncombine = \"all-or-nothing\"\n\n", tomlString(name))
		for j, p := range []tune.Policy{r.Policy, r.Long} {
			fmt.Fprintf(&b, "[[scenario.lane.limits]]\nname = %s\nalgorithm = %s\nlimit = %d\nperiod = %s\nburst = %d\nkey = %s\n\n",
				tomlString(format.LimitRate(p.Limit, p.Period)), tomlString(string(p.Algorithm)), p.Limit, tomlString(p.Period.String()), p.Burst, tomlString([]string{"short", "long"}[j]+":{key}"))
		}
	}
	if conf != nil {
		// the configuration's lanes, named after their contexts (the
		// scenario compiler reads the file again, as a scenario file's
		// config_file)
		fmt.Fprintf(&b, "[[scenario.lane]]\nproduct = %s\nconfig_file = %s\n\n", tomlString(conf.Product.String()), tomlString(conf.File))
	}
	fmt.Fprintf(&b, "[[scenario.client]]\nname = \"log\"\npattern = \"trace\"\nfile = %s\nformat = %s\nreorder_window = %s\n", tomlString(o.file), tomlString(t.Format.Format.String()), tomlString(to.ReorderWindow.String()))
	if o.key != "" {
		fmt.Fprintf(&b, "key = %s\n", tomlString(o.key))
	}
	if o.timeField != "" {
		fmt.Fprintf(&b, "time_field = %s\n", tomlString(o.timeField))
	}
	if o.timeFormat != "" && o.timeFormat != "auto" {
		fmt.Fprintf(&b, "time_format = %s\n", tomlString(o.timeFormat))
	}
	if o.costField != "" {
		fmt.Fprintf(&b, "cost_field = %s\n", tomlString(o.costField))
	}
	if to.Spread == traces.SpreadUniform {
		b.WriteString("spread = \"uniform\"\n")
	}
	return b.String()
}

// laneName is "token-bucket 5/s burst 20", "fixed-window 300/h".
func laneName(p tune.Policy) string {
	name := fmt.Sprintf("%s %s", p.Algorithm, format.LimitRate(p.Limit, p.Period))
	if info, _ := algorithms.Lookup(p.Algorithm); p.Burst != p.Limit || info.HasBurst() {
		name += fmt.Sprintf(" burst %d", p.Burst)
	}
	return name
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
