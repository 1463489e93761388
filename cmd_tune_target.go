package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/format"
	"ratelab/internal/printable"
	"ratelab/products"
	"ratelab/products/all"
	"ratelab/tune"
)

// target is a product tune --target writes a configuration for: the lane it
// sweeps, with the knobs the product writes beside the rate and the burst,
// over the periods it writes, one limit at a time (a layered pair would be
// two limit_req, two rules or two plugins, whose counting differs from a
// pair's), and the snippet that writes the recommendation in its syntax.
// Adding a product is adding an entry to targets.
type target struct {
	product *products.Info
	// lane is the product's lane (algorithms), the one swept.
	lane algorithms.Name
	// variants are the knobs swept with each policy; none: the lane's defaults.
	variants []tune.Variant
	// periods are those swept when --periods gives none; nil: tune's own
	// (1s, 1m, 1h, and 1d for a log of more than three days).
	periods []time.Duration
	// writable names the periods the product writes ("rate=Nr/s or
	// rate=Nr/m (1s, 1m)"), and period says whether it writes d.
	writable string
	period   func(d time.Duration) bool
	// maxLimit and maxBurst are the largest rate and burst its fields hold;
	// maxBurst 0: it has no burst (a window), and --burst is refused.
	maxLimit, maxBurst int64
	// delays says the product can hold a request rather than refuse it: the
	// snippet then says when the recommendation delays none.
	delays bool
	// write writes the recommendation's lines, with what they are and where
	// they go, and notes the key when the product has none for the log's.
	write func(b *strings.Builder, s snippet)
}

// snippet is what a target's write is given: the recommended policy, the
// sentence it opens with, the log's keys (how many, and what they are).
type snippet struct {
	lead     string
	res      tune.Result
	keys     int64
	traceKey string
	product  *products.Info
}

// heading writes the snippet's opening: "The recommendation, POLICY, as
// PRODUCT writes it (why) WHERE:".
func (s snippet) heading(b *strings.Builder, why, where string) {
	fmt.Fprintf(b, "%s, %s, as %s writes it (%s). %s:\n\n", s.lead, s.res.Policy, s.product, why, where)
}

// lines writes lines indented, one a line.
func lines(b *strings.Builder, ls []string) {
	for _, l := range ls {
		fmt.Fprintf(b, "    %s\n", l)
	}
}

// noKey writes the note for a log's key the product has no way to key by.
func (s snippet) noKey(b *strings.Builder, ok bool, placeholder, what string) {
	if !ok {
		fmt.Fprintf(b, "\n(%s has no %s for the log's %s: write for %s the one that carries it.)\n", s.product, what, s.traceKey, placeholder)
	}
}

// every says every period is one the product writes.
func every(time.Duration) bool { return true }

// oneOf says d is one of ds.
func oneOf(ds ...time.Duration) func(time.Duration) bool {
	return func(d time.Duration) bool { return slices.Contains(ds, d) }
}

const day = 24 * time.Hour

