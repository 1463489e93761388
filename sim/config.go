package sim

import (
	"time"

	"ratelab/algorithms"
)

// Config is everything a run needs: the traffic, the lanes under test, and how the
// world around them behaves. scenarios builds it from a file; a Config is read-only
// once a Run starts, so one Config can start any number of runs (the UI restarts
// from it).
type Config struct {
	Name     string        // the scenario's name
	Title    string        // one line
	Lesson   string        // the paragraph on what to look at
	Duration time.Duration // virtual time the run covers, > 0
	Tick     time.Duration // the series' resolution and the UI's step, > 0
	Seed     uint64        // seeds every random stream of the run
	// GraphFrom, when not nil, is where the lesson's event starts: once the
	// clock passes it, the UI's graphs show from there to now instead of the
	// last stretch, so the event stays on screen to the end of the run.
	GraphFrom *time.Duration

	// Tiers are the limit policies; tier 0 is the scenario's own policy and is
	// the one every lane's Policy overrides apply to.
	Tiers []Tier
	// Keys are every identity the clients use, each a key within a tier; clients
	// refer to them by index. Trace keys are added by the loader's pre-pass.
	Keys []Key
	// WatchKey is the key whose level the series and the graphs follow.
	WatchKey int
	// WatchKeys are more keys whose levels the series CSV follows, one column
	// each (see SeriesWriter); none by default.
	WatchKeys []int

	// Classes, when not nil, sorts the keys into heavy hitters and ordinary
	// keys, as a sweep of a trace classed them (ratelab tune): each lane then
	// counts the decisions on each kind (Metrics.OrdinaryDenied, HeavyAccepted).
	Classes *Classes

	Nodes   []Node
	Clients []Client
	Lanes   []LaneConfig
	// Backend, if not nil, is the service behind the limiter.
	Backend *Backend

	// Inputs are what a person did to the run, in time order (see Input): a
	// recorded session replayed.
	Inputs []Input

	// Claims are the lesson's checked facts; Scopes the parts of a lane's
	// decisions they count.
	Claims []Claim
	Scopes []Scope
	// Questions are what the lesson asks the learner to predict, each answered
	// by a claim's value at its instant (see Question).
	Questions []Question
	// NoLookahead makes lanes that could batch their decisions (on Redis) decide
	// one at a time: slower, and, as the tests check, the same run.
	NoLookahead bool
	// Notes are what the product configurations the lanes were read from do
	// that the lanes do not model, each "file:line: what" (package products).
	Notes []string
	// Files are the files on disk the configuration was read from, as their
	// paths were given: the scenario file, the traces and hand files its clients
	// read, the product configurations of its lanes and every file those
	// include. The engine does not read it: a command checks its outputs against
	// it, so that none is written over, or inside a folder written over. None for
	// the embedded catalogue.
	Files []string
}

// Tier is a named limit policy, such as "free" or "enterprise".
type Tier struct {
	Name   string
	Policy algorithms.Policy
}

// Classes are a scenario's keys sorted by how much they send: Heavy[k] says
// key k is a heavy hitter (one entry per key of Config.Keys; the others are
// ordinary), and Typical is an ordinary key of median volume, one a view offers
// to watch beside the heaviest (-1 when none is named).
type Classes struct {
	Heavy   []bool
	Typical int
}

// Recommended begins the name of a trace replay's lane of the policy ratelab
// tune recommends ("recommended: token-bucket 5/s burst 20"), so that a script
// finds it in run's CSV and JSON, and a view says which lane it is.
const Recommended = "recommended"

// Key is one identity the limiter sees: a key string within a tier.
type Key struct {
	Name string
	Tier int
}

