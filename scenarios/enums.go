package scenarios

import (
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"

	"ratelab/algorithms"
	"ratelab/deploy"
	"ratelab/internal/suggest"
	"ratelab/products"
	"ratelab/products/all"
	"ratelab/sim"
	"ratelab/traces"
)

// Every setting with a fixed set of values is a type of its own here, which reads
// its word with UnmarshalText as the file is decoded: a word that is not one of
// its values is an error the decoder places at its line and column, under the
// key it was written for, listing the values there are and the nearest one to a
// misspelling. The types keep the word as written, so a scenario copied through
// TOML (a recorded session) writes back exactly what its file said, and say
// whether the file wrote the setting at all (Set), for the settings whose mere
// presence matters ("clock and on_error apply to backend = \"redis\" lanes
// only").
//
// The words are those the package that defines the value uses (sim.Store's
// String, algorithms.Combines, the registry's names…) wherever it has them; the
// words only a scenario file uses (pattern, the retry policy's) are here.

// word is one value of a setting as a file writes it; gloss, if any, says what
// it means in the list an error shows.
type word[T comparable] struct {
	name  string
	value T
	gloss string
}

// named makes the words of values that name themselves (String).
func named[T interface {
	comparable
	String() string
}](values ...T) []word[T] {
	words := make([]word[T], len(values))
	for i, v := range values {
		words[i] = word[T]{name: v.String(), value: v}
	}
	return words
}

// choice is a setting's value as written: the word ("" when the file leaves the
// setting out) and what it means.
type choice[T comparable] struct {
	word  string
	value T
}

// Value is what the setting means: the default (the zero value) when it is not
// set.
func (c choice[T]) Value() T { return c.value }

// Set says the file writes the setting.
func (c choice[T]) Set() bool { return c.word != "" }

// String is the word as written.
func (c choice[T]) String() string { return c.word }

// MarshalText writes the word as written.
func (c choice[T]) MarshalText() ([]byte, error) { return []byte(c.word), nil }

// read reads b, written for key, as one of words. An error is a parser error
// highlighting b, which is where a bare number sits in the document, so the
// decoder places it as it does its own (for a string it places the string).
func (c *choice[T]) read(b []byte, key string, words []word[T]) error {
	for _, w := range words {
		if string(b) == w.name {
			c.word, c.value = w.name, w.value
			return nil
		}
	}
	return unstable.NewParserError(b, "%s", unknownWord(key, string(b), words))
}

// unknownWord says that got is not one of the words key takes, lists them and
// suggests the nearest: `backend must be one of "memory", "redis" (got "redi");
// did you mean "redis"?`.
func unknownWord[T comparable](key, got string, words []word[T]) string {
	names := make([]string, len(words))
	listed := make([]string, len(words))
	for i, w := range words {
		names[i] = w.name
		listed[i] = fmt.Sprintf("%q", w.name)
		if w.gloss != "" {
			listed[i] += " (" + w.gloss + ")"
		}
	}
	msg := fmt.Sprintf("%s must be one of %s (got %q)", key, strings.Join(listed, ", "), got)
	if near := suggest.Nearest(got, names); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	return msg
}

// choiceOf is the choice that writes value, as code making a scenario (a
// recorded session) needs it; a value with no word is left unset.
func choiceOf[T comparable](value T, words []word[T]) choice[T] {
	for _, w := range words {
		if w.value == value {
			return choice[T]{word: w.name, value: value}
		}
	}
	return choice[T]{}
}

// wordList lists words quoted, for messages: "a", "b", "c".
func wordList[T comparable](words []word[T]) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = fmt.Sprintf("%q", w.name)
	}
	return strings.Join(q, ", ")
}

// Algorithm is a lane's or a limit's algorithm, one of the registry's names.
type Algorithm struct{ choice[algorithms.Name] }

func (a *Algorithm) UnmarshalText(b []byte) error { return a.read(b, "algorithm", algorithmWords()) }

// AlgorithmOf is the setting that names algorithm.
func AlgorithmOf(name algorithms.Name) Algorithm {
	return Algorithm{choiceOf(name, algorithmWords())}
}

func algorithmWords() []word[algorithms.Name] {
	var words []word[algorithms.Name]
	for _, a := range algorithms.All() {
		words = append(words, word[algorithms.Name]{name: string(a.Name), value: a.Name})
	}
	return words
}

// Backend is where a lane keeps its state: "memory" (the default) or "redis".
type Backend struct{ choice[sim.Store] }

var backends = named(sim.InMemory, sim.OnRedis)