// targets are the products tune --target writes a configuration for, in the
// order --help lists them.
var targets = []target{
	{product: products.Nginx, lane: algorithms.NginxName,
		variants: []tune.Variant{{Nodelay: true}, {}, {DelayHalf: true}},
		periods:  []time.Duration{time.Second, time.Minute}, writable: "rate=Nr/s or rate=Nr/m (1s, 1m)",
		period: oneOf(time.Second, time.Minute), maxLimit: math.MaxInt64, maxBurst: math.MaxInt64, delays: true,
		write: writeNginx},
	{product: products.HAProxy, lane: algorithms.HAProxyName,
		variants: []tune.Variant{{TrackSC: algorithms.TrackBeforeDeny}, {TrackSC: algorithms.TrackAfterDeny}},
		periods:  []time.Duration{time.Second, 10 * time.Second, time.Minute, 10 * time.Minute, time.Hour},
		writable: "http_req_rate(<period>) in whole milliseconds",
		period:   func(d time.Duration) bool { return d%time.Millisecond == 0 && d <= math.MaxInt32*time.Millisecond },
		maxLimit: math.MaxInt32, write: writeHAProxy},
	{product: products.EnvoyLocal, lane: algorithms.EnvoyLocalName,
		writable: "a fill_interval of 50ms or more, in whole milliseconds",
		period:   func(d time.Duration) bool { return d >= 50*time.Millisecond && d%time.Millisecond == 0 },
		maxLimit: math.MaxUint32, maxBurst: math.MaxUint32, write: writeEnvoyLocal},
	{product: products.EnvoyGlobal, lane: algorithms.EnvoyGlobalName,
		writable: "unit second, minute, hour or day (1s, 1m, 1h, 24h)",
		period:   oneOf(time.Second, time.Minute, time.Hour, day), maxLimit: math.MaxUint32, write: writeEnvoyGlobal},
	{product: products.Cloudflare, lane: algorithms.CloudflareName,
		variants: []tune.Variant{{}, {MitigationPeriods: 1}},
		periods:  []time.Duration{10 * time.Second, time.Minute, 10 * time.Minute, time.Hour},
		writable: "a period of 10s, 15s, 20s, 30s, 40s, 45s, 1m, 90s, 2m, 3m, 4m, 5m, 8m, 10m, 15m, 20m, 30m, 40m, 1h, 65535s or 24h (which ones depends on the plan: Free 10s only, Pro up to 1m, Business up to 10m)",
		period: func(d time.Duration) bool {
			return algorithms.CheckCloudflarePolicy(algorithms.Policy{Limit: 1, Period: d}, algorithms.Options{}) == nil
		},
		maxLimit: math.MaxInt32, write: writeCloudflare},
	{product: products.APIGateway, lane: algorithms.APIGatewayName,
		periods: []time.Duration{time.Second}, writable: "rateLimit, requests a second (1s)",
		period: oneOf(time.Second), maxLimit: 1e9, maxBurst: math.MaxInt32, write: writeAPIGateway},
	{product: products.Spring, lane: algorithms.SpringName,
		writable: "replenishRate tokens a second and requestedTokens a request: a whole number of seconds",
		period: func(d time.Duration) bool {
			return d >= time.Second && d%time.Second == 0 && d/time.Second <= math.MaxInt32
		},
		maxLimit: math.MaxInt32, maxBurst: products.SpringMaxBurstCapacity, write: writeSpring},
	{product: products.Traefik, lane: algorithms.TraefikName,
		writable: "a period in whole microseconds", period: every,
		maxLimit: math.MaxInt64 / int64(time.Second), maxBurst: math.MaxInt64, delays: true, write: writeTraefik},
	{product: products.Kong, lane: algorithms.KongName,
		writable: "second, minute, hour or day windows (1s, 1m, 1h, 24h)",
		period:   oneOf(time.Second, time.Minute, time.Hour, day), maxLimit: math.MaxInt64, write: writeKong},
}

// targetNames are the products tune --target writes a configuration for.
func targetNames() []string {
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.product.String()
	}
	return names
}

// targetFor is the target named name (a product's name, any case), or a
// usage error naming those there are.
func targetFor(name string) (target, error) {
	p, err := all.Products.Lookup(name)
	if err == nil {
		for _, t := range targets {
			if t.product == p {
				return t, nil
			}
		}
		err = fmt.Errorf("tune writes a configuration for %s only; use one of them", strings.Join(targetNames(), ", "))
	}
	return target{}, usagef("--target: %v", err)
}

