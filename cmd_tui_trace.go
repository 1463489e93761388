package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"ratelab/algorithms"
	"ratelab/present/format"
	"ratelab/scenarios"
	"ratelab/traces"
	"ratelab/tune"
)

// traceCatalogue sweeps the trace as ratelab tune does (the default grid and
// goal) and returns a catalogue of one scenario that replays it through the
// recommended policy (or, when none meets the goal, the closest) and its
// neighbours in the grid, one lane each.
func traceCatalogue(ctx context.Context, o traceOptions, stderr io.Writer) (*scenarios.Catalogue, string, error) {
	to, err := o.options("tui")
	if err != nil {
		return nil, "", err
	}
	t, err := o.load(to, tune.LoadOptions{Budget: 64 << 20}) // past 4 M requests, on disk
	if err != nil {
		return nil, "", err
	}
	defer t.Close()
	bar := newProgressBar(stderr, "policies")
	rep, err := tune.Run(ctx, t, tune.Options{Points: tune.DefaultPoints, Goal: tune.DefaultGoal, Progress: bar.update})
	bar.done()
	if err != nil {
		return nil, "", usageError{err}
	}
	doc := traceScenario(o, to, rep, rep.Lanes(6))
	src := scenarios.Source{Name: "--trace " + o.file, Open: func(name string) (io.ReadCloser, error) { return os.Open(name) }}
	c, err := scenarios.Parse(src, []byte(doc))
	if err != nil {
		return nil, "", usageError{err}
	}
	return c, c.Names()[0], nil
}

// traceScenario writes the scenario file for the trace and the chosen lanes.
func traceScenario(o traceOptions, to traces.Options, rep *tune.Report, lanes []tune.Limits) string {
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
