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
	// MaxTraceDuration is the longest a scenario with a trace may cover: seven
	// weeks, within the recorder's 2^42 µs of admission times (sim/peak.go).
	MaxTraceDuration = 49 * 24 * time.Hour
	// MaxTicks is the most series samples a lane may hold (duration / tick).
	MaxTicks = 1_000_000
	// MaxWorkers is the most closed-loop workers one client may run.
	MaxWorkers = 100_000
	// MinRate is the smallest rate, in requests per second, a client may ask for:
	// one request in MaxDuration. A smaller one sends at most its first request
	// in any run without a trace.
	MinRate = 1 / (24 * 60 * 60.0)
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
	// (--redis), but those whose algorithm has no Redis port, which stay in
	// memory: x-time-rate, the in-memory reference, and the product lanes whose
	// state the product never keeps in Redis (nginx keeps limit_req's in each
	// server's shared memory zone). Whether that Redis
	// can run a lane (a cluster's slots) is its store's to say (package session).
	Redis bool
	// WatchKey, if not empty, replaces the scenario's watch_key (the UI's key
	// chooser).
	WatchKey string
	// Strict makes a trace line that cannot be read an error (--strict)
	// instead of a counted skip.
	Strict bool
}

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// compiler turns one scenario into a sim.Config, stopping at the first problem.
type compiler struct {
	overrides Overrides
	src       Source
	pos       *positions
	index     int
	s         *Scenario
	cfg       *sim.Config
	keyOf     map[sim.Key]int
	scans     map[int]*traceScan // trace clients read before the duration was known
	written   algorithms.Policy  // tier 0's policy as the file writes it, before overrides

	// expanded are the names of the lanes product configurations describe
	expanded []string
	// offered is about how many requests the clients send (load)
	offered float64
}

// problem is a validation error that knows where it was written.
type problem struct{ msg string }

func (p *problem) Error() string { return p.msg }

// fail builds the error for a problem at path (see positions.of), naming the file,
// line and column, the scenario, and what follows.
func (c *compiler) fail(path []any, format string, args ...any) error {
	if c.src.Generated {
		return &problem{fmt.Sprintf("%s: %s", c.src.Name, fmt.Sprintf(format, args...))}
	}
	return &problem{fmt.Sprintf("%s: scenario %q: %s", c.pos.place(c.src.Name, c.index, path...), c.s.Name, fmt.Sprintf(format, args...))}
}

func compile(src Source, pos *positions, index int, s *Scenario, o Overrides) (*sim.Config, error) {
	c := &compiler{src: src, pos: pos, index: index, s: s, keyOf: map[sim.Key]int{}, scans: map[int]*traceScan{}, overrides: o}
	c.cfg = &sim.Config{Name: s.Name, Title: s.Title, Lesson: strings.TrimSpace(s.Lesson), Seed: 1}
	if src.Path != nil && !src.Generated {
		c.cfg.Files = append(c.cfg.Files, src.Name)
	}
	steps := []func(Overrides) error{c.writtenZeros, c.header, c.tiers, c.nodes, c.backend, c.clients, c.keyNames, c.lanes, c.capacity, c.load, c.watch, c.changes, c.backlogs, c.claims, c.questions}
	for _, step := range steps {
		if err := step(o); err != nil {
			return nil, err
		}
	}
	return c.cfg, nil
}

