package scenarios

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

// Limits on what one scenario may ask for, so a typo cannot exhaust the machine.
const (
	// MaxOffered is the most logical requests a scenario may generate. Requests
	// stream through the engine, so this bounds time (every lane replays them all)
	// rather than memory.
	MaxOffered = 100_000_000
	// MaxKeys is the most keys a scenario may use: every lane keeps per-key state
	// and statistics, so keys, not requests, are what fill memory.
	MaxKeys = 1_000_000
	// MaxDuration is the longest virtual time a scenario may cover.
	MaxDuration = 24 * time.Hour
	// MaxTicks is the most series samples a lane may hold (duration / tick).
	MaxTicks = 1_000_000
	// MaxWorkers is the most closed-loop workers one client may run.
	MaxWorkers = 100_000
)

// Overrides change a scenario at compile time: from the command line (--seed,
// --lanes) or the UI (burst and rate keys).
type Overrides struct {
	// Seed, if not nil, replaces the scenario's seed.
	Seed *uint64
	// Lanes, if not empty, keeps only the lanes named here (by lane name or by
	// algorithm), in the scenario's order.
	Lanes []string
	// Limit and Burst, when > 0, replace the default tier's limit and burst for
	// every lane that does not override them itself.
	Limit, Burst int64
	// Redis moves every lane whose file does not name a backend onto Redis
	// (--redis), but x-time-rate, the in-memory reference.
	Redis bool
}

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// compiler turns one scenario into a sim.Config, stopping at the first problem.
type compiler struct {
	overrides Overrides
	src       Source
	loc       *locator
	index     int
	s         *Scenario
	cfg       *sim.Config
	keyOf     map[sim.Key]int
}

// problem is a validation error that knows where it was written.
type problem struct{ msg string }

func (p *problem) Error() string { return p.msg }

// fail builds the error for a problem at path (see locator.line), naming the file
// and line, the scenario, and what follows.
func (c *compiler) fail(path []any, format string, args ...any) error {
	place := c.src.Name
	if line := c.loc.line(c.index, path...); line > 0 {
		place = fmt.Sprintf("%s:%d", place, line)
	}
	return &problem{fmt.Sprintf("%s: scenario %q: %s", place, c.s.Name, fmt.Sprintf(format, args...))}
}

func compile(src Source, loc *locator, index int, s *Scenario, o Overrides) (*sim.Config, error) {
	c := &compiler{src: src, loc: loc, index: index, s: s, keyOf: map[sim.Key]int{}}
	c.cfg = &sim.Config{Name: s.Name, Title: s.Title, Lesson: strings.TrimSpace(s.Lesson), Seed: 1}
	steps := []func(Overrides) error{c.header, c.tiers, c.nodes, c.backend, c.clients, c.lanes, c.capacity, c.load, c.watch}
	for _, step := range steps {
		if err := step(o); err != nil {
			return nil, err
		}
	}
	return c.cfg, nil
}

