package scenarios

// File is a scenario file: any number of [[scenario]] tables. Every key below is
// optional unless its comment says otherwise; an unknown key is an error, with its
// line and column. The README's "Scenario files" section is the guide to this
// schema, and scenarios.toml its worked examples.
type File struct {
	Scenarios []Scenario `toml:"scenario"`
}

// Scenario is one lesson: traffic, the limit, and the lanes that face it.
type Scenario struct {
	Name   string `toml:"name"`   // required: lowercase letters, digits and dashes
	Title  string `toml:"title"`  // one line
	Lesson string `toml:"lesson"` // a paragraph: what to look at

	Duration Duration `toml:"duration"` // required: virtual time covered, up to 24h
	Tick     Duration `toml:"tick"`     // series resolution; default 10ms up to 20s, 100ms up to 200s, else 1s
	Seed     *uint64  `toml:"seed"`     // default 1
	WatchKey string   `toml:"watch_key"`

	Policy  *PolicySpec  `toml:"policy"` // required: the limit every lane enforces
	Tiers   []TierSpec   `toml:"tier"`
	Lanes   []LaneSpec   `toml:"lane"` // default: every algorithm with the policy
	Nodes   []NodeSpec   `toml:"node"` // default: one node, "app", with a true clock
	Clients []ClientSpec `toml:"client"`
	Backend *BackendSpec `toml:"backend"`
	Claims  []ClaimSpec  `toml:"claim"` // the lesson's facts, checked on every run
}

// ClaimSpec is one fact the lesson states, as data: a metric of one or more lanes
// compared with a number or with another lane's, checked on every run and shown
// with ✓ or ✗. The lesson cites it as [id].
type ClaimSpec struct {
	ID    string   `toml:"id"`    // required: letters, digits, dashes; cited as [id]
	Says  string   `toml:"says"`  // required: the sentence it supports
	Lane  string   `toml:"lane"`  // the lane (name or algorithm), or
	Lanes []string `toml:"lanes"` // several lanes, each of which must satisfy it

	Metric string   `toml:"metric"` // required: a metric's JSON name (see ratelab run --explain)
	Op     string   `toml:"op"`     // required: <, <=, ==, !=, >=, >
	Value  *float64 `toml:"value"`  // the number compared with, or
	Than   string   `toml:"than"`   // another lane: compared with times × its metric
	Times  *float64 `toml:"times"`  // default 1

	// A scope counts only some decisions (metric attempts, accepted, denied,
	// offered or denied_share): of these clients, of keys with this prefix,
	// landed within [from, to).
	Clients   []string  `toml:"clients"`
	KeyPrefix string    `toml:"key_prefix"`
	From      *Duration `toml:"from"`
	To        *Duration `toml:"to"`
}

// PolicySpec is a limit: Limit units per Period, Burst at once.
type PolicySpec struct {
	Limit            int64    `toml:"limit"`              // required, > 0
	Period           Duration `toml:"period"`             // default 1s
	Burst            int64    `toml:"burst"`              // default: limit
	RetryAfterJitter float64  `toml:"retry_after_jitter"` // 0 to 1: per-key jitter on Retry-After
}

// TierSpec is a named policy that clients can be put in ("free", "enterprise").
type TierSpec struct {
	Name string `toml:"name"` // required
	PolicySpec
}

// LaneSpec is one limiter under test.
type LaneSpec struct {
	Name      string `toml:"name"`      // default: the algorithm's name
	Algorithm string `toml:"algorithm"` // required: fixed-window, sliding-log, …, x-time-rate

	// Overrides of the scenario's policy (tier "default") for this lane.
	Limit            *int64    `toml:"limit"`
	Period           *Duration `toml:"period"`
	Burst            *int64    `toml:"burst"`
	RetryAfterJitter *float64  `toml:"retry_after_jitter"`

	WindowStart        string `toml:"window_start"`        // fixed-window: "epoch" (default) or "random"
	Rollover           int64  `toml:"rollover"`            // fixed-window: most unused units carried over
	Mode               string `toml:"mode"`                // leaky-bucket: "queue" (default) or "meter"
	MonotonicTimestamp *bool  `toml:"monotonic_timestamp"` // token-bucket: store max(now, ts); default true
	MaxReserved        int64  `toml:"max_reserved"`        // token-bucket: reservations this deep

	Strategy     string    `toml:"strategy"`      // "atomic" (default), "multi" or "watch"
	RoundTrip    *Duration `toml:"round_trip"`    // to the store and back; default 0 in memory, 1ms on Redis
	WatchRetries *int      `toml:"watch_retries"` // default 20

	Backend string `toml:"backend"`  // "memory" (default) or "redis"
	Clock   string `toml:"clock"`    // redis: "client" (default) or "server"
	OnError string `toml:"on_error"` // redis: "closed" (default: deny) or "open" (allow)

	Shards    *int   `toml:"shards"`     // split the limit into this many shards of 1/shards each; default 1
	ShardPick string `toml:"shard_pick"` // "random" (default) or "two-choices"

	Limits  []LimitSpec         `toml:"limits"`  // hold each request to several limits (a multi-limit lane)
	Combine string              `toml:"combine"` // "in-order" (default), "check-then-consume", "all-or-nothing"
	Order   map[string][]string `toml:"order"`   // per client: the limits' order, by name (in-order)

	Headers string `toml:"headers"` // "draft" (default), "legacy", "x-ratelimit"
}