func (c *compiler) header(o Overrides) error {
	s, cfg := c.s, c.cfg
	if s.Name == "" {
		return &problem{fmt.Sprintf("%s: a [[scenario]] has no name; add name = \"…\" (lowercase letters, digits and dashes)", c.pos.place(c.src.Name, c.index))}
	}
	if !namePattern.MatchString(s.Name) {
		return c.fail([]any{"name"}, "name must be lowercase letters, digits and dashes (got %q)", s.Name)
	}
	longest, traced := MaxDuration, c.hasTrace()
	if traced {
		longest = MaxTraceDuration
	}
	if err := plain("title", s.Title); err != nil {
		return c.fail([]any{"title"}, "%v", err)
	}
	if err := plainExcept("lesson", s.Lesson, "\n\r\t"); err != nil {
		return c.fail([]any{"lesson"}, "%v", err)
	}
	cfg.Duration = s.Duration.Duration
	if cfg.Duration == 0 && traced {
		span, err := c.traceSpan()
		if err != nil {
			return err
		}
		cfg.Duration = span
		if cfg.Duration > longest {
			return c.fail([]any{"duration"}, "the trace covers %s, more than the %s ratelab replays; set duration to replay its start, or cut the file", span, longest)
		}
	}
	switch {
	case cfg.Duration <= 0:
		return c.fail([]any{"duration"}, "duration must be > 0 (got %q); write how much virtual time to cover, like duration = \"10s\"", s.Duration.String())
	case cfg.Duration > longest && traced:
		return c.fail([]any{"duration"}, "duration must be at most %s with a trace (got %s)", longest, s.Duration)
	case cfg.Duration > longest:
		return c.fail([]any{"duration"}, "duration must be at most %s (got %s); only a scenario with a trace may be longer", longest, s.Duration)
	case cfg.Duration%algorithms.Resolution != 0:
		return c.fail([]any{"duration"}, "duration must be a whole number of microseconds (got %s)", s.Duration)
	}
	cfg.Tick = s.Tick.Duration
	if cfg.Tick == 0 {
		cfg.Tick = min(defaultTick(cfg.Duration), cfg.Duration) // a run shorter than the tick is one tick
	}
	switch {
	case cfg.Tick <= 0 || cfg.Tick%algorithms.Resolution != 0:
		return c.fail([]any{"tick"}, "tick must be a positive whole number of microseconds (got %s)", cfg.Tick)
	case cfg.Tick > cfg.Duration:
		return c.fail([]any{"tick"}, "tick %s is longer than the duration %s; make it shorter", cfg.Tick, cfg.Duration)
	case cfg.Duration/cfg.Tick > MaxTicks:
		return c.fail([]any{"tick"}, "tick %s makes %d samples over %s; at most %d fit, so make the tick longer", cfg.Tick, cfg.Duration/cfg.Tick, cfg.Duration, MaxTicks)
	}
	if f := s.GraphFrom; f != nil {
		if f.Duration < 0 || f.Duration >= cfg.Duration {
			return c.fail([]any{"graph_from"}, "graph_from must be at least 0s and before the end, %s (got %s)", cfg.Duration, f.Duration)
		}
		from := f.Duration
		cfg.GraphFrom = &from
	}
	if s.Seed != nil {
		cfg.Seed = *s.Seed
	}
	if o.Seed != nil {
		cfg.Seed = *o.Seed
	}
	return nil
}

