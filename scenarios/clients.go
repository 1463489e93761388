package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"ratelab/sim"
)

// key interns the key name in tier and returns its index.
func (c *compiler) key(name string, tier int) int {
	k := sim.Key{Name: name, Tier: tier}
	if i, ok := c.keyOf[k]; ok {
		return i
	}
	c.cfg.Keys = append(c.cfg.Keys, k)
	c.keyOf[k] = len(c.cfg.Keys) - 1
	return len(c.cfg.Keys) - 1
}

func (c *compiler) clients(Overrides) error {
	if len(c.s.Clients) == 0 {
		return c.fail(nil, "has no [[scenario.client]]; add at least one source of traffic")
	}
	for i := range c.s.Clients {
		if err := c.client(i, &c.s.Clients[i]); err != nil {
			return err
		}
	}
	return nil
}

func (c *compiler) client(i int, spec *ClientSpec) error {
	at := func(key string) []any { return []any{"client", i, key} }
	bad := func(key, format string, args ...any) error {
		return c.fail(at(key), "client %q: %s", spec.Name, fmt.Sprintf(format, args...))
	}
	if spec.Name == "" || slices.ContainsFunc(c.cfg.Clients, func(x sim.Client) bool { return x.Name == spec.Name }) {
		return c.fail(at("name"), "client %d: name must be set and unique (got %q)", i+1, spec.Name)
	}
	if err := plain("client name", spec.Name); err != nil {
		return c.fail(at("name"), "client %d: %v", i+1, err)
	}
	cl := sim.Client{Name: spec.Name, Start: spec.Start.Duration, Stop: c.cfg.Duration, Deliveries: 1, Latency: spec.Latency.Duration}
	if spec.Stop != nil {
		cl.Stop = spec.Stop.Duration
	}
	switch {
	case cl.Start < 0 || cl.Start >= c.cfg.Duration:
		return bad("start", "start must be from 0 to before the duration %s (got %s)", c.cfg.Duration, cl.Start)
	case cl.Stop <= cl.Start || cl.Stop > c.cfg.Duration:
		return bad("stop", "stop must be after start (%s) and at most the duration %s (got %s)", cl.Start, c.cfg.Duration, cl.Stop)
	case cl.Latency < 0 || cl.Latency > MaxDuration:
		return bad("latency", "latency must be from 0 to %s (got %s)", MaxDuration, cl.Latency)
	}
	if spec.Deliveries != 0 {
		if spec.Deliveries < 1 || spec.Deliveries > 100 {
			return bad("deliveries", "deliveries must be from 1 to 100 (got %d)", spec.Deliveries)
		}
		cl.Deliveries = spec.Deliveries
	}

	cl.Node = 0
	if spec.Node != "" {
		cl.Node = slices.IndexFunc(c.cfg.Nodes, func(n sim.Node) bool { return n.Name == spec.Node })
		if cl.Node < 0 {
			return bad("node", "node %q is not defined; add a [[scenario.node]] named %q or use one of: %s", spec.Node, spec.Node, nodeNames(c.cfg.Nodes))
		}
	}
	tier := 0
	if spec.Tier != "" {
		tier = slices.IndexFunc(c.cfg.Tiers, func(t sim.Tier) bool { return t.Name == spec.Tier })
		if tier < 0 {
			return bad("tier", "tier %q is not defined; add a [[scenario.tier]] named %q", spec.Tier, spec.Tier)
		}
	}

	if err := c.pattern(i, spec, &cl, tier, bad); err != nil {
		return err
	}
	if _, isTrace := cl.Pattern.(sim.Trace); !isTrace {
		if err := c.keys(spec, &cl, tier, bad); err != nil {
			return err
		}
		if err := c.cost(i, spec, &cl); err != nil {
			return err
		}
		if _, hand := cl.Pattern.(sim.Hand); hand && spec.File != "" {
			if err := c.handFile(len(c.cfg.Clients), spec, &cl, bad); err != nil {
				return err
			}
		}
	} else {
		if spec.Keys != 0 || spec.KeyPrefix != "" || spec.Cost != 0 || spec.CostDistribution != nil {
			return bad("keys", "a trace client takes its keys and costs from the file; remove keys, key_prefix, cost and cost_distribution (key names the file's field(s) that identify a client)")
		}
	}
	r, err := c.retry(i, spec)
	if err != nil {
		return err
	}
	cl.Retry = r
	c.cfg.Clients = append(c.cfg.Clients, cl)
	return nil
}

