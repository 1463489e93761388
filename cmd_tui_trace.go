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
	t, err := o.load(to, 1<<30)
	if err != nil {
		return nil, "", err
	}
	topt := tuneOptions{period: time.Second, points: 6, goal: tune.DefaultGoal.String()}
	g, goal, err := topt.grid(t)
	if err != nil {
		return nil, "", err
	}
	bar := newProgressBar(stderr, "policies")
	results, err := tune.Sweep(ctx, t, g.Policies(t.MaxRequestCost()), 0, bar.update)
	bar.done()
	if err != nil {
		return nil, "", usageError{err}
	}
	rep := tune.NewReport(t, results, goal)
	best := rep.Best
	if best < 0 {
		best = rep.Closest()
	}
	lanes := append([]int{best}, tune.Neighbours(results, best, 5)...)
	doc := traceScenario(o, to, rep, lanes)
	src := scenarios.Source{Name: "--trace " + o.file, Open: func(name string) (io.ReadCloser, error) { return os.Open(name) }}
	c, err := scenarios.Parse(src, []byte(doc))
	if err != nil {
		return nil, "", usageError{err}
	}
	return c, c.Names()[0], nil
}

// traceScenario writes the scenario file for the trace and the chosen lanes.
func traceScenario(o traceOptions, to traces.Options, rep *tune.Report, lanes []int) string {
	t := rep.Trace
	first := rep.Results[lanes[0]]
	var b strings.Builder
	fmt.Fprintf(&b, "[[scenario]]\nname = \"trace\"\ntitle = %s\nlesson = %s\nseed = %d\nwatch_key = %s\n\n",
		tomlString(fmt.Sprintf("%s: the recommended limit and its neighbours", filepath.Base(o.file))),
		tomlString(rep.Why+" The first lane (marked *) is that policy; the others are its neighbours in the grid ("+o.tuneCommand()+" shows it all)."),
		o.seed, tomlString(t.Keys[rep.Classes.Heaviest]))
	fmt.Fprintf(&b, "[scenario.policy]\nlimit = %d\nperiod = %s\nburst = %d\n\n", first.Limit, tomlString(first.Period.String()), first.Burst)
	for i, l := range lanes {
		r := rep.Results[l]
		name := fmt.Sprintf("%s %s", r.Algorithm, format.LimitRate(r.Limit, r.Period))
		if info, _ := algorithms.Lookup(r.Algorithm); r.Burst != r.Limit || info.HasBurst() {
			name += fmt.Sprintf(" burst %d", r.Burst)
		}
		if i == 0 {
			name += " *"
		}
		fmt.Fprintf(&b, "[[scenario.lane]]\nname = %s\nalgorithm = %s\nlimit = %d\nperiod = %s\nburst = %d\n\n", tomlString(name), tomlString(string(r.Algorithm)), r.Limit, tomlString(r.Period.String()), r.Burst)
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