func (s *Backend) UnmarshalText(b []byte) error { return s.read(b, "backend", backends) }

// Clock is what stamps a lane's requests: "client" (the requester's node) or
// "server" (the store's own clock: Redis TIME, or in memory the limiter's).
type Clock struct{ choice[sim.Clock] }

var clocks = []word[sim.Clock]{
	{name: sim.ClientClock.String(), value: sim.ClientClock, gloss: "the caller's clock"},
	{name: sim.ServerClock.String(), value: sim.ServerClock, gloss: "the store's: Redis TIME"},
}

func (c *Clock) UnmarshalText(b []byte) error { return c.read(b, "clock", clocks) }

// OnError is what a lane decides when its store fails (Redis failing, or a
// store = "down" change): "closed" or "open".
type OnError struct{ choice[sim.OnError] }

var onErrors = []word[sim.OnError]{
	{name: sim.FailClosed.String(), value: sim.FailClosed, gloss: "deny when the store fails"},
	{name: sim.FailOpen.String(), value: sim.FailOpen, gloss: "allow"},
}

func (o *OnError) UnmarshalText(b []byte) error { return o.read(b, "on_error", onErrors) }

// StoreEvent is a change to every lane's store (sim.StoreChange): "down" (on_error
// decides until it is up), "up", "flushed" (every key lost) or "failover" (the
// replica takes over: a deployment with replica_lag loses the lag's writes,
// any other store every key).
type StoreEvent struct{ choice[sim.StoreChange] }

var storeEvents = []word[sim.StoreChange]{
	{name: sim.StoreDown.String(), value: sim.StoreDown, gloss: "unreachable: on_error decides"},
	{name: sim.StoreUp.String(), value: sim.StoreUp, gloss: "answers again"},
	{name: sim.StoreFlushed.String(), value: sim.StoreFlushed, gloss: "every key lost, as after a failover to an empty replica"},
	{name: sim.StoreFailedOver.String(), value: sim.StoreFailedOver, gloss: "the replica takes over: a deployment with replica_lag loses the lag's writes, any other store every key"},
}

func (e *StoreEvent) UnmarshalText(b []byte) error { return e.read(b, "store", storeEvents) }

// Strategy is how a lane's deciders reach the state: "atomic", "multi" or
// "watch" (algorithms.Strategies).
type Strategy struct{ choice[algorithms.Strategy] }

var strategies = named(algorithms.Atomic, algorithms.Multi, algorithms.Watch)

func (s *Strategy) UnmarshalText(b []byte) error { return s.read(b, "strategy", strategies) }

// WindowStart is where a fixed window's keys start their windows: "epoch" (all
// together) or "random" (each at a share of the period from its hash).
type WindowStart struct{ choice[bool] }

var windowStarts = []word[bool]{{name: "epoch", value: false}, {name: "random", value: true}}

func (w *WindowStart) UnmarshalText(b []byte) error { return w.read(b, "window_start", windowStarts) }

// Random says each key's windows start at a share of the period.
func (w WindowStart) Random() bool { return w.Value() }

// TrackSC is where an HAProxy lane's track-sc0 rule sits relative to its deny:
// "before-deny" (denied requests are counted) or "after-deny".
type TrackSC struct {
	choice[algorithms.HAProxyTrack]
}

var trackSCs = []word[algorithms.HAProxyTrack]{
	{name: algorithms.TrackBeforeDeny.String(), value: algorithms.TrackBeforeDeny, gloss: "denied requests are counted"},
	{name: algorithms.TrackAfterDeny.String(), value: algorithms.TrackAfterDeny, gloss: "only requests let through are counted"},
}

func (t *TrackSC) UnmarshalText(b []byte) error { return t.read(b, "track_sc", trackSCs) }

// Product is the product whose configuration a lane reads (the list of
// products/all).
type Product struct{ choice[*products.Info] }

var productWords = named(all.Products...)

func (p *Product) UnmarshalText(b []byte) error { return p.read(b, "product", productWords) }

// QuotaPeriod is the period of an api-gateway lane's usage-plan quota
// (algorithms.QuotaPeriods).
type QuotaPeriod struct{ choice[algorithms.QuotaPeriod] }

var quotaPeriods = named(algorithms.QuotaDay, algorithms.QuotaWeek, algorithms.QuotaMonth)

func (q *QuotaPeriod) UnmarshalText(b []byte) error { return q.read(b, "quota_period", quotaPeriods) }

// ShardPick is how a sharded lane picks a request's shard (algorithms.ShardPicks).
type ShardPick struct{ choice[algorithms.ShardPick] }

