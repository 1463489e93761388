package scenarios

//go:generate go run ./internal/genoptions/cmd/genoptions

// File is a scenario file: any number of [[scenario]] tables. Every key below is
// optional unless its comment says otherwise; an unknown key is an error, with its
// line and column. docs/scenarios.md ("Scenario files") is the guide to this
// schema, and scenarios.toml its worked examples.
type File struct {
	Scenarios []Scenario `toml:"scenario,omitempty"`
}

// Scenario is one lesson: traffic, the limit, and the lanes that face it.
type Scenario struct {
	Name   string `toml:"name,omitempty"`   // required: lowercase letters, digits and dashes
	Title  string `toml:"title,omitempty"`  // one line
	Lesson string `toml:"lesson,omitempty"` // a paragraph: what to look at
	// Part is where the lesson sits in the course (course.go): the embedded
	// catalogue is in the course's order.
	Part Part `toml:"part,omitempty"`
	// Exercise is the lesson's exercise: change this, predict that, with the
	// answer checked on the changed run.
	Exercise *ExerciseSpec `toml:"exercise,omitempty"`

	Duration Duration `toml:"duration,omitempty"` // required (but with a trace: its span): virtual time covered, up to 24h (49 days with a trace)
	Tick     Duration `toml:"tick,omitempty"`     // series resolution; default by duration (see defaultTick)
	Seed     *uint64  `toml:"seed,omitempty"`     // default 1
	// GraphFrom is where the lesson's event starts: once the clock passes
	// it, the UI's graphs show from there to now, not the last stretch
	// (>= 0 and before the duration; default: the last stretch throughout).
	GraphFrom *Duration `toml:"graph_from,omitempty"`
	WatchKey  string    `toml:"watch_key,omitempty"`
	// WatchKeys are more keys whose levels the series CSV follows, a column
	// "level:KEY" each (ratelab run --watch-keys replaces the list).
	WatchKeys []string `toml:"watch_keys,omitempty"`
	// HeavyKeys are the keys a sweep of the trace classed as heavy hitters
	// (ratelab run --trace writes them), the others being ordinary: each lane
	// counts the ordinary keys' denials and the heavy hitters' admissions.
	// TypicalKey, with them, is an ordinary key of median volume, which the UI
	// offers to watch.
	HeavyKeys  []string `toml:"heavy_keys,omitempty"`
	TypicalKey string   `toml:"typical_key,omitempty"`

	Policy  *PolicySpec  `toml:"policy,omitempty"` // required: the limit every lane enforces
	Tiers   []TierSpec   `toml:"tier,omitempty"`
	Lanes   []LaneSpec   `toml:"lane,omitempty"` // default: every algorithm with the policy
	Nodes   []NodeSpec   `toml:"node,omitempty"` // default: one node, "app", with a true clock
	Clients []ClientSpec `toml:"client,omitempty"`
	Backend *BackendSpec `toml:"backend,omitempty"`
	Claims  []ClaimSpec  `toml:"claim,omitempty"`  // the lesson's facts, checked on every run
	Changes []ChangeSpec `toml:"change,omitempty"` // timed changes: a recorded session replayed
	// Questions ask the learner to predict what the run is about to show; each
	// is answered by a claim's value on the run (see sim.Question).
	Questions []QuestionSpec `toml:"question,omitempty"`
}

// QuestionSpec is a question the lesson asks at a moment of its run: the UI
// pauses there, takes the learner's answer, then shows the run's. The answer is
// not written here: it is the value, on the run so far at `at`, of the claim
// named, so it is right for every run whatever its seed, lanes or policy.
type QuestionSpec struct {
	At    Duration `toml:"at,omitempty"`    // required: when to ask, > 0 and at most the duration
	Ask   string   `toml:"ask,omitempty"`   // required: the question
	Claim string   `toml:"claim,omitempty"` // required: the id of the claim whose value answers it
	// Lane is whose value answers, when the claim names several lanes.
	Lane string `toml:"lane,omitempty"`
	// Choices, if given, are what the learner picks from: ranges of the value
	// ("100", "101–199", "at least 200", "< 5%"), the right one holding it; or
	// lanes, the right one the lane on which the claim's comparison holds.
	Choices []ChoiceText `toml:"choices,omitempty"`
	// Tolerance is how far a number may be from the answer and still be right
	// (a question with no choices); default 0, exact.
	Tolerance *float64 `toml:"tolerance,omitempty"`
	Show      string   `toml:"show,omitempty"` // required: where on screen to see the answer
	// Why is the feedback for a wrong answer, aimed at the misconception
	// behind it: by choice (its text as in choices), or, for a question
	// answered with a number, "low" and "high".
	Why map[string]string `toml:"why,omitempty"`
}