func (c *compiler) header(o Overrides) error {
	s, cfg := c.s, c.cfg
	switch {
	case s.Name == "":
		return &problem{fmt.Sprintf("%s:%d: a [[scenario]] has no name; add name = \"…\" (lowercase letters, digits and dashes)", c.src.Name, c.loc.line(c.index))}
	case !namePattern.MatchString(s.Name):
		return c.fail([]any{"name"}, "name must be lowercase letters, digits and dashes (got %q)", s.Name)
	case s.Duration.Duration <= 0:
		return c.fail([]any{"duration"}, "duration must be > 0 (got %q); write how much virtual time to cover, like duration = \"10s\"", s.Duration.String())
	case s.Duration.Duration > MaxDuration:
		return c.fail([]any{"duration"}, "duration must be at most %s (got %s)", MaxDuration, s.Duration)
	case s.Duration.Duration%algorithms.Resolution != 0:
		return c.fail([]any{"duration"}, "duration must be a whole number of microseconds (got %s)", s.Duration)
	}
	cfg.Duration = s.Duration.Duration
	cfg.Tick = s.Tick.Duration
	if cfg.Tick == 0 {
		switch {
		case cfg.Duration <= 20*time.Second:
			cfg.Tick = 10 * time.Millisecond
		case cfg.Duration <= 200*time.Second:
			cfg.Tick = 100 * time.Millisecond
		default:
			cfg.Tick = time.Second
		}
	}
	switch {
	case cfg.Tick <= 0 || cfg.Tick%algorithms.Resolution != 0:
		return c.fail([]any{"tick"}, "tick must be a positive whole number of microseconds (got %s)", cfg.Tick)
	case cfg.Tick > cfg.Duration:
		return c.fail([]any{"tick"}, "tick %s is longer than the duration %s; make it shorter", cfg.Tick, cfg.Duration)
	case cfg.Duration/cfg.Tick > MaxTicks:
		return c.fail([]any{"tick"}, "tick %s makes %d samples over %s; at most %d fit, so make the tick longer", cfg.Tick, cfg.Duration/cfg.Tick, cfg.Duration, MaxTicks)
	}
	if s.Seed != nil {
		cfg.Seed = *s.Seed
	}
	if o.Seed != nil {
		cfg.Seed = *o.Seed
	}
	return nil
}

// policy checks a policy spec and returns it with defaults.
func (c *compiler) policy(path []any, p PolicySpec) (algorithms.Policy, error) {
	out := algorithms.Policy{Limit: p.Limit, Period: p.Period.Duration, Burst: p.Burst, RetryJitter: p.RetryAfterJitter}
	if out.Period == 0 {
		out.Period = time.Second
	}
	out = out.WithDefaults()
	if err := out.Validate(1); err != nil {
		// Validate's messages start with the field they are about
		field := strings.Fields(err.Error())[0]
		return out, c.fail(append(path, field), "%s: %v", tableName(pathStrings(path)), err)
	}
	return out, nil
}