var shardPicks = named(algorithms.PickRandom, algorithms.PickTwoChoices)

func (p *ShardPick) UnmarshalText(b []byte) error { return p.read(b, "shard_pick", shardPicks) }

// Balance is how a load balancer spreads a lane's requests over its instances
// (sim.Balance): "round-robin", "random" or "weighted".
type Balance struct{ choice[sim.Balance] }

var balances = []word[sim.Balance]{
	{name: sim.BalanceRoundRobin.String(), value: sim.BalanceRoundRobin, gloss: "in turn"},
	{name: sim.BalanceRandom.String(), value: sim.BalanceRandom},
	{name: sim.BalanceWeighted.String(), value: sim.BalanceWeighted, gloss: "in the shares of weights"},
	{name: sim.BalanceHash.String(), value: sim.BalanceHash, gloss: "consistent hashing of the key"},
	{name: sim.BalanceSticky.String(), value: sim.BalanceSticky, gloss: "each client to one instance"},
}

func (b *Balance) UnmarshalText(text []byte) error { return b.read(text, "balance", balances) }

// Sync is a deployed lane's sync protocol (deploy.Protocol).
type Sync struct{ choice[deploy.Protocol] }

var syncs = named(deploy.Local, deploy.Share, deploy.Central, deploy.KongSync, deploy.KongSyncPre11859, deploy.HAProxyPeers, deploy.GubernatorGlobal, deploy.GubernatorGlobalPre219, deploy.HAProxyPeersSum, deploy.ReplicaReads)

func (s *Sync) UnmarshalText(text []byte) error { return s.read(text, "sync", syncs) }

// PerInstance is what each instance of a lane kept per instance holds
// (sim.PerInstance): "whole" (the lane's policy) or "share" (a share of it).
type PerInstance struct{ choice[sim.PerInstance] }

var perInstances = []word[sim.PerInstance]{
	{name: sim.InstanceWhole.String(), value: sim.InstanceWhole, gloss: "the lane's whole policy, each"},
	{name: sim.InstanceShare.String(), value: sim.InstanceShare, gloss: "the policy divided by the instances"},
}

func (p *PerInstance) UnmarshalText(text []byte) error {
	return p.read(text, "per_instance", perInstances)
}

// Combine is how a multi-limit lane combines its limits (algorithms.Combines).
type Combine struct{ choice[algorithms.Combine] }

var combines = named(algorithms.InOrder, algorithms.CheckThenConsume, algorithms.AllOrNothing)

func (c *Combine) UnmarshalText(b []byte) error { return c.read(b, "combine", combines) }

// KongPolicy is a kong lane's config.policy (algorithms.KongPolicies).
type KongPolicy struct{ choice[algorithms.KongPolicy] }

var kongPolicies = named(algorithms.KongLocal, algorithms.KongCluster, algorithms.KongRedis)

func (k *KongPolicy) UnmarshalText(b []byte) error { return k.read(b, "kong_policy", kongPolicies) }

// Headers is the family of a lane's rate-limit headers (algorithms.HeaderFamilies).
type Headers struct {
	choice[algorithms.HeaderFamily]
}

var headerFamilies = named(algorithms.HeadersDraft, algorithms.HeadersLegacy, algorithms.HeadersX, algorithms.HeadersEnvoy, algorithms.HeadersSpring, algorithms.HeadersTraefik, algorithms.HeadersKong)

func (h *Headers) UnmarshalText(b []byte) error { return h.read(b, "headers", headerFamilies) }

// pattern is how a client sends: a scenario file's word for one of sim's
// patterns.
type pattern int

const (
	noPattern pattern = iota
	patternConstant
	patternPoisson
	patternBursts
	patternRamp
	patternClosedLoop
	patternTrace
	patternHand
)

var patterns = []word[pattern]{
	{name: "constant", value: patternConstant}, {name: "poisson", value: patternPoisson}, {name: "bursts", value: patternBursts},
	{name: "ramp", value: patternRamp}, {name: "closed-loop", value: patternClosedLoop}, {name: "trace", value: patternTrace},
	{name: "hand", value: patternHand},
}

// Pattern is a client's traffic pattern: constant, poisson, bursts, ramp,
// closed-loop, trace or hand.
type Pattern struct{ choice[pattern] }

func (p *Pattern) UnmarshalText(b []byte) error { return p.read(b, "pattern", patterns) }

// KeyDistribution is how a client with several keys picks one: "uniform" or
// "zipf" (true).
type KeyDistribution struct{ choice[bool] }