// sweep sets what to sweeps for t, and refuses the periods, rates and bursts
// given that the product cannot write, naming the flag and the fix.
func (t target) sweep(to *tune.Options, periodFlag string) error {
	to.Algorithms, to.Single, to.Variants = []algorithms.Name{t.lane}, true, t.variants
	if to.Periods == nil {
		to.Periods = t.periods
	}
	for _, d := range to.Periods {
		if !t.period(d) {
			return usagef("%s: %s cannot write a limit per %s: it writes %s; give %s from those", periodFlag, t.product, d, t.writable, periodFlag)
		}
	}
	switch {
	case to.Rate != nil && to.Rate.Max > t.maxLimit:
		return usagef("--rate: %s holds a limit of at most %d (got %s); lower its MAX", t.product, t.maxLimit, to.Rate)
	case to.Burst != nil && t.maxBurst == 0:
		return usagef("--burst: %s has no burst (it counts a limit per period); drop --burst", t.product)
	case to.Burst != nil && to.Burst.Max > t.maxBurst:
		return usagef("--burst: %s holds a burst of at most %d (got %s); lower its MAX", t.product, t.maxBurst, to.Burst)
	}
	return nil
}

// swept checks that a partial sweep for t (tune merge reads it from a file)
// swept what t sweeps: its lane with its knobs, over periods it writes, rates
// and bursts its fields hold; the snippet is written from that alone.
func (t target) swept(p *tune.Partial) error {
	for i, g := range p.Grids {
		f := fmt.Sprintf("Grids[%d]", i)
		switch {
		case !slices.Equal(g.Algorithms, []algorithms.Name{t.lane}):
			return fmt.Errorf("%s.Algorithms is %v, but --target %s sweeps %s alone", f, g.Algorithms, t.product, t.lane)
		case !slices.Equal(g.Variants, t.variants):
			return fmt.Errorf("%s.Variants are not the knobs --target %s sweeps", f, t.product)
		case !t.period(g.Period):
			return fmt.Errorf("%s.Period is %s: %s cannot write a limit per %s", f, g.Period, t.product, g.Period)
		case g.Rates[len(g.Rates)-1] > t.maxLimit:
			return fmt.Errorf("%s.Rates go up to %d: %s holds a limit of at most %d", f, g.Rates[len(g.Rates)-1], t.product, t.maxLimit)
		case t.maxBurst > 0 && g.Bursts[len(g.Bursts)-1] > t.maxBurst:
			return fmt.Errorf("%s.Bursts go up to %d: %s holds a burst of at most %d", f, g.Bursts[len(g.Bursts)-1], t.product, t.maxBurst)
		}
	}
	return nil
}

// countsRequests says the product counts requests, not their cost (nginx,
// HAProxy, Kong…: algorithms.Info.CountsRequests), so its sweep reads no cost.
func (t target) countsRequests() bool {
	info, _ := algorithms.Lookup(t.lane)
	return info.CountsRequests
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

// targetSnippet is tune --target's recommendation in the product's own
// syntax, to paste, and what it does to the trace: who is refused, who is
// delayed and by how much. traceKey is what the trace's keys are ("ip"…).
func targetSnippet(t target, rep *tune.Report, traceKey string) string {
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
	t.write(&b, snippet{lead: lead, res: res, keys: int64(rep.Trace.KeyCount), traceKey: traceKey, product: t.product})
	p := t.product
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
	} else if t.delays {
		b.WriteString(" It delays none.")
	}
	b.WriteString("\n")
	return b.String()
}

// writeNginx: nginx's burst= is the policy's burst less one (the request
// served is not part of nginx's excess); the zone holds twice the log's keys.
func writeNginx(b *strings.Builder, s snippet) {
	p, res := s.product, s.res
	key, ok := products.NginxKeyFor(s.traceKey)
	keyBytes := 32
	if !ok {
		key = "$KEY"
	} else if key == "$binary_remote_addr" {
		keyBytes = 4
	}
	lim := products.NginxLimit{Zone: "ratelab", Rate: res.Limit, Per: res.Period, Burst: res.Burst - 1,
		NoDelay: res.Knobs.Nodelay, Delay: res.Knobs.Delay, Status: 429}
	zone, ctx := products.NginxDirectives(lim, key, products.NginxZoneSize(s.keys, keyBytes))
	fmt.Fprintf(b, "%s, %s, as %s writes it (limit_req_status 429 for Too Many Requests; %s answers 503 unless told). In http { }:\n\n    %s\n\nand in the server or location that limits:\n\n",
		s.lead, res.Policy, p, p, zone)
	lines(b, ctx)
	if !ok {
		fmt.Fprintf(b, "\n(%s has no variable for the log's %s: write for $KEY the variable that carries it.)\n", p, s.traceKey)
	}
}