// ChangeSpec is a change made to the running scenario at a virtual time, as the
// UI's live controls make them (and save them): a client's rate or retry policy,
// the clock-skew fix of every token-bucket lane, a backend glitch; or as a
// lesson stages it: every lane's store going down, coming back up, or losing its
// state (sim's outage.go). A table may make several; at one instant, requests
// sent by hand (a hand client's file) come first, then the changes in file
// order.
type ChangeSpec struct {
	At       Duration   `toml:"at,omitempty"`        // required: when
	Client   string     `toml:"client,omitempty"`    // the client rate and retry change
	Rate     *float64   `toml:"rate,omitempty"`      // its new rate, requests per `per` (0 stops it)
	Per      Duration   `toml:"per,omitempty"`       // default 1s
	Retry    *RetrySpec `toml:"retry,omitempty"`     // its new retry policy
	ClockFix ClockFix   `toml:"clock_fix,omitempty"` // "on", "off" or "as-configured"
	Glitch   *bool      `toml:"glitch,omitempty"`    // the backend serves four times slower while true
	Store    StoreEvent `toml:"store,omitempty"`     // every lane's store: "down", "up", "flushed" or "failover"
	// A deployed lane's membership from At: new instances start empty.
	Lane      string `toml:"lane,omitempty"`
	Instances *int   `toml:"instances,omitempty"`
	// A partition of the deployed lane from At: these instances (numbered
	// from 1) cut off from the others and the store; [] heals it.
	Partition *[]int `toml:"partition,omitempty"`
	// A rolling restart's step: these instances (numbered from 1) replaced
	// at At by new ones that start empty.
	Restart *[]int `toml:"restart,omitempty"`
}

// ClaimSpec is one fact the lesson states, as data: a metric of one or more lanes
// compared with a number or with another lane's, checked on every run and shown
// with ✓ or ✗. The lesson cites it as [id].
type ClaimSpec struct {
	ID    string   `toml:"id,omitempty"`    // required: letters, digits, dashes; cited as [id]
	Says  string   `toml:"says,omitempty"`  // required: the sentence it supports
	Lane  string   `toml:"lane,omitempty"`  // the lane (name or algorithm), or
	Lanes []string `toml:"lanes,omitempty"` // several lanes, each of which must satisfy it

	Metric string   `toml:"metric,omitempty"` // required: a metric's JSON name (see ratelab run --explain)
	Op     Op       `toml:"op,omitempty"`     // required: <, <=, ==, !=, >=, >
	Value  *float64 `toml:"value,omitempty"`  // the number compared with, or
	Than   string   `toml:"than,omitempty"`   // another lane: compared with times × its metric
	Times  *float64 `toml:"times,omitempty"`  // default 1
	// Kind is "fact" (default: true of this traffic, false for a broken lane)
	// or "invariant" (true of the algorithm on any traffic).
	Kind ClaimKind `toml:"kind,omitempty"`

	// A scope counts only some decisions (metric attempts, accepted, denied,
	// offered or denied_share): of these clients, of keys with this prefix,
	// landed within [from, to).
	Clients   []string  `toml:"clients,omitempty"`
	KeyPrefix string    `toml:"key_prefix,omitempty"`
	From      *Duration `toml:"from,omitempty"`
	To        *Duration `toml:"to,omitempty"`
}

// PolicySpec is a limit: Limit units per Period, Burst at once.
type PolicySpec struct {
	Limit            int64    `toml:"limit,omitempty"`              // required, > 0
	Period           Duration `toml:"period,omitempty"`             // default 1s
	Burst            int64    `toml:"burst,omitempty"`              // default: limit
	RetryAfterJitter float64  `toml:"retry_after_jitter,omitempty"` // 0 to 1: per-key jitter on Retry-After
}

// TierSpec is a named policy that clients can be put in ("free", "enterprise").
type TierSpec struct {
	Name string `toml:"name,omitempty"` // required
	PolicySpec
}

