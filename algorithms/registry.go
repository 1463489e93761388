package algorithms

import (
	"fmt"
	"slices"
	"strings"

	"ratelab/internal/suggest"
)

// Name is an algorithm's name as written in scenario files and on the command line
// ("token-bucket"). Each algorithm declares its Name constant in its own file; no
// other package spells one (a test checks).
type Name string

// Shape is what an algorithm's state measures, which decides what its Level means,
// what its capacity is, and what it promises over any span of time.
type Shape int

const (
	// ShapeBucket: a balance of tokens refilled at the rate (token bucket, GCRA,
	// x/time/rate). Level is the tokens left; capacity is the burst; over any span
	// T it admits at most burst + rate × T.
	ShapeBucket Shape = iota
	// ShapeLeaky: a level that drains at the rate (leaky bucket). Level is the units in
	// the bucket (the queue's length in queue mode); capacity is the burst.
	ShapeLeaky
	// ShapeFixedWindow: a count per window of one period. Level is the units in the
	// current window; capacity is the limit plus any rollover; across a window
	// boundary it may admit twice its capacity in an instant.
	ShapeFixedWindow
	// ShapeSlidingWindow: the units of the last period, kept exactly (sliding log) or
	// estimated from two windows (sliding counter). Level is the units in the
	// window; capacity is the limit.
	ShapeSlidingWindow
	// ShapeNone: no limit (the baseline lane). It holds nothing; what it shows is
	// the load on the service behind it.
	ShapeNone
)

// Info is what ratelab knows about one algorithm: its name, its shape, what it can
// do, and how to build it. It is the one place these facts are written; the
// scenario compiler, the engine, the Redis ports, tune, the UI and the docs read it.
// docs/adding-an-algorithm.md says how to add one.
type Info struct {
	// Name as used in scenario files and on the command line.
	Name Name
	// Short is the name in a few cells, for a panel too narrow for a lane's whole
	// name ("tb" for token-bucket).
	Short string
	Shape Shape
	// Exact says the algorithm enforces its policy exactly in every window
	// (sliding-log); an estimate (sliding-counter) may stray a little.
	Exact bool
	// Anchored says its windows start at each key's first request and move with
	// the key's traffic (HAProxy's stick-table counters), not on the origin's
	// grid, so no window boundaries are drawn for it.
	Anchored bool
	// Options are the scenario keys it takes beyond the policy, each declared in
	// the algorithm's own file; Options.Check refuses any other set for it.
	Options []Option
	// Defaults are the options a lane running it has when its file sets none
	// (the token bucket's timestamp fix is on).
	Defaults Options
	// Redis is its port to Redis (algorithms/redislua runs it): its Lua script and
	// how the script is called and answered; nil when it has none.
	Redis *RedisPort
	// Split takes its decision apart into read, decide and write, for the
	// non-atomic strategies (multi, watch); nil when its state is not one value a
	// client can read and write back.
	Split Split
	// DefaultLane says a scenario that lists no lanes runs it. Adding one changes
	// the output of every such scenario, so a new algorithm is not a default
	// lane unless that is meant.
	DefaultLane bool
	// Tuned says ratelab tune sweeps it unless told otherwise: the others decide
	// as one of these does (gcra and x-time-rate as the token bucket), shape
	// rather than refuse (the leaky bucket's queue), or do not limit.
	Tuned bool
	// Baseline marks the no-limit lane, which is not a limiter (nor a limit of a
	// multi-limit lane).
	Baseline bool
	// CheckPolicy refuses a policy the algorithm cannot enforce as its product
	// writes it, with the lane's options (nginx: a rate per second or per
	// minute only), naming the fix; an *OptionError when an option is at fault.
	// nil: every policy that passes Policy.Validate.
	CheckPolicy func(Policy, Options) error
	// Status is a product lane's answer to a decision: the HTTP status the
	// product sends (a refusal's is the lane's deny_status, or the product's
	// default) and the word it logs (nginx's $limit_req_status: PASSED,
	// DELAYED, REJECTED, DELAYED_DRY_RUN, REJECTED_DRY_RUN). nil for an
	// algorithm that is not a product's; a run with a lane that has one adds
	// the request CSV's http_status and product_status columns.
	Status func(d Decision, o Options) (code int, word string)
	// NoHeaders says the product sends no rate-limit headers (nginx's
	// limit_req): its lanes show none, and a lane's headers key is refused.
	NoHeaders bool
	// CountsRequests says the product counts requests, not units: every
	// request is one, whatever it costs (nginx's limit_req, HAProxy's
	// http_req_rate, Kong, Traefik, API Gateway's throttle). A request that
	// costs more is no request the product sees, so a scenario whose client
	// may send one is refused for its lanes (the scenario compiler).
	CountsRequests bool
	// Headers is the family its lanes send when the lane's headers key names
	// none: the product's own (kong's); the zero value, the draft's.
	Headers HeaderFamily
	// OnCredit says the limiter accepts a request whenever it owes nothing, however
	// much the request costs, the requests after it paying for what the bucket
	// lacked (Guava's RateLimiter): it may admit more than burst + rate × T in a
	// span, by design, and its verdict says how rather than "contract broken".
	OnCredit bool
	// Windows, for a product that enforces several windows at once and answers
	// for each (Decision.Windows: Kong), are those windows for p and o as
	// quotas (the name its headers give a window, its policy), in the order of
	// the answers; nil for every other algorithm.
	Windows func(p Policy, o Options) []Quota

	build func(Policy, Options) Limiter
}

