package products

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"ratelab/internal/format"
	"ratelab/internal/printable"
	"ratelab/tune"
)

// Target is what ratelab tune --target writes for a product: its lane
// (Info.Name) swept with the knobs the product writes beside the rate and the
// burst, over the periods it writes, one limit at a time (a layered pair would
// be two limit_req, two rules or two plugins, whose counting differs from a
// pair's), and the snippet that writes the recommendation in its syntax.
type Target struct {
	// Variants are the knobs swept with each policy; none: the lane's
	// defaults.
	Variants []tune.Variant
	// Periods are those swept when --periods gives none; nil: tune's own
	// (1s, 1m, 1h, and 1d for a log of more than three days).
	Periods []time.Duration
	// Writable names the periods the product writes ("rate=Nr/s or
	// rate=Nr/m (1s, 1m)"), and Period says whether it writes d.
	Writable string
	Period   func(d time.Duration) bool
	// MaxLimit and MaxBurst are the largest rate and burst its fields hold;
	// MaxBurst 0: it has no burst (a window), and --burst is refused.
	MaxLimit, MaxBurst int64
	// Delays says the product can hold a request rather than refuse it: the
	// snippet then says when the recommendation delays none.
	Delays bool
	// Write writes the recommendation's lines, with what they are and where
	// they go, and notes the key when the product has none for the log's.
	Write func(b *strings.Builder, s Snippet)
}

// Snippet is what a Target's Write is given: the recommended policy, the
// sentence it opens with, the log's keys (how many, and what they are).
type Snippet struct {
	Lead     string
	Result   tune.Result
	Keys     int64
	TraceKey string
	Product  *Info
}

// Heading writes the snippet's opening: "The recommendation, POLICY, as
// PRODUCT writes it (why) WHERE:".
func (s Snippet) Heading(b *strings.Builder, why, where string) {
	fmt.Fprintf(b, "%s, %s, as %s writes it (%s). %s:\n\n", s.Lead, s.Result.Policy, s.Product, why, where)
}

// NoKey writes the note for a log's key the product has no way to key by.
func (s Snippet) NoKey(b *strings.Builder, ok bool, placeholder, what string) {
	if !ok {
		fmt.Fprintf(b, "\n(%s has no %s for the log's %s: write for %s the one that carries it.)\n", s.Product, what, s.TraceKey, placeholder)
	}
}

// Lines writes lines indented, one a line.
func Lines(b *strings.Builder, ls []string) {
	for _, l := range ls {
		fmt.Fprintf(b, "    %s\n", l)
	}
}

// EveryPeriod says every period is one the product writes.
func EveryPeriod(time.Duration) bool { return true }

// OneOf says d is one of ds.
func OneOf(ds ...time.Duration) func(time.Duration) bool {
	return func(d time.Duration) bool { return slices.Contains(ds, d) }
}

// Recommendation is tune --target's recommendation in the product's own
// syntax, to paste, and what it does to the trace: who is refused, who is
// delayed and by how much. traceKey is what the trace's keys are ("ip"…).
func (p *Info) Recommendation(rep *tune.Report, traceKey string) string {
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
	p.Target.Write(&b, Snippet{Lead: lead, Result: res, Keys: int64(rep.Trace.KeyCount), TraceKey: traceKey, Product: p})
	if n := anonymous(rep.Trace); n > 0 {
		fmt.Fprintf(&b, "\n(The log's %s \"-\", no %s, sent %d of its %d requests and was swept as one client; %s does not limit a request whose key is empty or missing, so those pass unlimited there, and the figures below overstate what it refuses.)\n",
			traceKey, traceKey, n, rep.Trace.Count, p)
	}
	fmt.Fprintf(&b, "\nOn %s it refuses %s of the requests: the ordinary keys' %s, the median key's %s, the heavy hitters' %s; the heaviest key gets %s of the %s it sent.",
		printable.String(rep.Trace.Name), tune.Percent(res.DeniedShare), tune.Percent(res.OrdinaryDenied), tune.Percent(res.MedianKeyDenied),
		tune.Percent(1-res.HeavyAdmitted), format.Rate(res.HeaviestAdmitted), format.Rate(res.HeaviestOffered))
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