func nodeNames(nodes []sim.Node) string {
	var names []string
	for _, n := range nodes {
		names = append(names, n.Name)
	}
	return strings.Join(names, ", ")
}

// pattern fills the client's traffic pattern.
func (c *compiler) pattern(i int, spec *ClientSpec, cl *sim.Client, tier int, bad func(string, string, ...any) error) error {
	per := spec.Per.Duration
	if per == 0 {
		per = time.Second
	}
	if per < 0 {
		return bad("per", "per must be > 0 (got %s)", spec.Per)
	}
	if err := c.patternKeys(spec, bad); err != nil {
		return err
	}
	// the engine works with requests per second: check those, not only the fields
	perSecond := func(r float64) float64 { return r / per.Seconds() }
	finite := func(r float64) bool { return !math.IsInf(r, 0) && !math.IsNaN(r) }
	tooSmall := func(key string, r float64) error {
		return bad(key, "%s %g per %s is less than one request in %s, the longest run without a trace, so the client would send at most one; raise it, or send one request with pattern = \"bursts\"", key, r, per, MaxDuration)
	}
	switch spec.Pattern.Value() {
	case patternConstant, patternPoisson:
		r := perSecond(spec.Rate)
		switch {
		case !(spec.Rate > 0) || !finite(spec.Rate) || !finite(r):
			return bad("rate", "rate must be a number > 0 (got %g); it is requests per %s", spec.Rate, per)
		case r < MinRate:
			return tooSmall("rate", spec.Rate)
		}
		if spec.Pattern.Value() == patternConstant {
			cl.Pattern = sim.Constant{Rate: r}
		} else {
			cl.Pattern = sim.Poisson{Rate: r}
		}
	case patternRamp:
		from, to := perSecond(spec.Rate), perSecond(spec.RateTo)
		switch {
		case !(spec.Rate >= 0) || !(spec.RateTo >= 0) || !finite(from) || !finite(to) || (spec.Rate == 0 && spec.RateTo == 0):
			return bad("rate", "a ramp needs rate (at start) and rate_to (at stop), numbers >= 0, not both 0 (got %g and %g); they are requests per %s", spec.Rate, spec.RateTo, per)
		case max(from, to) < MinRate:
			return tooSmall("rate", max(spec.Rate, spec.RateTo))
		}
		cl.Pattern = sim.Ramp{From: from, To: to}
	case patternBursts:
		if len(spec.Bursts) == 0 {
			return bad("bursts", "bursts is empty; add bursts = [{ at = \"1s\", count = 100 }]")
		}
		var bursts []sim.Burst
		end := time.Duration(-1)
		for j, b := range spec.Bursts {
			switch {
			case b.Count < 1:
				return bad("bursts", "burst %d: count must be >= 1 (got %d)", j+1, b.Count)
			case b.At.Duration < 0 || b.Spread.Duration < 0 || b.At.Duration > MaxDuration || b.Spread.Duration > MaxDuration:
				return bad("bursts", "burst %d: at and spread must be from 0 to %s (got %s and %s)", j+1, MaxDuration, b.At, b.Spread)
			case b.At.Duration < end:
				return bad("bursts", "burst %d at %s starts before burst %d ends; list bursts in time order, not overlapping", j+1, b.At, j)
			}
			end = b.At.Duration + b.Spread.Duration
			bursts = append(bursts, sim.Burst{At: b.At.Duration, Count: b.Count, Spread: b.Spread.Duration})
		}
		cl.Pattern = sim.Bursts{Bursts: bursts}
	case patternClosedLoop:
		switch {
		case spec.Concurrency < 1 || spec.Concurrency > MaxWorkers:
			return bad("concurrency", "concurrency must be from 1 to %d workers (got %d)", MaxWorkers, spec.Concurrency)
		case spec.Think.Duration < 0 || spec.Think.Duration > MaxDuration:
			return bad("think", "think must be from 0 to %s (got %s)", MaxDuration, spec.Think)
		case spec.Think.Duration+spec.Latency.Duration <= 0:
			return bad("think", "a closed loop needs think or latency > 0, or each worker would send endless requests at one instant")
		}
		if d := spec.Spread.Duration.Duration; d < 0 || d > MaxDuration || spec.Spread.Mode != "" {
			return bad("spread", "spread must be a duration from 0 to %s for a closed loop (got %s)", MaxDuration, spec.Spread)
		}
		cl.Pattern = sim.ClosedLoop{Concurrency: spec.Concurrency, Think: spec.Think.Duration, Spread: spec.Spread.Duration.Duration}
	case patternTrace:
		return c.trace(i, spec, cl, tier, bad)
	case patternHand:
		cl.Pattern = sim.Hand{} // its file, if any, is read once its keys are known
	default:
		return bad("pattern", "pattern is missing; use one of %s", wordList(patterns))
	}
	return nil
}