// Backend is a service of limited capacity behind the limiter: Concurrency
// requests in service at once, each taking ServiceTime, and a first-in first-out
// queue of Queue waiting requests. A request that finds the queue full fails at
// once. A client waits at most Timeout (if > 0) for its answer, counted from when
// it sent the attempt (time in the limiter — a round trip to its store, a leaky
// bucket's queue, a reservation — included), then counts the request as failed —
// but a backend that has it does not know, and still serves it when its turn
// comes: wasted work. A request still in the limiter's queue at its client's
// deadline is not forwarded. Failures go back to the client as errors, which it may
// retry. That is how a retry storm grows: a transient overload makes waits exceed
// the timeout, the backend spends its capacity on abandoned requests, retries add
// more, and the overload outlives its cause.
type Backend struct {
	Concurrency int
	ServiceTime time.Duration
	Queue       int
	Timeout     time.Duration
}

// Capacity is the most requests per second the backend can complete.
func (b Backend) Capacity() float64 { return float64(b.Concurrency) / b.ServiceTime.Seconds() }

// Client is one source of traffic.
type Client struct {
	Name    string
	Node    int // index into Config.Nodes
	Pattern Pattern
	// Start and Stop bound when the client sends new requests (retries may run on).
	Start, Stop time.Duration
	// Keys are indexes into Config.Keys; KeyZipf, if > 1, draws them with a Zipf
	// distribution of that exponent (the first key the hottest), else uniformly.
	Keys    []int
	KeyZipf float64
	Cost    Cost
	// Deliveries is how many times each generated event is delivered: a partner
	// whose deploy duplicates every webhook has Deliveries 3. >= 1.
	Deliveries int
	// Latency is the network round trip between the client and the service: the
	// client sees an answer this long after it was made.
	Latency time.Duration
	Retry   Retry
}

// Pattern is how a client's requests arrive; one of the types below.
type Pattern interface{ patternName() string }

// Constant sends Rate requests per second, evenly spaced from Start.
type Constant struct{ Rate float64 }

// Poisson sends requests at exponential gaps, Rate per second on average.
type Poisson struct{ Rate float64 }

// Bursts sends Count requests at each burst's instant, spread evenly over Spread.
type Bursts struct{ Bursts []Burst }

// Burst is Count requests starting At, spread over Spread (0: all at once).
type Burst struct {
	At     time.Duration
	Count  int
	Spread time.Duration
}

// Ramp sends requests at a rate that moves linearly from From to To requests per
// second between the client's Start and Stop.
type Ramp struct{ From, To float64 }

// ClosedLoop runs Concurrency workers, each sending its next request Think after
// the previous one finished (accepted, or given up on): concurrent deciders. The
// workers start spread evenly over Spread from the client's Start, so they do not
// move in lockstep.
type ClosedLoop struct {
	Concurrency int
	Think       time.Duration
	Spread      time.Duration
}

// Trace replays a request log (an access log, JSON Lines, CSV: see package
// traces) in time order; Open opens it afresh for a run (and for a lane that goes
// on its own, see feed.go). KeyIndex maps each key in the file to its position in
// the client's Keys (the loader reads the whole file once to build it and to
// check every row); Rows is how many rows that read found before the client's
// stop, which the replay must read again exactly (more, fewer, or one it cannot
// read: the file changed since); Report is what that read found.
type Trace struct {
	Open     func() (TraceReader, error)
	KeyIndex map[string]int
	Rows     int
	MaxCost  int64
	Report   TraceReport
}

// Hand sends nothing by itself: its requests are inputs (Config.Inputs, Run.AddInput)
// that a person sent, at the rate they set, or that a recorded session replays.
type Hand struct{}

// PatternName is p's name as a scenario file writes it (constant, poisson,
// bursts, ramp, closed-loop, trace, hand); "unset" for a nil pattern.
func PatternName(p Pattern) string {
	if p == nil {
		return "unset"
	}
	return p.patternName()
}

func (Hand) patternName() string       { return "hand" }
func (Constant) patternName() string   { return "constant" }
func (Poisson) patternName() string    { return "poisson" }
func (Bursts) patternName() string     { return "bursts" }
func (Ramp) patternName() string       { return "ramp" }
func (ClosedLoop) patternName() string { return "closed-loop" }
func (Trace) patternName() string      { return "trace" }

// Cost is how many units each request costs: Fixed if Max is 0, else drawn from
// Dist between Min and Max.
type Cost struct {
	Fixed int64
	Dist  CostDist
	Min   int64
	Max   int64
	// Median and Sigma shape the log-normal distribution.
	Median float64
	Sigma  float64
}