// defaultTick is the series' resolution for a run of duration d: 10ms up to 20s,
// 100ms up to 200s, 1s up to 6h, 10s up to 60h, else 1m — at most 21,600 ticks,
// so the series CSV stays readable and the UI's graphs have a few thousand
// points at most to coarsen.
func defaultTick(d time.Duration) time.Duration {
	switch {
	case d <= 20*time.Second:
		return 10 * time.Millisecond
	case d <= 200*time.Second:
		return 100 * time.Millisecond
	case d <= 6*time.Hour:
		return time.Second
	case d <= 60*time.Hour:
		return 10 * time.Second
	}
	return time.Minute
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
	c.written = p
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
		if err := plain("tier name", t.Name); err != nil {
			return c.fail(append(path, "name"), "tier %d: %v", i+1, err)
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
		if err := plain("node name", n.Name); err != nil {
			return c.fail(append(path, "name"), "node %d: %v", i+1, err)
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
	case b.ServiceTime.Duration <= 0 || b.ServiceTime.Duration > MaxDuration:
		return c.fail(append(path, "service_time"), "backend: service_time must be > 0 and at most %s (got %s)", MaxDuration, b.ServiceTime)
	case b.Queue < 0 || b.Queue > 10_000_000:
		return c.fail(append(path, "queue"), "backend: queue must be from 0 to 10000000 (got %d)", b.Queue)
	case b.Timeout.Duration < 0 || b.Timeout.Duration > MaxDuration:
		return c.fail(append(path, "timeout"), "backend: timeout must be from 0 to %s (got %s)", MaxDuration, b.Timeout)
	}
	c.cfg.Backend = &sim.Backend{Concurrency: b.Concurrency, ServiceTime: b.ServiceTime.Duration, Queue: b.Queue, Timeout: b.Timeout.Duration}
	return nil
}

// keyNames checks every key the file names (key, key_prefix, a hand client's
// file). A key read from a trace is data, not the file's text: it is kept as
// the log writes it, and shown escaped where it is printed (package printable).
func (c *compiler) keyNames(Overrides) error {
	named := c.namedKeys()
	for k, key := range c.cfg.Keys {
		if !named[k] {
			continue
		}
		if err := plain("key", key.Name); err != nil {
			for i, cl := range c.cfg.Clients {
				if slices.Contains(cl.Keys, k) {
					return c.fail([]any{"client", i, keySource(&c.s.Clients[i])}, "client %q: %v", cl.Name, err)
				}
			}
			return c.fail(nil, "%v", err)
		}
	}
	return nil
}

// open opens a file the scenario names (a trace, a hand file, a configuration,
// a file a configuration includes), relative to the scenario's file, and records
// it among the files the configuration was read from.
func (c *compiler) open(name string) (io.ReadCloser, error) {
	rc, err := c.src.Open(name)
	if err == nil && c.src.Path != nil {
		if path := c.src.Path(name); !slices.Contains(c.cfg.Files, path) {
			c.cfg.Files = append(c.cfg.Files, path)
		}
	}
	return rc, err
}

// namedKeys marks the keys a client that is not a trace's uses (the others
// are used by trace clients alone): a set, read once, so that a file of a
// million keys is checked in one pass over its clients' keys.
func (c *compiler) namedKeys() []bool {
	named := make([]bool, len(c.cfg.Keys))
	for _, cl := range c.cfg.Clients {
		if _, trace := cl.Pattern.(sim.Trace); !trace {
			for _, k := range cl.Keys {
				named[k] = true
			}
		}
	}
	return named
}

// keySource is the field a client's keys come from.
func keySource(spec *ClientSpec) string {
	switch {
	case spec.File != "":
		return "file"
	case spec.KeyPrefix != "":
		return "key_prefix"
	case spec.Key != "":
		return "key"
	}
	return "name"
}

func (c *compiler) watch(o Overrides) error {
	if err := c.classes(); err != nil {
		return err
	}
	for i, name := range c.s.WatchKeys {
		k, ok := sim.KeyIndex(c.cfg, name)
		switch {
		case !ok:
			return c.fail([]any{"watch_keys"}, "watch_keys[%d] %q is not a key any client uses", i, name)
		case slices.Contains(c.cfg.WatchKeys, k):
			return c.fail([]any{"watch_keys"}, "watch_keys names %q twice; list each key once", name)
		}
		c.cfg.WatchKeys = append(c.cfg.WatchKeys, k)
	}
	if o.WatchKey != "" {
		k, ok := sim.KeyIndex(c.cfg, o.WatchKey)
		if !ok {
			return fmt.Errorf("scenario %q: the key to watch, %q, is not a key any client uses", c.s.Name, o.WatchKey)
		}
		c.cfg.WatchKey = k
		return nil
	}
	if c.s.WatchKey == "" {
		c.cfg.WatchKey = c.cfg.Clients[0].Keys[0]
		return nil
	}
	if k, ok := sim.KeyIndex(c.cfg, c.s.WatchKey); ok {
		c.cfg.WatchKey = k
		return nil
	}
	return c.fail([]any{"watch_key"}, "watch_key %q is not a key any client uses", c.s.WatchKey)
}

// classes reads heavy_keys and typical_key into the configuration's Classes
// (none without heavy_keys).
func (c *compiler) classes() error {
	if len(c.s.HeavyKeys) == 0 {
		if c.s.TypicalKey != "" {
			return c.fail([]any{"typical_key"}, "typical_key names an ordinary key, which needs heavy_keys: list the heavy hitters too")
		}
		return nil
	}
	index := make(map[string]int, len(c.cfg.Keys))
	for i, k := range c.cfg.Keys {
		if _, ok := index[k.Name]; !ok {
			index[k.Name] = i
		}
	}
	classes := &sim.Classes{Heavy: make([]bool, len(c.cfg.Keys)), Typical: -1}
	for i, name := range c.s.HeavyKeys {
		k, ok := index[name]
		switch {
		case !ok:
			return c.fail([]any{"heavy_keys"}, "heavy_keys[%d] %q is not a key any client uses", i, name)
		case classes.Heavy[k]:
			return c.fail([]any{"heavy_keys"}, "heavy_keys names %q twice; list each key once", name)
		}
		classes.Heavy[k] = true
	}
	if name := c.s.TypicalKey; name != "" {
		k, ok := index[name]
		switch {
		case !ok:
			return c.fail([]any{"typical_key"}, "typical_key %q is not a key any client uses", name)
		case classes.Heavy[k]:
			return c.fail([]any{"typical_key"}, "typical_key %q is one of heavy_keys; name an ordinary key", name)
		}
		classes.Typical = k
	}
	c.cfg.Classes = classes
	return nil
}
