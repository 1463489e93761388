package main

import (
	"fmt"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/present/format"
	"ratelab/products"
	"ratelab/tune"
)

// targetSweep is what tune --target sweeps for a product: its lane, with the
// knobs it writes (nginx: nodelay, every excess request delayed, delay=N at
// half the burst; HAProxy: the track-sc0 rule before the deny or after it),
// over the periods it writes (nginx: rate=Nr/s and Nr/m; HAProxy's
// http_req_rate(<period>): 1s to 1h), one limit at a time (a layered pair
// would be two limit_req or two rules, whose counting differs from a pair's).
func targetSweep(p products.Product) (algs []algorithms.Name, single bool, variants []tune.Variant, periods []time.Duration) {
	switch p {
	case products.Nginx:
		return []algorithms.Name{algorithms.NginxName}, true,
			[]tune.Variant{{Nodelay: true}, {}, {DelayHalf: true}},
			[]time.Duration{time.Second, time.Minute}
	}
	return []algorithms.Name{algorithms.HAProxyName}, true,
		[]tune.Variant{{TrackSC: algorithms.TrackBeforeDeny}, {TrackSC: algorithms.TrackAfterDeny}},
		[]time.Duration{time.Second, 10 * time.Second, time.Minute, 10 * time.Minute, time.Hour}
}

// targetSnippet is tune --target's recommendation in the product's own
// syntax, to paste, and what it does to the trace: who is refused, who is
// delayed and by how much. traceKey is what the trace's keys are ("ip"…).
func targetSnippet(p products.Product, rep *tune.Report, traceKey string) string {
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
	keys := int64(rep.Trace.KeyCount)
	if traceKey == "" {
		traceKey = "ip"
	}
	switch p {
	case products.Nginx:
		key, ok := products.NginxKeyFor(traceKey)
		keyBytes := 32
		if !ok {
			key = "$KEY"
		} else if key == "$binary_remote_addr" {
			keyBytes = 4
		}
		lim := products.NginxLimit{Zone: "ratelab", Rate: res.Limit, Per: res.Period, Burst: res.Burst - 1,
			NoDelay: res.Knobs.Nodelay, Delay: res.Knobs.Delay, Status: 429}
		zone, lines := products.NginxDirectives(lim, key, products.NginxZoneSize(keys, keyBytes))
		fmt.Fprintf(&b, "%s, %s, as %s writes it (limit_req_status 429 for Too Many Requests; %s answers 503 unless told). In http { }:\n\n    %s\n\nand in the server or location that limits:\n\n",
			lead, res.Policy, p, p, zone)
		for _, l := range lines {
			fmt.Fprintf(&b, "    %s\n", l)
		}
		if !ok {
			fmt.Fprintf(&b, "\n(%s has no variable for the log's %s: write for $KEY the variable that carries it.)\n", p, traceKey)
		}
	case products.HAProxy:
		key, ok := products.HAProxyKeyFor(traceKey)
		if !ok {
			key = "KEY"
		}
		lim := products.HAProxyLimit{Table: "ratelab_limit", Period: res.Period, Expire: 3 * res.Period, Op: "gt", Threshold: res.Limit, Counted: true, Status: 429}
		if res.Knobs.TrackSC == algorithms.TrackAfterDeny {
			lim.Op, lim.Counted = "ge", false
		}
		backend, frontend := products.HAProxyLines(lim, key, products.HAProxyTableSize(keys))
		fmt.Fprintf(&b, "%s, %s, as %s writes it (an expire of three periods changes no decision: the rate reads 0 after two idle ones). A backend for the table:\n\n", lead, res.Policy, p)
		for _, l := range backend {
			fmt.Fprintf(&b, "    %s\n", l)
		}
		fmt.Fprintf(&b, "\nand in the frontend, in this order:\n\n")
		for _, l := range frontend {
			fmt.Fprintf(&b, "    %s\n", l)
		}
		if !ok {
			fmt.Fprintf(&b, "\n(%s has no fetch for the log's %s: write for KEY the sample that carries it.)\n", p, traceKey)
		}
	}
	fmt.Fprintf(&b, "\nOn %s it refuses %s of the requests: the ordinary keys' %s, the median key's %s, the heavy hitters' %s; the heaviest key gets %s of the %s it sent.",
		rep.Trace.Name, tune.Percent(res.DeniedShare), tune.Percent(res.OrdinaryDenied), tune.Percent(res.MedianKeyDenied),
		tune.Percent(1-res.HeavyAdmitted), format.Rate(res.HeaviestAdmitted), format.Rate(res.HeaviestOffered))
	if res.Delayed > 0 {
		fmt.Fprintf(&b, " It delays %s of them (the ordinary keys' %s, the heavy hitters' %s), by %s at the median and %s at the 99th percentile: %s holds each until its turn.",
			tune.Percent(res.DelayedShare), tune.Percent(res.OrdinaryDelayed), tune.Percent(res.HeavyDelayed), format.Duration(res.DelayP50), format.Duration(res.DelayP99), p)
	} else if p == products.Nginx {
		b.WriteString(" It delays none.")
	}
	b.WriteString("\n")
	return b.String()
}