// LaneSpec is one limiter under test.
type LaneSpec struct {
	Name      string    `toml:"name,omitempty"`      // default: the algorithm's name
	Algorithm Algorithm `toml:"algorithm,omitempty"` // required: fixed-window, sliding-log, …, x-time-rate

	// Overrides of the scenario's policy (tier "default") for this lane.
	Limit            *int64    `toml:"limit,omitempty"`
	Period           *Duration `toml:"period,omitempty"`
	Burst            *int64    `toml:"burst,omitempty"`
	RetryAfterJitter *float64  `toml:"retry_after_jitter,omitempty"`

	OptionsSpec // the algorithms' own options (options_gen.go)

	Strategy     Strategy  `toml:"strategy,omitempty"`      // "atomic" (default), "multi" or "watch"
	RoundTrip    *Duration `toml:"round_trip,omitempty"`    // to the store and back; default 0 in memory, 1ms on Redis
	WatchRetries *int      `toml:"watch_retries,omitempty"` // default 20

	Backend Backend   `toml:"backend,omitempty"`  // "memory" (default) or "redis"
	Clock   Clock     `toml:"clock,omitempty"`    // "client" (default) or "server": the store's clock
	OnError OnError   `toml:"on_error,omitempty"` // when the store fails (redis, or a store = "down" change): "closed" (default: deny) or "open" (allow)
	TTL     *Duration `toml:"ttl,omitempty"`      // in memory: a key's state expires this long after its last acceptance; default never
	// StoreTimeout is how long a decision waits for a store that does not
	// answer (a store = "down" change) before on_error decides.
	StoreTimeout *Duration `toml:"store_timeout,omitempty"` // default: a round trip (the store refuses at once)

	Shards    *int      `toml:"shards,omitempty"`     // split the limit into this many shards of 1/shards each; default 1
	ShardPick ShardPick `toml:"shard_pick,omitempty"` // "random" (default) or "two-choices"

	Instances   *int        `toml:"instances,omitempty"`    // keep the limit in each of this many instances' memory, behind a load balancer; default 1
	PerInstance PerInstance `toml:"per_instance,omitempty"` // "whole" (default: each instance the whole policy) or "share" (the policy divided)
	Balance     Balance     `toml:"balance,omitempty"`      // "round-robin" (default), "random" or "weighted"
	Weights     []int       `toml:"weights,omitempty"`      // weighted: each instance's share of the requests, one number per instance

	// A deployment: the instances share what they admit as a product does,
	// scored against one ideal limiter (docs/scenarios.md, "Deployments").
	Sync            Sync      `toml:"sync,omitempty"`             // the instances' sync protocol: "local", "share", "central", "kong-sync", "gubernator-global", "gubernator-global-pre-219", "replica-reads"
	LinkLatency     *Duration `toml:"link_latency,omitempty"`     // a link's one-way delay, between instances and to the store; default 0
	SyncWait        *Duration `toml:"sync_wait,omitempty"`        // kong-sync, gubernator-global: how often an instance sends what it counted
	SyncBatchLimit  *int      `toml:"sync_batch_limit,omitempty"` // gubernator-global: hits queued for a peer that send at once (GlobalBatchLimit); default 1000
	MembershipDelay *Duration `toml:"membership_delay,omitempty"` // share: how long instances take to see a membership change; default 0
	ReplicaLag      *Duration `toml:"replica_lag,omitempty"`      // central, replica-reads: the store's replica applies each write this late; a failover loses the lag's writes
	LinkJitter      *Duration `toml:"link_jitter,omitempty"`      // haproxy-peers, gubernator-global: each message between instances up to this later than link_latency, a link keeping its order

	Limits  []LimitSpec         `toml:"limits,omitempty"`  // hold each request to several limits (a multi-limit lane)
	Combine Combine             `toml:"combine,omitempty"` // "in-order" (default), "check-then-consume", "all-or-nothing"
	Order   map[string][]string `toml:"order,omitempty"`   // per client: the limits' order, by name (in-order)

	Headers Headers `toml:"headers,omitempty"` // "draft" (default), "legacy", "x-ratelimit", "envoy", "spring", "traefik"; none for a product that sends none (nginx)

	// Retry replaces every client's retry policy in this lane: lanes that
	// differ by what the clients do behind the same limiter.
	Retry *RetrySpec `toml:"retry,omitempty"`

	// Or a product's own configuration, instead of the keys above: the lane is
	// the lanes it describes, one per context that limits (docs/scenarios.md,
	// "A product's configuration").
	Product    Product `toml:"product,omitempty"`     // "nginx" or "haproxy"
	Config     string  `toml:"config,omitempty"`      // the configuration as its file writes it; in a literal string, its lines are the file's
	ConfigFile string  `toml:"config_file,omitempty"` // or its file (nginx.conf, haproxy.cfg), relative to this file
}