// patternKeys rejects keys that the client's pattern does not use, so a setting
// that would be ignored is an error instead.
func (c *compiler) patternKeys(spec *ClientSpec, bad func(string, string, ...any) error) error {
	traceKeys := []string{"file", "format", "time_field", "time_format", "cost_field", "reorder_window", "spread", "exclude"}
	uses := map[pattern][]string{
		patternConstant: {"rate", "per"}, patternPoisson: {"rate", "per"}, patternRamp: {"rate", "rate_to", "per"},
		patternBursts: {"bursts"}, patternClosedLoop: {"concurrency", "think", "spread"}, patternTrace: traceKeys, patternHand: {"file"},
	}[spec.Pattern.Value()]
	set := map[string]bool{
		"rate": spec.Rate != 0, "rate_to": spec.RateTo != 0, "per": spec.Per.Duration != 0, "bursts": spec.Bursts != nil,
		"concurrency": spec.Concurrency != 0, "think": spec.Think.Duration != 0, "spread": spec.Spread != Spread{}, "file": spec.File != "",
		"format": spec.Format.Set(), "time_field": spec.TimeField != "", "time_format": spec.TimeFormat.Set(), "cost_field": spec.CostField != "",
		"reorder_window": spec.ReorderWindow != nil, "exclude": spec.Exclude != nil,
	}
	if uses == nil {
		return nil // a missing pattern is reported next
	}
	for _, key := range append([]string{"rate", "rate_to", "per", "bursts", "concurrency", "think"}, traceKeys...) {
		if set[key] && !slices.Contains(uses, key) {
			return bad(key, "%s does not apply to pattern %q (it uses %s); remove it", key, spec.Pattern, strings.Join(uses, ", "))
		}
	}
	return nil
}

// keys fills the client's keys.
func (c *compiler) keys(spec *ClientSpec, cl *sim.Client, tier int, bad func(string, string, ...any) error) error {
	switch {
	case spec.Key != "" && spec.Keys != 0:
		return bad("keys", "set key (one key) or keys (how many), not both")
	case spec.Keys < 0 || spec.Keys > MaxKeys:
		return bad("keys", "keys must be from 1 to %d (got %d)", MaxKeys, spec.Keys)
	case spec.Keys > 0:
		prefix := spec.KeyPrefix
		if prefix == "" {
			prefix = spec.Name
		}
		if len(c.cfg.Keys)+spec.Keys > MaxKeys {
			return bad("keys", "the scenario would use more than %d keys", MaxKeys)
		}
		for k := 0; k < spec.Keys; k++ {
			cl.Keys = append(cl.Keys, c.key(fmt.Sprintf("%s-%d", prefix, k), tier))
		}
	default:
		name := spec.Key
		if name == "" {
			name = spec.Name
		}
		cl.Keys = []int{c.key(name, tier)}
	}
	if spec.KeyDistribution.Zipf() {
		cl.KeyZipf = spec.ZipfS
		if cl.KeyZipf == 0 {
			cl.KeyZipf = 1.1
		}
		if !(cl.KeyZipf > 1) || math.IsInf(cl.KeyZipf, 0) {
			return bad("zipf_s", "zipf_s must be > 1 (got %g)", spec.ZipfS)
		}
	}
	return nil
}