func pathStrings(path []any) []string {
	out := []string{"scenario"}
	for _, p := range path {
		if s, ok := p.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func (c *compiler) tiers(o Overrides) error {
	if c.s.Policy == nil {
		return c.fail(nil, "has no [scenario.policy]; add one with at least limit = N (and period, burst)")
	}
	p, err := c.policy([]any{"policy"}, *c.s.Policy)
	if err != nil {
		return err
	}
	if o.Limit > 0 || o.Burst > 0 {
		if o.Limit > 0 {
			p.Limit = o.Limit
		}
		if o.Burst > 0 {
			p.Burst = o.Burst
		}
		if err := p.Validate(1); err != nil {
			return c.fail([]any{"policy"}, "policy as adjusted: %v", err)
		}
	}
	c.cfg.Tiers = []sim.Tier{{Name: "default", Policy: p}}
	for i, t := range c.s.Tiers {
		path := []any{"tier", i}
		if t.Name == "" || t.Name == "default" || slices.ContainsFunc(c.cfg.Tiers, func(x sim.Tier) bool { return x.Name == t.Name }) {
			return c.fail(append(path, "name"), "tier %d: name must be set, unique, and not \"default\" (got %q)", i+1, t.Name)
		}
		tp, err := c.policy(path, t.PolicySpec)
		if err != nil {
			return err
		}
		c.cfg.Tiers = append(c.cfg.Tiers, sim.Tier{Name: t.Name, Policy: tp})
	}
	return nil
}

func (c *compiler) nodes(Overrides) error {
	if len(c.s.Nodes) == 0 {
		c.cfg.Nodes = []sim.Node{{Name: "app"}}
		return nil
	}
	for i, n := range c.s.Nodes {
		path := []any{"node", i}
		switch {
		case n.Name == "" || slices.ContainsFunc(c.cfg.Nodes, func(x sim.Node) bool { return x.Name == n.Name }):
			return c.fail(append(path, "name"), "node %d: name must be set and unique (got %q)", i+1, n.Name)
		case math.Abs(n.DriftPPM) > 100_000 || math.IsNaN(n.DriftPPM):
			return c.fail(append(path, "drift_ppm"), "node %q: drift_ppm must be within ±100000 (10%%) (got %g)", n.Name, n.DriftPPM)
		case n.Offset.Duration < -time.Hour || n.Offset.Duration > time.Hour:
			return c.fail(append(path, "offset"), "node %q: offset must be within ±1h (got %s)", n.Name, n.Offset)
		}
		c.cfg.Nodes = append(c.cfg.Nodes, sim.Node{Name: n.Name, Offset: n.Offset.Duration, DriftPPM: n.DriftPPM})
	}
	return nil
}

func (c *compiler) backend(Overrides) error {
	b := c.s.Backend
	if b == nil {
		return nil
	}
	path := []any{"backend"}
	switch {
	case b.Concurrency < 1 || b.Concurrency > 1_000_000:
		return c.fail(append(path, "concurrency"), "backend: concurrency must be from 1 to 1000000 (got %d)", b.Concurrency)
	case b.ServiceTime.Duration <= 0:
		return c.fail(append(path, "service_time"), "backend: service_time must be > 0 (got %s)", b.ServiceTime)
	case b.Queue < 0 || b.Queue > 10_000_000:
		return c.fail(append(path, "queue"), "backend: queue must be from 0 to 10000000 (got %d)", b.Queue)
	case b.Timeout.Duration < 0:
		return c.fail(append(path, "timeout"), "backend: timeout must be >= 0 (got %s)", b.Timeout)
	}
	c.cfg.Backend = &sim.Backend{Concurrency: b.Concurrency, ServiceTime: b.ServiceTime.Duration, Queue: b.Queue, Timeout: b.Timeout.Duration}
	return nil
}

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
	cl := sim.Client{Name: spec.Name, Start: spec.Start.Duration, Stop: c.cfg.Duration, Deliveries: 1, Latency: spec.Latency.Duration}
	if spec.Stop != nil {
		cl.Stop = spec.Stop.Duration
	}
	switch {
	case cl.Start < 0 || cl.Start >= c.cfg.Duration:
		return bad("start", "start must be from 0 to before the duration %s (got %s)", c.cfg.Duration, cl.Start)
	case cl.Stop <= cl.Start || cl.Stop > c.cfg.Duration:
		return bad("stop", "stop must be after start (%s) and at most the duration %s (got %s)", cl.Start, c.cfg.Duration, cl.Stop)
	case cl.Latency < 0:
		return bad("latency", "latency must be >= 0 (got %s)", cl.Latency)
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
	} else {
		if spec.Key != "" || spec.Keys != 0 || spec.Cost != 0 || spec.CostDistribution != nil {
			return bad("key", "a trace client takes its keys and costs from the file; remove key, keys, cost and cost_distribution")
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
	perSecond := func(r float64) float64 { return r / per.Seconds() }
	rateOK := func(r float64) bool { return r > 0 && !math.IsInf(r, 0) && !math.IsNaN(r) }
	switch spec.Pattern {
	case "constant", "poisson":
		if !rateOK(spec.Rate) {
			return bad("rate", "rate must be > 0 (got %g); it is requests per %s", spec.Rate, per)
		}
		if spec.Pattern == "constant" {
			cl.Pattern = sim.Constant{Rate: perSecond(spec.Rate)}
		} else {
			cl.Pattern = sim.Poisson{Rate: perSecond(spec.Rate)}
		}
	case "ramp":
		if spec.Rate < 0 || spec.RateTo < 0 || (spec.Rate == 0 && spec.RateTo == 0) || math.IsInf(spec.Rate+spec.RateTo, 0) {
			return bad("rate", "a ramp needs rate (at start) and rate_to (at stop) >= 0, not both 0 (got %g and %g)", spec.Rate, spec.RateTo)
		}
		cl.Pattern = sim.Ramp{From: perSecond(spec.Rate), To: perSecond(spec.RateTo)}
	case "bursts":
		if len(spec.Bursts) == 0 {
			return bad("bursts", "bursts is empty; add bursts = [{ at = \"1s\", count = 100 }]")
		}
		var bursts []sim.Burst
		end := time.Duration(-1)
		for j, b := range spec.Bursts {
			switch {
			case b.Count < 1:
				return bad("bursts", "burst %d: count must be >= 1 (got %d)", j+1, b.Count)
			case b.At.Duration < 0 || b.Spread.Duration < 0:
				return bad("bursts", "burst %d: at and spread must be >= 0 (got %s and %s)", j+1, b.At, b.Spread)
			case b.At.Duration < end:
				return bad("bursts", "burst %d at %s starts before burst %d ends; list bursts in time order, not overlapping", j+1, b.At, j)
			}
			end = b.At.Duration + b.Spread.Duration
			bursts = append(bursts, sim.Burst{At: b.At.Duration, Count: b.Count, Spread: b.Spread.Duration})
		}
		cl.Pattern = sim.Bursts{Bursts: bursts}
	case "closed-loop":
		switch {
		case spec.Concurrency < 1 || spec.Concurrency > MaxWorkers:
			return bad("concurrency", "concurrency must be from 1 to %d workers (got %d)", MaxWorkers, spec.Concurrency)
		case spec.Think.Duration < 0:
			return bad("think", "think must be >= 0 (got %s)", spec.Think)
		case spec.Think.Duration+spec.Latency.Duration <= 0:
			return bad("think", "a closed loop needs think or latency > 0, or each worker would send endless requests at one instant")
		}
		if spec.Spread.Duration < 0 {
			return bad("spread", "spread must be >= 0 (got %s)", spec.Spread)
		}
		cl.Pattern = sim.ClosedLoop{Concurrency: spec.Concurrency, Think: spec.Think.Duration, Spread: spec.Spread.Duration}
	case "trace":
		return c.trace(spec, cl, tier, bad)
	case "":
		return bad("pattern", "pattern is missing; use one of constant, poisson, bursts, ramp, closed-loop, trace")
	default:
		return bad("pattern", "unknown pattern %q; use one of constant, poisson, bursts, ramp, closed-loop, trace", spec.Pattern)
	}
	return nil
}

// patternKeys rejects keys that the client's pattern does not use, so a setting
// that would be ignored is an error instead.
func (c *compiler) patternKeys(spec *ClientSpec, bad func(string, string, ...any) error) error {
	uses := map[string][]string{
		"constant": {"rate", "per"}, "poisson": {"rate", "per"}, "ramp": {"rate", "rate_to", "per"},
		"bursts": {"bursts"}, "closed-loop": {"concurrency", "think", "spread"}, "trace": {"file"},
	}[spec.Pattern]
	set := map[string]bool{
		"rate": spec.Rate != 0, "rate_to": spec.RateTo != 0, "per": spec.Per.Duration != 0, "bursts": spec.Bursts != nil,
		"concurrency": spec.Concurrency != 0, "think": spec.Think.Duration != 0, "spread": spec.Spread.Duration != 0, "file": spec.File != "",
	}
	if uses == nil {
		return nil // an unknown pattern is reported next
	}
	for _, key := range []string{"rate", "rate_to", "per", "bursts", "concurrency", "think", "spread", "file"} {
		if set[key] && !slices.Contains(uses, key) {
			return bad(key, "%s does not apply to pattern %q (it uses %s); remove it", key, spec.Pattern, strings.Join(uses, ", "))
		}
	}
	return nil
}

// trace reads the whole trace once: every row is checked (so a bad row is an error
// before the run starts, with its line), keys are interned, rows counted.
func (c *compiler) trace(spec *ClientSpec, cl *sim.Client, tier int, bad func(string, string, ...any) error) error {
	if spec.File == "" {
		return bad("file", "a trace client needs file = \"path/to/trace.csv\" (relative to %s)", c.src.Name)
	}
	open := func() (sim.TraceReader, error) {
		rc, err := c.src.Open(spec.File)
		if err != nil {
			return nil, err
		}
		return sim.NewTraceReader(spec.File, rc)
	}
	tr, err := open()
	if err != nil {
		return bad("file", "%v (the path is relative to %s)", err, c.src.Name)
	}
	defer tr.Close()
	t := sim.Trace{Open: open, KeyIndex: map[string]int{}}
	for {
		row, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return bad("file", "%v", err)
		}
		t.Rows++
		if _, ok := t.KeyIndex[row.Key]; !ok {
			if len(c.cfg.Keys) >= MaxKeys {
				return bad("file", "%s has more than %d distinct keys", spec.File, MaxKeys)
			}
			t.KeyIndex[row.Key] = len(cl.Keys)
			cl.Keys = append(cl.Keys, c.key(row.Key, tier))
		}
		t.MaxCost = max(t.MaxCost, row.Cost)
		if t.Rows > MaxOffered {
			return bad("file", "%s has more than %d rows; ratelab replays at most that many requests", spec.File, MaxOffered)
		}
	}
	if t.Rows == 0 {
		return bad("file", "%s has a header but no rows", spec.File)
	}
	cl.Pattern = t
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
	switch spec.KeyDistribution {
	case "", "uniform":
	case "zipf":
		cl.KeyZipf = spec.ZipfS
		if cl.KeyZipf == 0 {
			cl.KeyZipf = 1.1
		}
		if !(cl.KeyZipf > 1) || math.IsInf(cl.KeyZipf, 0) {
			return bad("zipf_s", "zipf_s must be > 1 (got %g)", spec.ZipfS)
		}
	default:
		return bad("key_distribution", "key_distribution must be \"uniform\" or \"zipf\" (got %q)", spec.KeyDistribution)
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
	switch d.Distribution {
	case "uniform":
		cl.Cost.Dist = sim.CostUniform
	case "lognormal":
		cl.Cost.Dist = sim.CostLogNormal
		if cl.Cost.Sigma == 0 {
			cl.Cost.Sigma = 1
		}
		if !(d.Median > 0) || cl.Cost.Sigma < 0 || math.IsInf(d.Median, 0) || math.IsInf(cl.Cost.Sigma, 0) {
			return bad("cost_distribution", "a lognormal cost needs median > 0 and sigma >= 0 (got median %g, sigma %g)", d.Median, d.Sigma)
		}
	default:
		return bad("cost_distribution", "distribution must be \"uniform\" or \"lognormal\" (got %q)", d.Distribution)
	}
	return nil
}

func (c *compiler) retry(i int, spec *ClientSpec) (sim.Retry, error) {
	r := sim.Retry{MaxAttempts: 1}
	s := spec.Retry
	if s == nil {
		return r, nil
	}
	bad := func(key, format string, args ...any) error {
		return c.fail([]any{"client", i, "retry", key}, "client %q: retry: %s", spec.Name, fmt.Sprintf(format, args...))
	}
	policies := map[string]sim.RetryPolicy{"none": sim.RetryNone, "immediate": sim.RetryImmediate, "fixed": sim.RetryFixed, "exponential": sim.RetryExponential, "retry-after": sim.RetryHonour}
	p, ok := policies[s.Policy]
	if !ok {
		return r, bad("policy", "policy must be one of none, immediate, fixed, exponential, retry-after (got %q)", s.Policy)
	}
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
	case r.Delay < 0:
		return r, bad("delay", "delay must be >= 0 (got %s)", s.Delay)
	case r.Cap < r.Delay:
		return r, bad("cap", "cap (%s) must be at least delay (%s)", r.Cap, r.Delay)
	case r.MaxAttempts < 1 || r.MaxAttempts > 1000:
		return r, bad("max_attempts", "max_attempts must be from 1 to 1000, the first attempt included (got %d)", s.MaxAttempts)
	}
	switch s.Jitter {
	case "", "none":
	case "full":
		r.Jitter = sim.JitterFull
	case "equal":
		r.Jitter = sim.JitterEqual
	default:
		return r, bad("jitter", "jitter must be none, full or equal (got %q)", s.Jitter)
	}
	if len(s.On) == 0 {
		r.OnDeny, r.OnError = true, true
	}
	for _, on := range s.On {
		switch on {
		case "deny":
			r.OnDeny = true
		case "error":
			r.OnError = true
		default:
			return r, bad("on", "on lists what is retried: \"deny\" (a 429) and \"error\" (a backend failure) (got %q)", on)
		}
	}
	return r, nil
}

func (c *compiler) lanes(o Overrides) error {
	c.overrides = o
	specs := c.s.Lanes
	if len(specs) == 0 {
		for _, name := range algorithms.Names {
			specs = append(specs, LaneSpec{Algorithm: name})
		}
	}
	for i, spec := range specs {
		lane, err := c.lane(i, spec)
		if err != nil {
			return err
		}
		if strings.Contains(lane.Name, ",") {
			return c.fail([]any{"lane", i, "name"}, "lane %q: a lane name cannot hold a comma (--lanes separates names with commas)", lane.Name)
		}
		if slices.ContainsFunc(c.cfg.Lanes, func(l sim.LaneConfig) bool { return l.Name == lane.Name }) {
			return c.fail([]any{"lane", i, "name"}, "two lanes are named %q; give each a name = \"…\"", lane.Name)
		}
		c.cfg.Lanes = append(c.cfg.Lanes, lane)
	}
	if len(o.Lanes) > 0 {
		var kept []sim.LaneConfig
		for _, want := range o.Lanes {
			found := false
			for _, l := range c.cfg.Lanes {
				if (l.Name == want || l.Algorithm == want) && !slices.ContainsFunc(kept, func(k sim.LaneConfig) bool { return k.Name == l.Name }) {
					kept, found = append(kept, l), true
				}
			}
			if !found {
				var names []string
				for _, l := range c.cfg.Lanes {
					names = append(names, l.Name)
				}
				return &problem{fmt.Sprintf("--lanes: scenario %q has no lane or algorithm %q; its lanes are: %s", c.s.Name, want, strings.Join(names, ", "))}
			}
		}
		slices.SortStableFunc(kept, func(a, b sim.LaneConfig) int {
			return slices.IndexFunc(c.cfg.Lanes, func(l sim.LaneConfig) bool { return l.Name == a.Name }) -
				slices.IndexFunc(c.cfg.Lanes, func(l sim.LaneConfig) bool { return l.Name == b.Name })
		})
		c.cfg.Lanes = kept
	}
	return nil
}

func (c *compiler) lane(i int, spec LaneSpec) (sim.LaneConfig, error) {
	o := c.overrides
	at := func(key string) []any { return []any{"lane", i, key} }
	name := spec.Name
	if name == "" {
		name = spec.Algorithm
	}
	bad := func(key, format string, args ...any) error {
		return c.fail(at(key), "lane %q: %s", name, fmt.Sprintf(format, args...))
	}
	if !slices.Contains(algorithms.Names, spec.Algorithm) {
		if spec.Algorithm == "" {
			return sim.LaneConfig{}, c.fail(at("algorithm"), "lane %d: algorithm is missing; use one of %s", i+1, strings.Join(algorithms.Names, ", "))
		}
		return sim.LaneConfig{}, bad("algorithm", "unknown algorithm %q; use one of %s", spec.Algorithm, strings.Join(algorithms.Names, ", "))
	}
	lane := sim.LaneConfig{Name: name, Algorithm: spec.Algorithm, Backend: "memory", Clock: "client", OnError: "closed", WatchRetries: 20}

	base := c.cfg.Tiers[0].Policy
	p := base
	overridden := false
	if spec.Limit != nil {
		p.Limit, overridden = *spec.Limit, true
	}
	if spec.Period != nil {
		p.Period, overridden = spec.Period.Duration, true
	}
	if spec.Burst != nil {
		p.Burst, overridden = *spec.Burst, true
	} else if spec.Limit != nil && c.s.Policy.Burst == 0 && o.Burst == 0 {
		p.Burst = p.Limit
	}
	if spec.RetryAfterJitter != nil {
		p.RetryJitter, overridden = *spec.RetryAfterJitter, true
	}
	if overridden {
		if err := p.Validate(1); err != nil {
			return lane, bad("limit", "%v", err)
		}
		lane.Policy = p
	}

	opts := algorithms.Options{Rollover: spec.Rollover, MaxReserved: spec.MaxReserved, MonotonicTimestamp: true}
	switch spec.WindowStart {
	case "", "epoch":
	case "random":
		opts.RandomStart = true
	default:
		return lane, bad("window_start", "window_start must be \"epoch\" or \"random\" (got %q)", spec.WindowStart)
	}
	switch spec.Mode {
	case "", "queue":
	case "meter":
		opts.Mode = algorithms.LeakyMeter
	default:
		return lane, bad("mode", "mode must be \"queue\" or \"meter\" (got %q)", spec.Mode)
	}
	if spec.MonotonicTimestamp != nil {
		if spec.Algorithm != "token-bucket" {
			return lane, bad("monotonic_timestamp", "monotonic_timestamp applies to token-bucket only")
		}
		opts.MonotonicTimestamp = *spec.MonotonicTimestamp
	}
	if spec.Algorithm != "token-bucket" {
		opts.MonotonicTimestamp = false
	}
	if err := opts.Check(spec.Algorithm); err != nil {
		return lane, bad("algorithm", "%v", err)
	}
	lane.Options = opts

	switch spec.Strategy {
	case "", "atomic":
	case "multi", "watch":
		if spec.Algorithm != "token-bucket" && spec.Algorithm != "gcra" {
			return lane, bad("strategy", "strategy %q applies to token-bucket and gcra, whose state is a value a client can read and write back (this lane runs %s)", spec.Strategy, spec.Algorithm)
		}
		lane.Strategy = map[string]sim.Strategy{"multi": sim.Multi, "watch": sim.Watch}[spec.Strategy]
		lane.RoundTrip = time.Millisecond
	default:
		return lane, bad("strategy", "strategy must be atomic, multi or watch (got %q)", spec.Strategy)
	}
	backend := spec.Backend
	if backend == "" && o.Redis && spec.Algorithm != "x-time-rate" {
		backend = "redis"
	}
	switch backend {
	case "", "memory":
	case "redis":
		lane.Backend = "redis"
		lane.RoundTrip = time.Millisecond // a network store; the lookahead batches one round trip
		if spec.Algorithm == "x-time-rate" {
			return lane, bad("backend", "x-time-rate is the in-memory reference; it has no Redis port")
		}
	default:
		return lane, bad("backend", "backend must be \"memory\" or \"redis\" (got %q)", spec.Backend)
	}
	if spec.RoundTrip != nil {
		if spec.RoundTrip.Duration < 0 || spec.RoundTrip.Duration > time.Minute {
			return lane, bad("round_trip", "round_trip must be from 0 to 1m (got %s)", spec.RoundTrip)
		}
		lane.RoundTrip = spec.RoundTrip.Duration
	}
	if spec.WatchRetries != nil {
		if *spec.WatchRetries < 0 || *spec.WatchRetries > 1000 {
			return lane, bad("watch_retries", "watch_retries must be from 0 to 1000 (got %d)", *spec.WatchRetries)
		}
		lane.WatchRetries = *spec.WatchRetries
	}
	switch spec.Clock {
	case "", "client":
	case "server":
		lane.Clock = "server"
	default:
		return lane, bad("clock", "clock must be \"client\" (the caller's clock) or \"server\" (Redis TIME) (got %q)", spec.Clock)
	}
	switch spec.OnError {
	case "", "closed":
	case "open":
		lane.OnError = "open"
	default:
		return lane, bad("on_error", "on_error must be \"closed\" (deny when Redis fails) or \"open\" (allow) (got %q)", spec.OnError)
	}
	if lane.Backend == "memory" && (spec.Clock != "" || spec.OnError != "") {
		return lane, bad("clock", "clock and on_error apply to backend = \"redis\" lanes only")
	}
	return lane, nil
}

// capacity checks that every request can be accepted by every lane at all, and
// that each lane's arithmetic stays exact over the run.
func (c *compiler) capacity(Overrides) error {
	horizon := c.cfg.Horizon()
	for li, lane := range c.cfg.Lanes {
		for ci, cl := range c.cfg.Clients {
			tier := c.cfg.Keys[cl.Keys[0]].Tier
			p := c.cfg.Tiers[tier].Policy
			if tier == 0 && lane.Policy.Limit > 0 {
				p = lane.Policy
			}
			room := algorithms.Capacity(lane.Algorithm, p, lane.Options)
			if largest := cl.LargestCost(); largest > room {
				what := "burst"
				if room != p.Burst || lane.Algorithm == "fixed-window" || lane.Algorithm == "sliding-log" || lane.Algorithm == "sliding-counter" {
					what = "limit per window"
				}
				return c.fail([]any{"client", ci, "cost"}, "client %q: a request may cost %d, more than lane %q's %s of %d, so it could never be accepted; lower the cost or raise the %s", cl.Name, largest, lane.Name, what, room, what)
			}
			if err := p.Validate(cl.LargestCost()); err != nil {
				return c.fail([]any{"lane", li}, "lane %q: %v", lane.Name, err)
			}
			if err := p.CheckHorizon(horizon); err != nil {
				return c.fail([]any{"duration"}, "lane %q: %v", lane.Name, err)
			}
		}
	}
	return nil
}

// load estimates the logical requests the scenario will generate and refuses one
// that is too large to replay.
func (c *compiler) load(Overrides) error {
	var total float64
	for i, cl := range c.cfg.Clients {
		span := (cl.Stop - cl.Start).Seconds()
		var n float64
		switch p := cl.Pattern.(type) {
		case sim.Constant:
			n = p.Rate * span
		case sim.Poisson:
			n = p.Rate * span * 1.1
		case sim.Ramp:
			n = (p.From + p.To) / 2 * span
		case sim.Bursts:
			for _, b := range p.Bursts {
				n += float64(b.Count)
			}
		case sim.ClosedLoop:
			n = float64(p.Concurrency) * span / (p.Think + cl.Latency).Seconds()
		case sim.Trace:
			n = float64(p.Rows)
		}
		n *= float64(cl.Deliveries)
		if n > MaxOffered {
			return c.fail([]any{"client", i}, "client %q: offers about %.3g requests over %s; ratelab replays at most %d per scenario (every lane replays them all); lower the rate or shorten the run", cl.Name, n, cl.Stop-cl.Start, MaxOffered)
		}
		total += n
	}
	if total > MaxOffered {
		return c.fail(nil, "the clients offer about %.3g requests in all; ratelab replays at most %d per scenario; lower the rates or shorten the run", total, MaxOffered)
	}
	return nil
}

func (c *compiler) watch(Overrides) error {
	if c.s.WatchKey == "" {
		c.cfg.WatchKey = c.cfg.Clients[0].Keys[0]
		return nil
	}
	for i, k := range c.cfg.Keys {
		if k.Name == c.s.WatchKey {
			c.cfg.WatchKey = i
			return nil
		}
	}
	return c.fail([]any{"watch_key"}, "watch_key %q is not a key any client uses", c.s.WatchKey)
}