// LimitSpec is one of the limits a multi-limit lane holds each request to: its
// own algorithm, policy and key, and what a request costs it.
type LimitSpec struct {
	Name      string    `toml:"name,omitempty"`      // its policy's name in headers; default limit-1, limit-2…
	Algorithm Algorithm `toml:"algorithm,omitempty"` // default: the lane's
	Limit     *int64    `toml:"limit,omitempty"`     // the policy; default the lane's
	Period    *Duration `toml:"period,omitempty"`
	Burst     *int64    `toml:"burst,omitempty"`
	Key       string    `toml:"key,omitempty"`  // key template: {key} is the request's key; default "{key}"
	Cost      any       `toml:"cost,omitempty"` // units a request takes: a number, or "cost" (the request's; default)
}

// NodeSpec is an application node and its clock.
type NodeSpec struct {
	Name     string   `toml:"name,omitempty"`      // required
	Offset   Duration `toml:"offset,omitempty"`    // how far its clock is ahead (negative: behind)
	DriftPPM float64  `toml:"drift_ppm,omitempty"` // how fast it drifts, in parts per million
}

// BackendSpec is the service behind the limiter.
type BackendSpec struct {
	Concurrency int      `toml:"concurrency,omitempty"`  // required: requests served at once
	ServiceTime Duration `toml:"service_time,omitempty"` // required: time to serve one
	Queue       int      `toml:"queue,omitempty"`        // requests that may wait
	Timeout     Duration `toml:"timeout,omitempty"`      // a request that waited longer fails
}

// ClientSpec is one source of traffic.
type ClientSpec struct {
	Name    string  `toml:"name,omitempty"`    // required
	Node    string  `toml:"node,omitempty"`    // default: the first node
	Tier    string  `toml:"tier,omitempty"`    // default: "default", the scenario's policy
	Pattern Pattern `toml:"pattern,omitempty"` // required: constant, poisson, bursts, ramp, closed-loop, trace, hand

	Rate        float64     `toml:"rate,omitempty"`        // constant, poisson, ramp (start): requests per `per`
	RateTo      float64     `toml:"rate_to,omitempty"`     // ramp: the rate at stop
	Per         Duration    `toml:"per,omitempty"`         // the rate's period; default 1s
	Bursts      []BurstSpec `toml:"bursts,omitempty"`      // bursts
	Concurrency int         `toml:"concurrency,omitempty"` // closed-loop: workers
	Think       Duration    `toml:"think,omitempty"`       // closed-loop: pause between a worker's requests
	Spread      Spread      `toml:"spread,omitempty"`      // closed-loop: workers start spread evenly over this duration; trace: "none" or "uniform"
	File        string      `toml:"file,omitempty"`        // trace: the log, relative to this file; hand: the requests sent, as time_ms,key[,cost]

	// trace: how to read the file (see package traces)
	Format        TraceFormat `toml:"format,omitempty"`         // csv, clf (common, combined) or jsonl; default by the file's extension
	TimeField     string      `toml:"time_field,omitempty"`     // jsonl, csv: default time (a CSV's time_ms)
	TimeFormat    TimeFormat  `toml:"time_format,omitempty"`    // jsonl, csv: auto, ms, rfc3339, unix, unix_ms
	CostField     string      `toml:"cost_field,omitempty"`     // jsonl, csv: default cost
	ReorderWindow *Duration   `toml:"reorder_window,omitempty"` // how far back a line may go; default 5m
	Exclude       []string    `toml:"exclude,omitempty"`        // requests left out: assets, path=GLOB, agent=GLOB, method=GLOB, status=GLOB

	Start Duration  `toml:"start,omitempty"` // default 0
	Stop  *Duration `toml:"stop,omitempty"`  // default: the scenario's duration

	Key             string          `toml:"key,omitempty"`              // one key (default: the client's name); trace: the field(s) naming a client, ip+path
	Keys            int             `toml:"keys,omitempty"`             // or this many: <key_prefix>-0 … -(n-1)
	KeyPrefix       string          `toml:"key_prefix,omitempty"`       // default: the client's name
	KeyDistribution KeyDistribution `toml:"key_distribution,omitempty"` // "uniform" (default) or "zipf"
	ZipfS           float64         `toml:"zipf_s,omitempty"`           // zipf exponent, > 1; default 1.1

	Cost             int64     `toml:"cost,omitempty"`              // default 1
	CostDistribution *CostSpec `toml:"cost_distribution,omitempty"` // instead of a fixed cost

	Deliveries int        `toml:"deliveries,omitempty"` // each event delivered this many times; default 1
	Latency    Duration   `toml:"latency,omitempty"`    // network round trip to the service
	Retry      *RetrySpec `toml:"retry,omitempty"`      // default: never retry
}