// writeHAProxy: a backend for the stick table, an expire of three periods, and
// the frontend's two rules in the order the recommendation counts.
func writeHAProxy(b *strings.Builder, s snippet) {
	p, res := s.product, s.res
	key, ok := products.HAProxyKeyFor(s.traceKey)
	if !ok {
		key = "KEY"
	}
	lim := products.HAProxyLimit{Table: "ratelab_limit", Period: res.Period, Expire: 3 * res.Period, Op: "gt", Threshold: res.Limit, Counted: true, Status: 429}
	if res.Knobs.TrackSC == algorithms.TrackAfterDeny {
		lim.Op, lim.Counted = "ge", false
	}
	backend, frontend := products.HAProxyLines(lim, key, products.HAProxyTableSize(s.keys))
	fmt.Fprintf(b, "%s, %s, as %s writes it (an expire of three periods changes no decision: the rate reads 0 after two idle ones). A backend for the table:\n\n", s.lead, res.Policy, p)
	lines(b, backend)
	fmt.Fprintf(b, "\nand in the frontend, in this order:\n\n")
	lines(b, frontend)
	if !ok {
		fmt.Fprintf(b, "\n(%s has no fetch for the log's %s: write for KEY the sample that carries it.)\n", p, s.traceKey)
	}
}

// writeEnvoyLocal: a descriptor per client (max_dynamic_descriptors twice the
// log's keys), the default token_bucket for requests without one.
func writeEnvoyLocal(b *strings.Builder, s snippet) {
	res := s.res
	ls, ok := products.EnvoyLocalYAML(products.EnvoyLocalLimit{MaxTokens: res.Burst, TokensPerFill: res.Limit, FillInterval: res.Period},
		s.traceKey, min(max(2*s.keys, 20), math.MaxUint32))
	s.heading(b, "token_bucket: max_tokens the burst, tokens_per_fill the limit a fill_interval; a bucket per client from a descriptor whose entry has no value, made by the filter's rate_limits actions (an Envoy with max_dynamic_descriptors); max_dynamic_descriptors twice the log's keys",
		"In the HTTP connection manager's http_filters, before the router")
	lines(b, ls)
	s.noKey(b, ok, "KEY", "request field")
}

// writeEnvoyGlobal: the service's descriptors, and the actions for Envoy's
// route that send them.
func writeEnvoyGlobal(b *strings.Builder, s snippet) {
	res := s.res
	ls, actions, ok := products.EnvoyGlobalYAML(products.EnvoyGlobalLimit{Domain: "ratelab", Period: res.Period, RequestsPerUnit: res.Limit}, s.traceKey)
	s.heading(b, "requests_per_unit a unit; a descriptor with no value counts each of its values apart",
		"The rate limit service's configuration (envoyproxy/ratelimit)")
	lines(b, ls)
	fmt.Fprintf(b, "\nand on Envoy's route (or virtual host), with the ratelimit filter's domain: ratelab, the actions that send the descriptor: rate_limits: [{actions: [%s]}].\n",
		strings.Join(braced(actions), ", "))
	s.noKey(b, ok, "KEY", "request field")
}

// braced writes YAML mappings "a: b" in flow style, "{a: b}".
func braced(ms []string) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = "{" + m + "}"
	}
	return out
}