// cost fills the client's cost.
func (c *compiler) cost(i int, spec *ClientSpec, cl *sim.Client) error {
	bad := func(key, format string, args ...any) error {
		return c.fail([]any{"client", i, key}, "client %q: %s", spec.Name, fmt.Sprintf(format, args...))
	}
	if spec.CostDistribution == nil {
		cl.Cost = sim.Cost{Fixed: max(spec.Cost, 1)}
		if spec.Cost < 0 || spec.Cost > sim.MaxTraceCost {
			return bad("cost", "cost must be from 1 to %d (got %d)", sim.MaxTraceCost, spec.Cost)
		}
		return nil
	}
	if spec.Cost != 0 {
		return bad("cost", "set cost (fixed) or cost_distribution, not both")
	}
	d := spec.CostDistribution
	cl.Cost = sim.Cost{Min: d.Min, Max: d.Max, Median: d.Median, Sigma: d.Sigma}
	if cl.Cost.Min == 0 {
		cl.Cost.Min = 1
	}
	if cl.Cost.Min < 1 || cl.Cost.Max < cl.Cost.Min || cl.Cost.Max > sim.MaxTraceCost {
		return bad("cost_distribution", "cost_distribution needs 1 <= min <= max <= %d (got min %d, max %d)", sim.MaxTraceCost, d.Min, d.Max)
	}
	switch d.Distribution.Value() {
	case sim.CostUniform:
		cl.Cost.Dist = sim.CostUniform
	case sim.CostLogNormal:
		cl.Cost.Dist = sim.CostLogNormal
		if cl.Cost.Sigma == 0 {
			cl.Cost.Sigma = 1
		}
		if !(d.Median > 0) || !(cl.Cost.Sigma >= 0) || math.IsInf(d.Median, 0) || math.IsInf(cl.Cost.Sigma, 0) {
			return bad("cost_distribution", "a lognormal cost needs median, a number > 0, and sigma, a number >= 0 (got median %g, sigma %g)", d.Median, d.Sigma)
		}
	default:
		return bad("cost_distribution", "distribution is missing; use one of %s", wordList(costDistributions))
	}
	return nil
}

func (c *compiler) retry(i int, spec *ClientSpec) (sim.Retry, error) {
	if spec.Retry == nil {
		return sim.Retry{MaxAttempts: 1}, nil
	}
	return c.retryPolicy(spec.Retry, func(key, format string, args ...any) error {
		return c.fail([]any{"client", i, "retry", key}, "client %q: retry: %s", spec.Name, fmt.Sprintf(format, args...))
	})
}

// retryPolicy checks a retry spec and returns it with defaults.
func (c *compiler) retryPolicy(s *RetrySpec, bad func(key, format string, args ...any) error) (sim.Retry, error) {
	r := sim.Retry{MaxAttempts: 1}
	if !s.Policy.Set() {
		return r, bad("policy", "policy is missing; use one of %s", wordList(retryPolicies))
	}
	p := s.Policy.Value()
	r.Policy = p
	r.Delay, r.Cap, r.MaxAttempts = s.Delay.Duration, s.Cap.Duration, s.MaxAttempts
	if r.Delay == 0 {
		r.Delay = 100 * time.Millisecond
	}
	if r.Cap == 0 {
		r.Cap = max(10*time.Second, r.Delay)
	}
	if r.MaxAttempts == 0 {
		r.MaxAttempts = 5
	}
	if p == sim.RetryNone {
		r.MaxAttempts = 1
	}
	switch {
	case r.Delay < 0 || r.Delay > MaxDuration:
		return r, bad("delay", "delay must be from 0 to %s (got %s)", MaxDuration, s.Delay)
	case r.Cap < r.Delay:
		return r, bad("cap", "cap (%s) must be at least delay (%s)", r.Cap, r.Delay)
	case r.Cap > MaxDuration:
		return r, bad("cap", "cap must be at most %s (got %s)", MaxDuration, s.Cap)
	case r.MaxAttempts < 1 || r.MaxAttempts > 1000:
		return r, bad("max_attempts", "max_attempts must be from 1 to 1000, the first attempt included (got %d)", s.MaxAttempts)
	}
	r.Jitter = s.Jitter.Value()
	r.HonourRateLimit = s.HonourRateLimit
	if r.Jitter == sim.JitterDecorrelated && p != sim.RetryExponential {
		return r, bad("jitter", "decorrelated jitter grows each wait from the last, from delay up to cap: it needs policy = \"exponential\"")
	}
	if err := remedies(s, &r, bad); err != nil {
		return r, err
	}
	if len(s.On) == 0 {
		r.OnDeny, r.OnError = true, true
	}
	for _, on := range s.On {
		switch on.Value() {
		case retryOnDeny:
			r.OnDeny = true
		case retryOnError:
			r.OnError = true
		}
	}
	return r, nil
}