// BurstSpec is count requests at `at`, spread evenly over `spread`.
type BurstSpec struct {
	At     Duration `toml:"at,omitempty"`
	Count  int      `toml:"count,omitempty"`
	Spread Duration `toml:"spread,omitempty"`
}

// CostSpec draws costs: uniformly in [min, max], or log-normally around median
// (sigma the spread of its logarithm), clamped to [min, max].
type CostSpec struct {
	Distribution CostDistribution `toml:"distribution,omitempty"` // required: "uniform" or "lognormal"
	Min          int64            `toml:"min,omitempty"`          // default 1
	Max          int64            `toml:"max,omitempty"`          // required
	Median       float64          `toml:"median,omitempty"`       // lognormal
	Sigma        float64          `toml:"sigma,omitempty"`        // lognormal; default 1
}

// RetrySpec is how a client retries.
type RetrySpec struct {
	Policy      RetryPolicy `toml:"policy,omitempty"`       // required: none, immediate, fixed, exponential, retry-after
	Delay       Duration    `toml:"delay,omitempty"`        // fixed delay, first exponential delay, delay after errors; default 100ms
	Cap         Duration    `toml:"cap,omitempty"`          // exponential: the largest delay; default 10s
	Jitter      RetryJitter `toml:"jitter,omitempty"`       // none (default), full, equal, decorrelated (exponential only)
	MaxAttempts int         `toml:"max_attempts,omitempty"` // the first attempt included; default 5
	On          []RetryOn   `toml:"on,omitempty"`           // "deny", "error"; default both

	// The client-side remedies the field uses, each as its source decides
	// (docs/scenarios.md, "Retry remedies"); the clients of one node share
	// their state.
	Budget   *BudgetSpec   `toml:"budget,omitempty"`   // Finagle's retry budget
	Throttle *ThrottleSpec `toml:"throttle,omitempty"` // gRPC's retry throttling
	Adaptive *AdaptiveSpec `toml:"adaptive,omitempty"` // the SRE book's adaptive throttling
	// Envoy's retry budget, as its proxy on the client's node keeps it
	EnvoyBudget *EnvoyBudgetSpec `toml:"envoy_budget,omitempty"`
	// HonourRateLimit: the client reads every answer's RateLimit field and,
	// once it says nothing remains, holds that key's attempts, new or
	// retried, until its reset (sim.Retry.HonourRateLimit); default false
	HonourRateLimit bool `toml:"honour_ratelimit,omitempty"`
}

// EnvoyBudgetSpec is Envoy's retry_budget (circuit breaker thresholds): the
// retries outstanding at most max(budget_percent % of the requests active,
// min_retry_concurrency).
type EnvoyBudgetSpec struct {
	BudgetPercent       *float64 `toml:"budget_percent,omitempty"`        // 0 to 100; default 20
	MinRetryConcurrency *int     `toml:"min_retry_concurrency,omitempty"` // default 3
}

// BudgetSpec is Finagle's RetryBudget: retries at most about percent of the
// requests of the last ttl, plus min_per_second.
type BudgetSpec struct {
	Percent      *float64  `toml:"percent,omitempty"`        // retries per request, 0 to 1000; default 0.2
	MinPerSecond *int      `toml:"min_per_second,omitempty"` // default 10
	TTL          *Duration `toml:"ttl,omitempty"`            // 1s to 60s, whole seconds; default 10s
}

// ThrottleSpec is gRPC's retryThrottling: retries stop once the tokens fall to
// half of max_tokens; a failure takes one, a success gives token_ratio back.
type ThrottleSpec struct {
	MaxTokens  float64 `toml:"max_tokens,omitempty"`  // required, (0, 1000]
	TokenRatio float64 `toml:"token_ratio,omitempty"` // required, > 0, at most 3 decimal places
}

// AdaptiveSpec is the SRE book's client-side throttling: reject locally with
// probability max(0, (requests − k × accepts) / (requests + 1)) over the window.
type AdaptiveSpec struct {
	K      *float64  `toml:"k,omitempty"`      // default 2
	Window *Duration `toml:"window,omitempty"` // whole seconds, 1s to 1h; default 2m
}