// writeCloudflare: the rule's ratelimit, with its mitigation_timeout (0:
// throttle).
func writeCloudflare(b *strings.Builder, s snippet) {
	res := s.res
	ls, ok := products.CloudflareJSON(products.CloudflareLimit{Rule: "ratelab", Period: res.Period, RequestsPerPeriod: res.Limit,
		MitigationTimeout: res.Knobs.MitigationTimeout, Status: 429}, s.traceKey)
	why := "mitigation_timeout 0 blocks only the requests over the rate, which needs the Enterprise plan for block; a timeout blocks every request of the key for that long"
	s.heading(b, why, "A rule of the zone's http_ratelimit phase (Rulesets API)")
	lines(b, ls)
	s.noKey(b, ok, "KEY", "characteristic")
}

// writeAPIGateway: a usage plan's throttle, per API key.
func writeAPIGateway(b *strings.Builder, s snippet) {
	res := s.res
	ls := products.APIGatewayJSON(products.APIGatewayLimit{RateMilli: res.Limit * 1000, Burst: res.Burst}, "ratelab")
	s.heading(b, "rateLimit requests a second, burstLimit the bucket; a usage plan holds each API key to it, so each client needs a key (a stage's throttle would hold every client together)",
		"A usage plan (aws apigateway create-usage-plan --cli-input-json)")
	lines(b, ls)
	if k := strings.TrimSpace(s.traceKey); k != "user" && k != "key" {
		// a usage plan keys by API key, which a client holds: a user is one, a
		// field of the request (path, method, an address) is not
		fmt.Fprintf(b, "\n(%s keys a usage plan by API key, which each client holds; the log's %s is not one: issue a key per %s, or limit by the client that holds the key.)\n", s.product, k, k)
	}
}

// writeSpring: replenishRate the limit, requestedTokens the period's seconds
// (Spring's rate is whole tokens a second), burstCapacity the burst's tokens.
func writeSpring(b *strings.Builder, s snippet) {
	res := s.res
	k := int64(res.Period / time.Second)
	ls, ok := products.SpringYAML(products.SpringLimit{Route: "ratelab", ReplenishRate: res.Limit, BurstCapacity: res.Burst * k, RequestedTokens: k}, s.traceKey)
	why := fmt.Sprintf("replenishRate tokens a second, requestedTokens %d a request: replenishRate requests every %d s; burstCapacity the burst's requests × %d", k, k, k)
	if strings.TrimSpace(s.traceKey) == "ip" {
		why += "; remoteAddrKeyResolver is a KeyResolver bean: exchange -> Mono.just(exchange.getRequest().getRemoteAddress().getAddress().getHostAddress())"
	}
	s.heading(b, why, "In application.yml (before Spring Cloud Gateway 4.3, under spring.cloud.gateway), on the route to limit")
	lines(b, ls)
	s.noKey(b, ok, "keyResolver", "key resolver")
}

// writeTraefik: a rateLimit middleware, to attach to the router.
func writeTraefik(b *strings.Builder, s snippet) {
	res := s.res
	ls, ok := products.TraefikYAML(products.TraefikLimit{Middleware: "ratelab", Average: res.Limit, Period: res.Period, Burst: res.Burst}, s.traceKey)
	s.heading(b, "average a period, burst; a request waits rather than be refused when its token is due within 1/(2 × the rate a second)",
		"In the dynamic configuration, with the middleware on the router")
	lines(b, ls)
	s.noKey(b, ok, "KEY", "source criterion")
}

// writeKong: the plugin with one window.
func writeKong(b *strings.Builder, s snippet) {
	res := s.res
	l := products.KongLimit{Policy: "local", Status: 429}
	w, _ := products.KongWindow(res.Period)
	l.Windows[w] = res.Limit
	ls, ok := products.KongYAML(l, s.traceKey)
	s.heading(b, "one window; policy local counts on each node, not the refused requests", "In the declarative configuration (kong.yml)")
	lines(b, ls)
	s.noKey(b, ok, "KEY", "limit_by")
}