// CostDist names a cost distribution.
type CostDist int

const (
	CostFixed CostDist = iota
	CostUniform
	CostLogNormal
)

// LargestCost is the largest cost the client can ask for.
func (c *Client) LargestCost() int64 {
	switch {
	case c.Cost.Dist != CostFixed:
		return c.Cost.Max
	case c.Pattern != nil:
		if t, ok := c.Pattern.(Trace); ok {
			return t.MaxCost
		}
	}
	return c.Cost.Fixed
}

// Retry is a client's retry policy for denials and backend errors.
type Retry struct {
	Policy RetryPolicy
	// Delay is the fixed delay, the first exponential delay, and the delay after
	// an error (which has no Retry-After) under RetryAfter.
	Delay time.Duration
	// Cap is the largest exponential delay.
	Cap    time.Duration
	Jitter Jitter
	// MaxAttempts counts the first attempt too: 1 means never retry.
	MaxAttempts int
	// OnDeny and OnError say what is retried: a 429 from the limiter, a 5xx from
	// the backend.
	OnDeny, OnError bool
	// The client-side remedies, if not nil (remedy.go): Finagle's retry
	// budget, gRPC's retry throttling, the SRE book's adaptive throttling,
	// Envoy's retry budget.
	Budget   *RetryBudget
	Throttle *RetryThrottle
	Adaptive *AdaptiveThrottle
	Envoy    *EnvoyRetryBudget
	// HonourRateLimit makes the client read the RateLimit field of every
	// answer (pace.go): once it says nothing remains on a key, the client sends
	// nothing more on that key, first attempts or retries, until its reset.
	HonourRateLimit bool
}

// RetryPolicy names how long a client waits before it tries again.
type RetryPolicy int

const (
	RetryNone RetryPolicy = iota
	RetryImmediate
	RetryFixed
	RetryExponential
	RetryHonour // wait what Retry-After says
)

// Jitter names how a wait is randomised.
type Jitter int

const (
	JitterNone  Jitter = iota
	JitterFull         // uniform in [0, wait)
	JitterEqual        // wait/2 + uniform in [0, wait/2)
	// JitterDecorrelated: AWS's, each wait uniform in [Delay, 3 × the last],
	// at most Cap (see decorrelated); exponential policy only.
	JitterDecorrelated
)

// Store is where a lane's limiter keeps its state: the scenario's choice, which
// the run's StateStore serves.
type Store int

const (
	InMemory Store = iota // the process's memory
	OnRedis               // a Redis server or cluster (algorithms/redislua)
)

// String is the store's name in files and in the CSV's backend column.
func (s Store) String() string { return [...]string{"memory", "redis"}[s] }

// Clock is the clock that stamps a lane's requests.
type Clock int

const (
	// ClientClock: the requester's node clock, skew and all.
	ClientClock Clock = iota
	// ServerClock: the store's own clock (Redis TIME). In a simulation the engine
	// plays the server and stamps the true virtual time, so runs stay
	// deterministic.
	ServerClock
)

// String is the clock's name in files.
func (c Clock) String() string { return [...]string{"client", "server"}[c] }

// OnError is what a lane decides when its store fails: Redis failing to answer,
// or an outage of the scenario's (a change store = "down", see outage.go).
type OnError int

const (
	FailClosed OnError = iota // deny
	FailOpen                  // allow
)

// String is the choice's name in files.
func (o OnError) String() string { return [...]string{"closed", "open"}[o] }