// remedies checks a retry spec's client-side remedies and sets them on r, with
// their sources' defaults and bounds.
func remedies(s *RetrySpec, r *sim.Retry, bad func(key, format string, args ...any) error) error {
	if b := s.Budget; b != nil {
		budget := sim.RetryBudget{TTL: 10 * time.Second, MinPerSecond: 10, Percent: 0.2}
		if b.TTL != nil {
			budget.TTL = b.TTL.Duration
		}
		if b.MinPerSecond != nil {
			budget.MinPerSecond = *b.MinPerSecond
		}
		if b.Percent != nil {
			budget.Percent = *b.Percent
		}
		switch {
		case budget.TTL < time.Second || budget.TTL > time.Minute || budget.TTL%time.Second != 0:
			return bad("budget", "budget: ttl must be whole seconds from 1s to 60s, as Finagle requires (got %s)", budget.TTL)
		case budget.MinPerSecond < 0 || budget.MinPerSecond > 1_000_000:
			return bad("budget", "budget: min_per_second must be from 0 to 1000000 (got %d)", budget.MinPerSecond)
		case !(budget.Percent >= 0 && budget.Percent <= 1000):
			return bad("budget", "budget: percent (retries per request) must be from 0 to 1000, as Finagle requires (got %g)", budget.Percent)
		case budget.Percent == 0 && budget.MinPerSecond == 0:
			return bad("budget", "budget: percent and min_per_second both 0 allow no retry; use policy = \"none\"")
		}
		r.Budget = &budget
	}
	if t := s.Throttle; t != nil {
		switch {
		case t.MaxTokens == 0 || t.TokenRatio == 0:
			return bad("throttle", "throttle: max_tokens and token_ratio are both required, as gRPC's retryThrottling requires (like { max_tokens = 10, token_ratio = 0.1 })")
		case !(t.MaxTokens > 0 && t.MaxTokens <= 1000):
			return bad("throttle", "throttle: max_tokens must be above 0 and at most 1000, as gRPC requires (got %g)", t.MaxTokens)
		case !(t.TokenRatio > 0 && t.TokenRatio <= 1000) || math.Abs(t.TokenRatio*1000-math.Round(t.TokenRatio*1000)) > 1e-9:
			return bad("throttle", "throttle: token_ratio must be above 0 with at most 3 decimal places, as gRPC requires (got %g)", t.TokenRatio)
		}
		r.Throttle = &sim.RetryThrottle{MaxTokens: t.MaxTokens, TokenRatio: t.TokenRatio}
	}
	if a := s.Adaptive; a != nil {
		adaptive := sim.AdaptiveThrottle{K: 2, Window: 2 * time.Minute}
		if a.K != nil {
			adaptive.K = *a.K
		}
		if a.Window != nil {
			adaptive.Window = a.Window.Duration
		}
		switch {
		case !(adaptive.K > 0 && adaptive.K <= 1000):
			return bad("adaptive", "adaptive: k must be above 0 and at most 1000 (the SRE book suggests 2; got %g)", adaptive.K)
		case adaptive.Window < time.Second || adaptive.Window > time.Hour || adaptive.Window%time.Second != 0:
			return bad("adaptive", "adaptive: window must be whole seconds from 1s to 1h (got %s)", adaptive.Window)
		}
		r.Adaptive = &adaptive
	}
	if e := s.EnvoyBudget; e != nil {
		budget := sim.EnvoyRetryBudget{BudgetPercent: 20, MinRetryConcurrency: 3}
		if e.BudgetPercent != nil {
			budget.BudgetPercent = *e.BudgetPercent
		}
		if e.MinRetryConcurrency != nil {
			budget.MinRetryConcurrency = *e.MinRetryConcurrency
		}
		switch {
		case !(budget.BudgetPercent >= 0 && budget.BudgetPercent <= 100):
			return bad("envoy_budget", "envoy_budget: budget_percent must be from 0 to 100, as Envoy's Percent is (got %g)", budget.BudgetPercent)
		case budget.MinRetryConcurrency < 0 || budget.MinRetryConcurrency > 1_000_000:
			return bad("envoy_budget", "envoy_budget: min_retry_concurrency must be from 0 to 1000000 (got %d)", budget.MinRetryConcurrency)
		case budget.BudgetPercent == 0 && budget.MinRetryConcurrency == 0:
			return bad("envoy_budget", "envoy_budget: budget_percent and min_retry_concurrency both 0 allow no retry; use policy = \"none\"")
		}
		r.Envoy = &budget
	}
	if s.Policy.Value() == sim.RetryNone && (r.Budget != nil || r.Throttle != nil || r.Envoy != nil) {
		return bad("policy", "a retry budget or throttle limits retries; policy \"none\" makes none")
	}
	return nil
}