// registry lists the algorithms in the order lanes are shown. Each entry's facts
// are declared beside the algorithm, in its own file.
var registry = []Info{
	{Name: FixedWindowName, Short: "fw", Shape: ShapeFixedWindow, Options: fixedWindowOptions, Redis: fixedWindowPort, DefaultLane: true, Tuned: true,
		build: func(p Policy, o Options) Limiter { return NewFixedWindow(p, o.RandomStart, o.Rollover) }},
	{Name: SlidingLogName, Short: "log", Shape: ShapeSlidingWindow, Exact: true, Redis: slidingLogPort, DefaultLane: true, Tuned: true,
		build: func(p Policy, _ Options) Limiter { return NewSlidingLog(p) }},
	{Name: SlidingCounterName, Short: "counter", Shape: ShapeSlidingWindow, Redis: slidingCounterPort, DefaultLane: true, Tuned: true,
		build: func(p Policy, _ Options) Limiter { return NewSlidingCounter(p) }},
	{Name: LeakyBucketName, Short: "leaky", Shape: ShapeLeaky, Options: leakyBucketOptions, Redis: leakyBucketPort, DefaultLane: true,
		build: func(p Policy, o Options) Limiter { return NewLeakyBucket(p, o.Mode) }},
	{Name: TokenBucketName, Short: "tb", Shape: ShapeBucket, Options: tokenBucketOptions, Defaults: Options{MonotonicTimestamp: true},
		Redis: tokenBucketPort, Split: tokenBucketSplit, DefaultLane: true, Tuned: true,
		build: func(p Policy, o Options) Limiter { return NewTokenBucket(p, o.MonotonicTimestamp, o.MaxReserved) }},
	{Name: GCRAName, Short: "gcra", Shape: ShapeBucket, Redis: gcraPort, Split: gcraSplit, DefaultLane: true,
		build: func(p Policy, _ Options) Limiter { return NewGCRA(p) }},
	{Name: XTimeRateName, Short: "xrate", Shape: ShapeBucket, DefaultLane: true,
		build: func(p Policy, _ Options) Limiter { return NewXTimeRate(p) }},
	{Name: GuavaName, Short: "guava", Shape: ShapeBucket, Options: guavaOptions, OnCredit: true,
		build: func(p Policy, o Options) Limiter { return NewGuava(p, o.Warmup, o.AcquireTimeout) }},
	{Name: EnvoyLocalName, Short: "envoy", Shape: ShapeBucket, Options: envoyLocalOptions,
		build: func(p Policy, o Options) Limiter {
			timer, _ := EnvoyTimerBucket(o.EnvoyVersion) // Options.Check read it
			return NewEnvoyLocal(p, timer, o.ConfigLoadAt)
		}},
	{Name: HAProxyName, Short: "haproxy", CountsRequests: true, Shape: ShapeSlidingWindow, Anchored: true, Options: haproxyOptions, Status: haproxyStatus,
		build: func(p Policy, o Options) Limiter {
			rel, _ := ParseHAProxyVersion(o.HAProxyVersion) // Options.Check read it
			return NewHAProxy(p, o.TrackSC, o.Expire, rel)
		}},
	{Name: NginxName, Short: "nginx", CountsRequests: true, Shape: ShapeLeaky, Options: nginxOptions, CheckPolicy: CheckNginxPolicy,
		Status: nginxStatus, NoHeaders: true,
		build: func(p Policy, o Options) Limiter { return NewNginx(p, o) }},
	{Name: EnvoyGlobalName, Short: "envoy-g", Shape: ShapeFixedWindow, Options: envoyGlobalOptions, Redis: envoyGlobalPort,
		Status: envoyGlobalStatus, CheckPolicy: CheckEnvoyGlobalPolicy,
		build: func(p Policy, o Options) Limiter { return NewEnvoyGlobal(p, o.ShadowMode, HeaderOrigin) }},
	{Name: CloudflareName, Short: "cf", Shape: ShapeSlidingWindow, Options: cloudflareOptions,
		Status: cloudflareStatus, CheckPolicy: CheckCloudflarePolicy,
		build: func(p Policy, o Options) Limiter { return NewCloudflare(p, o.MitigationTimeout, o.CountBlocked) }},
	{Name: APIGatewayName, Short: "apigw", CountsRequests: true, Shape: ShapeBucket, Options: apiGatewayOptions,
		Status: apiGatewayStatus, CheckPolicy: CheckAPIGatewayPolicy,
		build: func(p Policy, o Options) Limiter {
			return NewAPIGateway(p, o.QuotaLimit, o.QuotaPeriod, o.QuotaOffset, HeaderOrigin)
		}},
	{Name: SpringName, Short: "spring", Shape: ShapeBucket, Options: springOptions, Redis: springPort, Status: springStatus, CheckPolicy: checkSpringPolicy,
		Headers: HeadersSpring,
		build:   func(p Policy, _ Options) Limiter { return NewSpring(p) }},
	{Name: TraefikName, Short: "traefik", CountsRequests: true, Shape: ShapeBucket, Status: traefikStatus, CheckPolicy: checkTraefikPolicy,
		Headers: HeadersTraefik,
		build:   func(p Policy, _ Options) Limiter { return NewTraefik(p) }},
	{Name: TraefikRedisName, Short: "traef-r", CountsRequests: true, Shape: ShapeBucket, Redis: traefikRedisPort, Status: traefikStatus, CheckPolicy: checkTraefikPolicy,
		Headers: HeadersTraefik,
		build:   func(p Policy, _ Options) Limiter { return NewTraefikRedis(p) }},
	{Name: KongName, Short: "kong", CountsRequests: true, Shape: ShapeFixedWindow, Options: kongOptions, Status: kongStatus, CheckPolicy: checkKongPolicy,
		Headers: HeadersKong, Windows: kongWindowQuotas,
		build: func(p Policy, o Options) Limiter { return NewKong(p, o) }},
	{Name: GubernatorName, Short: "guber", Shape: ShapeFixedWindow, Anchored: true,
		build: func(p Policy, _ Options) Limiter { return NewGubernator(p) }},
	{Name: UnlimitedName, Short: "none", Shape: ShapeNone, Baseline: true,
		build: func(p Policy, _ Options) Limiter { return NewUnlimited(p) }},
}