// LaneConfig is one limiter under test.
type LaneConfig struct {
	Name      string
	Algorithm algorithms.Name
	Options   algorithms.Options
	// Policy, if its Limit is > 0, replaces tier 0's policy for this lane.
	Policy   algorithms.Policy
	Strategy algorithms.Strategy
	// RoundTrip is the time from the application to the limiter's store and back.
	RoundTrip time.Duration
	// WatchRetries is how many times a Watch decision reads again after losing.
	WatchRetries int
	// Backend is where the limiter's state lives.
	Backend Store
	// Clock stamps the requests; OnError decides when the store fails (Redis
	// failing, or an outage: see outage.go).
	Clock   Clock
	OnError OnError
	// StoreTimeout, when > 0, is how long a decision waits for a store that
	// does not answer (an outage) before OnError decides: its answer comes
	// then, not a round trip later (see outage.go).
	StoreTimeout time.Duration
	// TTL, when > 0, makes each key's state expire this long after the last
	// request it accepted, as a store's key with that expiry does: its next
	// request finds it new (see algorithms.WithTTL). In memory only.
	TTL time.Duration

	// Shards, when > 1, splits the lane's policy into that many limits of about
	// 1/Shards each (algorithms.ShardPolicies), each with its own state; ShardPick
	// chooses the one a request goes to (see composite.go).
	Shards    int
	ShardPick algorithms.ShardPick
	// Instances, when > 1, keeps the lane's limit in the memory of that many
	// application instances behind a load balancer, each a limiter of the
	// lane's whole policy (PerInstance InstanceWhole: what a limit written per
	// server does, together Instances times it) or of a share of it
	// (InstanceShare, as shards split it); Balance picks each request's
	// instance, Weights their shares under BalanceWeighted. See balance.go.
	Instances   int
	PerInstance PerInstance
	Balance     Balance
	Weights     []int
	// Limits, when not empty, holds every request to each of them (the lane's
	// Algorithm, Options and Policy are those of the first), combined by Combine;
	// Orders, per client, is the order in-order takes them in (nil: as listed).
	Limits  []LimitConfig
	Combine algorithms.Combine
	Orders  [][]int
	// Headers is the family of the rate-limit headers the lane's responses send.
	Headers algorithms.HeaderFamily
	// Deploy, when On, runs the lane as a deployment of Instances gateway
	// instances with a sync protocol, scored against the ideal (deployed.go).
	Deploy DeployConfig
	// Rule is what the lane's product calls its one limit, with its place
	// ("nginx.conf:14 limit_req zone=login"), for a refusal to name (see
	// rules.go); "" for a lane of no product's. A lane of Limits names theirs.
	Rule string
	// Retry, if not nil, is every client's retry policy in this lane, in place
	// of its own: lanes that differ by what the clients do (a retry budget,
	// backoff) behind the same limiter.
	Retry *Retry
}

// LimitConfig is one of the limits a multi-limit lane holds each request to.
type LimitConfig struct {
	Name string // its policy's name in headers
	// Rule is what its product calls it, with its place ("nginx.conf:14
	// limit_req zone=login"), for a refusal to name (rules.go); "" for a limit
	// of no product's (then Name names it).
	Rule      string
	Algorithm algorithms.Name
	Options   algorithms.Options
	// Policy is the limit's, for every key whatever its tier (the scenario
	// compiler gives it the lane's policy where the file gives none).
	Policy   algorithms.Policy
	Template algorithms.KeyTemplate
	// Cost is the units a request takes from this limit; 0: the request's cost.
	Cost int64
}

// TierPolicy is tier t's policy as this lane enforces it (a multi-limit lane's
// first limit's, whatever the tier).
func (l LaneConfig) TierPolicy(cfg *Config, t int) algorithms.Policy {
	if len(l.Limits) > 0 { // its limits apply to every tier; it is shown as its first
		return l.Limits[0].Policy
	}
	if t == 0 && l.Policy.Limit > 0 {
		return l.Policy
	}
	return cfg.Tiers[t].Policy
}

// Horizon is the latest virtual time the run can reach, with the furthest node
// clock; limiters' exact arithmetic is checked up to it.
func (c *Config) Horizon() time.Duration {
	h := c.Duration
	for _, n := range c.Nodes {
		h = max(h, n.Clock(c.Duration), -n.Clock(0))
	}
	return h
}

// KeyIndex is the index in cfg.Keys of the key called name, and false when no
// client uses such a key.
func KeyIndex(cfg *Config, name string) (int, bool) {
	for i, k := range cfg.Keys {
		if k.Name == name {
			return i, true
		}
	}
	return 0, false
}
