package main

import (
	"fmt"
	"slices"
	"strings"

	"ratelab/algorithms"
	"ratelab/internal/format"
	"ratelab/internal/printable"
	"ratelab/products"
	"ratelab/products/all"
	"ratelab/tune"
)

// target is a product tune --target writes a configuration for: its Target
// (products.Target) says what it sweeps and writes; here are the checks of
// the flags and of a partial sweep against it.
type target struct{ *products.Info }

// targetNames are the products tune --target writes a configuration for, in
// the order --help lists them.
func targetNames() []string {
	var names []string
	for _, p := range all.Products {
		if p.Target != nil {
			names = append(names, p.String())
		}
	}
	return names
}

// targetFor is the target named name (a product's name, any case), or a
// usage error naming those there are.
func targetFor(name string) (target, error) {
	p, err := all.Products.Lookup(name)
	if err == nil {
		if p.Target != nil {
			return target{p}, nil
		}
		err = fmt.Errorf("tune writes a configuration for %s only; use one of them", strings.Join(targetNames(), ", "))
	}
	return target{}, usagef("--target: %v", err)
}

// sweep sets what to sweeps for t, and refuses the periods, rates and bursts
// given that the product cannot write, naming the flag and the fix.
func (t target) sweep(to *tune.Options, periodFlag string) error {
	w := t.Target
	to.Algorithms, to.Single, to.Variants = []algorithms.Name{t.Name}, true, t.variants()
	if to.Periods == nil {
		to.Periods = w.Periods
	}
	for _, d := range to.Periods {
		if !w.Period(d) {
			return usagef("%s: %s cannot write a limit per %s: it writes %s; give %s from those", periodFlag, t, d, w.Writable, periodFlag)
		}
	}
	switch {
	case to.Rate != nil && to.Rate.Max > w.MaxLimit:
		return usagef("--rate: %s holds a limit of at most %d (got %s); lower its MAX", t, w.MaxLimit, to.Rate)
	case to.Burst != nil && w.MaxBurst == 0:
		return usagef("--burst: %s has no burst (it counts a limit per period); drop --burst", t)
	case to.Burst != nil && to.Burst.Max > w.MaxBurst:
		return usagef("--burst: %s holds a burst of at most %d (got %s); lower its MAX", t, w.MaxBurst, to.Burst)
	}
	return nil
}

// swept checks that a partial sweep for t (tune merge reads it from a file)
// swept what t sweeps: its lane with its knobs, over periods it writes, rates
// and bursts its fields hold; the snippet is written from that alone.
func (t target) swept(p *tune.Partial) error {
	w := t.Target
	for i, g := range p.Grids {
		f := fmt.Sprintf("Grids[%d]", i)
		switch {
		case !slices.Equal(g.Algorithms, []algorithms.Name{t.Name}):
			return fmt.Errorf("%s.Algorithms is %v, but --target %s sweeps %s alone", f, g.Algorithms, t, t.Name)
		case !slices.Equal(g.Variants, t.variants()):
			return fmt.Errorf("%s.Variants are not the knobs --target %s sweeps", f, t)
		case !w.Period(g.Period):
			return fmt.Errorf("%s.Period is %s: %s cannot write a limit per %s", f, g.Period, t, g.Period)
		case g.Rates[len(g.Rates)-1] > w.MaxLimit:
			return fmt.Errorf("%s.Rates go up to %d: %s holds a limit of at most %d", f, g.Rates[len(g.Rates)-1], t, w.MaxLimit)
		case w.MaxBurst > 0 && g.Bursts[len(g.Bursts)-1] > w.MaxBurst:
			return fmt.Errorf("%s.Bursts go up to %d: %s holds a burst of at most %d", f, g.Bursts[len(g.Bursts)-1], t, w.MaxBurst)
		}
	}
	return nil
}

// variants are the knobs t sweeps, as tune's grid takes them.
func (t target) variants() []tune.Variant {
	var vs []tune.Variant
	for _, v := range t.Target.Variants {
		vs = append(vs, tune.Variant(v))
	}
	return vs
}

// countsRequests says the product counts requests, not their cost (nginx,
// HAProxy, Kong…: algorithms.Info.CountsRequests), so its sweep reads no cost.
func (t target) countsRequests() bool {
	info, _ := algorithms.Lookup(t.Name)
	return info.CountsRequests
}

// snippet is tune --target's recommendation in the product's own syntax, to
// paste (the product's Target writes it), and what it does to the trace: who
// is refused, who is delayed and by how much. traceKey is what the trace's
// keys are ("ip"…).
func (t target) snippet(rep *tune.Report, traceKey string) string {
	var b strings.Builder
	best := rep.Best
	lead := "The recommendation"
	if best < 0 {
		best, lead = rep.Closest(), "No policy meets the goal; the closest"
	}
	if best < 0 {
		return "No policy was swept: nothing to paste.\n"
	}
	res := rep.Results[best]
	if traceKey == "" {
		traceKey = "key" // a CSV's or JSON Lines' key field (a log's is ip: traceKey says so)
	}
	p := t.Info
	p.Target.Write(&b, products.Snippet{Lead: lead, Words: res.Policy.String(), Policy: algorithms.Policy{Limit: res.Limit, Period: res.Period, Burst: res.Burst},
		Options: res.Policy.Options(), Keys: int64(rep.Trace.KeyCount), TraceKey: traceKey, Product: p})
	if n := anonymous(rep.Trace); n > 0 {
		fmt.Fprintf(&b, "\n(The log's %s \"-\", no %s, sent %d of its %d requests and was swept as one client; %s does not limit a request whose key is empty or missing, so those pass unlimited there, and the figures below overstate what it refuses.)\n",
			traceKey, traceKey, n, rep.Trace.Count, p)
	}
	if rep.Goal.Name == tune.GoalBound {
		fmt.Fprintf(&b, "\nOn %s it refuses %s of the requests: the ordinary keys' %s, the median key's %s, the heavy hitters' %s; the heaviest key gets %s of the %s it sent.",
			printable.String(rep.Trace.Name), tune.Percent(res.DeniedShare), tune.Percent(res.OrdinaryDenied), tune.Percent(res.MedianKeyDenied),
			tune.Percent(1-res.HeavyAdmitted), format.Rate(res.HeaviestAdmitted), format.Rate(res.HeaviestOffered))
	} else { // whom it refuses, by kind, is the answer's table
		fmt.Fprintf(&b, "\nOn %s it refuses %s of the requests.", printable.String(rep.Trace.Name), tune.Percent(res.DeniedShare))
	}
	if res.Delayed > 0 {
		fmt.Fprintf(&b, " It delays %s of them (the ordinary keys' %s, the heavy hitters' %s), by %s at the median and %s at the 99th percentile: %s holds each until its turn.",
			tune.Percent(res.DelayedShare), tune.Percent(res.OrdinaryDelayed), tune.Percent(res.HeavyDelayed), format.Duration(res.DelayP50), format.Duration(res.DelayP99), p)
	} else if p.Target.Delays {
		b.WriteString(" It delays none.")
	}
	b.WriteString("\n")
	return b.String()
}

// anonymous is how many requests of t came from the key "-", a Common Log's
// empty user or ident (or a CSV's placeholder), which the products take as no
// key at all: nginx does not account an empty key, HAProxy tracks no missing
// sample, Envoy makes no descriptor without its header.
func anonymous(t *tune.Trace) int64 {
	for i, k := range t.Keys {
		if k == "-" {
			return t.Volume[i]
		}
	}
	return 0
}
