package main

import (
	"fmt"
	"slices"
	"strings"

	"ratelab/algorithms"
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
	to.Algorithms, to.Single, to.Variants = []algorithms.Name{t.Name}, true, w.Variants
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
		case !slices.Equal(g.Variants, w.Variants):
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

// countsRequests says the product counts requests, not their cost (nginx,
// HAProxy, Kong…: algorithms.Info.CountsRequests), so its sweep reads no cost.
func (t target) countsRequests() bool {
	info, _ := algorithms.Lookup(t.Name)
	return info.CountsRequests
}