var keyDistributions = []word[bool]{{name: "uniform", value: false}, {name: "zipf", value: true}}

func (k *KeyDistribution) UnmarshalText(b []byte) error {
	return k.read(b, "key_distribution", keyDistributions)
}

// Zipf says keys are picked by a Zipf law.
func (k KeyDistribution) Zipf() bool { return k.Value() }

// CostDistribution is how a client's costs are drawn: "uniform" or "lognormal".
type CostDistribution struct{ choice[sim.CostDist] }

var costDistributions = []word[sim.CostDist]{{name: "uniform", value: sim.CostUniform}, {name: "lognormal", value: sim.CostLogNormal}}

func (d *CostDistribution) UnmarshalText(b []byte) error {
	return d.read(b, "distribution", costDistributions)
}

// RetryPolicy is how long a client waits before it tries again.
type RetryPolicy struct{ choice[sim.RetryPolicy] }

var retryPolicies = []word[sim.RetryPolicy]{
	{name: "none", value: sim.RetryNone}, {name: "immediate", value: sim.RetryImmediate}, {name: "fixed", value: sim.RetryFixed},
	{name: "exponential", value: sim.RetryExponential}, {name: "retry-after", value: sim.RetryHonour, gloss: "what Retry-After says"},
}

func (p *RetryPolicy) UnmarshalText(b []byte) error { return p.read(b, "policy", retryPolicies) }

// RetryJitter is how a client randomises its waits: "none", "full", "equal" or
// "decorrelated".
type RetryJitter struct{ choice[sim.Jitter] }

var retryJitters = []word[sim.Jitter]{
	{name: "none", value: sim.JitterNone}, {name: "full", value: sim.JitterFull, gloss: "uniform in [0, wait)"},
	{name: "equal", value: sim.JitterEqual, gloss: "wait/2 + uniform in [0, wait/2)"},
	{name: "decorrelated", value: sim.JitterDecorrelated, gloss: "uniform in [delay, 3 × the last wait), at most cap"},
}

func (j *RetryJitter) UnmarshalText(b []byte) error { return j.read(b, "jitter", retryJitters) }

// retryOn is what a client retries.
type retryOn int

const (
	retryOnDeny retryOn = iota + 1
	retryOnError
)

var retryOns = []word[retryOn]{
	{name: "deny", value: retryOnDeny, gloss: "a 429"}, {name: "error", value: retryOnError, gloss: "a backend failure"},
}

// RetryOn is one of what a client retries: "deny" or "error".
type RetryOn struct{ choice[retryOn] }

func (o *RetryOn) UnmarshalText(b []byte) error { return o.read(b, "on", retryOns) }

// ClockFix is a change to every token-bucket lane's timestamp fix: "on", "off"
// or "as-configured".
type ClockFix struct{ choice[sim.ClockFix] }

var clockFixes = named(sim.FixOn, sim.FixOff, sim.FixAsConfigured)

func (f *ClockFix) UnmarshalText(b []byte) error { return f.read(b, "clock_fix", clockFixes) }

// Op is a claim's comparison (sim.Ops).
type Op struct{ choice[string] }

func (o *Op) UnmarshalText(b []byte) error {
	var words []word[string]
	for _, op := range sim.Ops {
		words = append(words, word[string]{name: op, value: op})
	}
	return o.read(b, "op", words)
}

// ClaimKind is what kind of fact a claim states (sim.ClaimKind): "fact" (the
// default) or "invariant".
type ClaimKind struct{ choice[sim.ClaimKind] }

var claimKinds = named(sim.Fact, sim.Invariant)

func (k *ClaimKind) UnmarshalText(b []byte) error { return k.read(b, "kind", claimKinds) }

// TraceFormat is a trace file's format (traces.ParseFormat): csv, clf (or
// common, combined) or jsonl (or ndjson).
type TraceFormat struct{ choice[traces.Format] }

func (f *TraceFormat) UnmarshalText(b []byte) error {
	v, err := traces.ParseFormat(string(b))
	if err != nil {
		return unstable.NewParserError(b, "%v", err)
	}
	f.word, f.value = string(b), v
	return nil
}

// TimeFormat is how a trace's time field is written (traces.ParseTimeFormat).
type TimeFormat struct{ choice[traces.TimeFormat] }

func (f *TimeFormat) UnmarshalText(b []byte) error {
	v, err := traces.ParseTimeFormat(string(b))
	if err != nil {
		return unstable.NewParserError(b, "%v", err)
	}
	f.word, f.value = string(b), v
	return nil
}