// SendsHeaders says a lane running it with options o sends rate-limit
// headers: not a product that sends none (NoHeaders), nor one told to hide
// them (Kong's hide_client_headers).
func (i Info) SendsHeaders(o Options) bool { return !i.NoHeaders && !o.HideClientHeaders }

// HasBurst says the algorithm holds a burst apart from its rate (the buckets,
// GCRA, x/time/rate, the leaky bucket); the windows enforce a limit per period
// only, and the no-limit lane nothing.
func (i Info) HasBurst() bool { return i.Shape == ShapeBucket || i.Shape == ShapeLeaky }

// GridWindows says the algorithm counts in windows on the origin's grid (each
// key's offset from it with random starts): the fixed window and the sliding
// counter, whose window boundaries the charts and the UI mark.
func (i Info) GridWindows() bool {
	return !i.Anchored && (i.Shape == ShapeFixedWindow || (i.Shape == ShapeSlidingWindow && !i.Exact))
}

// Splittable says the state is one value a client can read and write back, so
// the non-atomic strategies (multi, watch) apply.
func (i Info) Splittable() bool { return i.Split != nil }

// LevelName says what Level measures, for a graph's axis: "tokens left",
// "queue length", "units in the window".
func (i Info) LevelName() string {
	switch i.Shape {
	case ShapeBucket:
		return "tokens left"
	case ShapeLeaky:
		return "units queued"
	case ShapeNone:
		return "nothing (no limit)"
	}
	return "units in the window"
}