// LimitSpec is one of the limits a multi-limit lane holds each request to: its
// own algorithm, policy and key, and what a request costs it.
type LimitSpec struct {
	Name      string    `toml:"name"`      // its policy's name in headers; default limit-1, limit-2…
	Algorithm string    `toml:"algorithm"` // default: the lane's
	Limit     *int64    `toml:"limit"`     // the policy; default the lane's
	Period    *Duration `toml:"period"`
	Burst     *int64    `toml:"burst"`
	Key       string    `toml:"key"`  // key template: {key} is the request's key; default "{key}"
	Cost      any       `toml:"cost"` // units a request takes: a number, or "cost" (the request's; default)
}

// NodeSpec is an application node and its clock.
type NodeSpec struct {
	Name     string   `toml:"name"`      // required
	Offset   Duration `toml:"offset"`    // how far its clock is ahead (negative: behind)
	DriftPPM float64  `toml:"drift_ppm"` // how fast it drifts, in parts per million
}

// BackendSpec is the service behind the limiter.
type BackendSpec struct {
	Concurrency int      `toml:"concurrency"`  // required: requests served at once
	ServiceTime Duration `toml:"service_time"` // required: time to serve one
	Queue       int      `toml:"queue"`        // requests that may wait
	Timeout     Duration `toml:"timeout"`      // a request that waited longer fails
}

// ClientSpec is one source of traffic.
type ClientSpec struct {
	Name    string `toml:"name"`    // required
	Node    string `toml:"node"`    // default: the first node
	Tier    string `toml:"tier"`    // default: "default", the scenario's policy
	Pattern string `toml:"pattern"` // required: constant, poisson, bursts, ramp, closed-loop, trace

	Rate        float64     `toml:"rate"`        // constant, poisson, ramp (start): requests per `per`
	RateTo      float64     `toml:"rate_to"`     // ramp: the rate at stop
	Per         Duration    `toml:"per"`         // the rate's period; default 1s
	Bursts      []BurstSpec `toml:"bursts"`      // bursts
	Concurrency int         `toml:"concurrency"` // closed-loop: workers
	Think       Duration    `toml:"think"`       // closed-loop: pause between a worker's requests
	Spread      Duration    `toml:"spread"`      // closed-loop: workers start spread evenly over this
	File        string      `toml:"file"`        // trace: CSV path, relative to this file

	Start Duration  `toml:"start"` // default 0
	Stop  *Duration `toml:"stop"`  // default: the scenario's duration

	Key             string  `toml:"key"`              // one key (default: the client's name)
	Keys            int     `toml:"keys"`             // or this many: <key_prefix>-0 … -(n-1)
	KeyPrefix       string  `toml:"key_prefix"`       // default: the client's name
	KeyDistribution string  `toml:"key_distribution"` // "uniform" (default) or "zipf"
	ZipfS           float64 `toml:"zipf_s"`           // zipf exponent, > 1; default 1.1

	Cost             int64     `toml:"cost"`              // default 1
	CostDistribution *CostSpec `toml:"cost_distribution"` // instead of a fixed cost

	Deliveries int        `toml:"deliveries"` // each event delivered this many times; default 1
	Latency    Duration   `toml:"latency"`    // network round trip to the service
	Retry      *RetrySpec `toml:"retry"`      // default: never retry
}

// BurstSpec is count requests at `at`, spread evenly over `spread`.
type BurstSpec struct {
	At     Duration `toml:"at"`
	Count  int      `toml:"count"`
	Spread Duration `toml:"spread"`
}

// CostSpec draws costs: uniformly in [min, max], or log-normally around median
// (sigma the spread of its logarithm), clamped to [min, max].
type CostSpec struct {
	Distribution string  `toml:"distribution"` // "uniform" or "lognormal"
	Min          int64   `toml:"min"`          // default 1
	Max          int64   `toml:"max"`          // required
	Median       float64 `toml:"median"`       // lognormal
	Sigma        float64 `toml:"sigma"`        // lognormal; default 1
}

// RetrySpec is how a client retries.
type RetrySpec struct {
	Policy      string   `toml:"policy"`       // none, immediate, fixed, exponential, retry-after
	Delay       Duration `toml:"delay"`        // fixed delay, first exponential delay, delay after errors; default 100ms
	Cap         Duration `toml:"cap"`          // exponential: the largest delay; default 10s
	Jitter      string   `toml:"jitter"`       // none (default), full, equal
	MaxAttempts int      `toml:"max_attempts"` // the first attempt included; default 5
	On          []string `toml:"on"`           // "deny", "error"; default both
}