// TakesOption says the algorithm takes the scenario key named key.
func (i Info) TakesOption(key string) bool {
	return slices.ContainsFunc(i.Options, func(o Option) bool { return o.Key == key })
}

// All lists every algorithm, in the order lanes are shown.
func All() []Info { return append([]Info(nil), registry...) }

// Limiters lists the names of the algorithms that limit (all but the no-limit
// baseline), in the order lanes are shown.
func Limiters() []Name { return Where(func(a Info) bool { return !a.Baseline }) }

// DefaultLanes lists the algorithms a scenario that lists no lanes runs, in the
// order lanes are shown.
func DefaultLanes() []Name { return Where(func(a Info) bool { return a.DefaultLane }) }

// Tuned lists the algorithms ratelab tune sweeps unless told otherwise, in the
// order lanes are shown.
func Tuned() []Name { return Where(func(a Info) bool { return a.Tuned }) }

// Where lists the names of the algorithms for which keep is true, in the order
// lanes are shown.
func Where(keep func(Info) bool) []Name {
	var names []Name
	for _, a := range registry {
		if keep(a) {
			names = append(names, a.Name)
		}
	}
	return names
}

// Names lists every algorithm's name, in the order lanes are shown.
func Names() []Name { return Where(func(Info) bool { return true }) }

// Join writes names as a list: "a, b, c" with sep ", ", "a and b" with " and ".
func Join(names []Name, sep string) string { return strings.Join(nameStrings(names), sep) }

// Lookup returns the algorithm called name.
func Lookup(name Name) (Info, bool) {
	for _, a := range registry {
		if a.Name == name {
			return a, true
		}
	}
	return Info{}, false
}

// Get returns the algorithm called name, or an error listing the known names
// and the nearest one to a misspelling.
func Get(name Name) (Info, error) {
	if a, ok := Lookup(name); ok {
		return a, nil
	}
	if near := suggest.Nearest(string(name), nameStrings(Names())); near != "" {
		return Info{}, fmt.Errorf("unknown algorithm %q; did you mean %q? known: %s", name, near, Join(Names(), ", "))
	}
	return Info{}, fmt.Errorf("unknown algorithm %q; known: %s", name, Join(Names(), ", "))
}

// MustLookup returns the algorithm called name, which the caller names by its
// constant; it panics on a name not in the registry (a programming error).
func MustLookup(name Name) Info {
	a, ok := Lookup(name)
	if !ok {
		panic(fmt.Sprintf("algorithms: %q is not registered", name))
	}
	return a
}

// New returns the limiter called name enforcing p with opts. The policy must have
// passed Validate.
func New(name Name, p Policy, opts Options) (Limiter, error) {
	a, err := Get(name)
	if err != nil {
		return nil, err
	}
	if err := opts.Check(name); err != nil {
		return nil, err
	}
	if a.CheckPolicy != nil {
		if err := a.CheckPolicy(p.WithDefaults(), opts); err != nil {
			return nil, err
		}
	}
	return a.build(p, opts), nil
}

// Capacity is the most units the algorithm accepts at one instant from an idle
// key: the burst for the buckets, GCRA and the leaky bucket, the limit for the
// sliding windows, the limit plus the rollover for the fixed window. A request
// costing more is never accepted; the theoretical maximum over a span T is
// Capacity + rate × T. An unknown name has the burst.
func Capacity(name Name, p Policy, o Options) int64 {
	p = p.WithDefaults()
	a, _ := Lookup(name)
	switch a.Shape {
	case ShapeFixedWindow:
		return p.Limit + o.Rollover
	case ShapeSlidingWindow:
		return p.Limit
	}
	return p.Burst
}

func nameStrings(names []Name) []string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return s
}
