package sim

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/format"
)

// A lesson's factual claims are data: each names lanes, a metric, a comparison and
// a number or another lane, and the sentence of the lesson it supports. The run
// being shown says whether each holds, so a teacher sees at once which sentences
// the numbers back — after the policy was adjusted, too.

// Claim is one checked fact of a lesson.
type Claim struct {
	ID   string // what the lesson cites: [id]
	Says string // the sentence it supports
	// Lanes are the lanes it is about, by index; it holds when it holds for each.
	Lanes  []int
	Metric string // a Metrics JSON name, or a scoped count (see ScopedMetrics)
	Op     string // <, <=, ==, !=, >=, >
	// Value is the number compared with, unless Than >= 0: then Times × the same
	// metric of lane Than.
	Value float64
	Than  int
	Times float64
	// Scope, if >= 0, is the index in Config.Scopes of the decisions counted.
	Scope int
	// Policy is the default tier's policy the claim was written for; when the run's
	// differs (the UI's [ ] { } keys), the claim says so beside its result.
	Policy algorithms.Policy
	// Unexercised says the run has an exercise's change to its lanes, clients
	// or backend that the claim was not written for (the lesson's claims on
	// ratelab run --exercise); the claim says so beside its result.
	Unexercised bool
	// Kind says what kind of fact it is: a fact of this traffic, which a broken
	// lane (allow-all, deny-all, half or twice the policy) would turn false, or an
	// invariant of the algorithm, which holds on any traffic and is checked on
	// traffic that pushes against it.
	Kind ClaimKind
}

// ClaimKind is what kind of fact a claim states.
type ClaimKind int

const (
	// Fact: true of this scenario's traffic, false for a broken lane.
	Fact ClaimKind = iota
	// Invariant: true by the algorithm's design on any traffic ("never more
	// than burst + rate × T"); checked on traffic offered well above what it
	// allows.
	Invariant
)

// String is the kind's name in scenario files.
func (k ClaimKind) String() string { return [...]string{"fact", "invariant"}[k] }

// Scope is a part of a lane's decisions: those of some clients, of keys with a
// prefix, landed within [From, To).
type Scope struct {
	Clients   []int // nil: every client
	KeyPrefix string
	From, To  time.Duration // To 0: to the end
}

// ScopedMetrics are the counts a claim with a scope can name: decisions
// (attempts), those accepted and denied, the logical requests first tried
// (offered) and those that succeeded (succeeded), and denied / attempts
// (denied_share); or the ratio of two, "a/b".
var ScopedMetrics = []string{"attempts", "accepted", "denied", "offered", "succeeded", "denied_share"}

// ValidScopedMetric says whether a claim with a scope can name metric: one of
// ScopedMetrics, or the ratio of two, "a/b".
func ValidScopedMetric(name string) bool {
	if a, b, ok := strings.Cut(name, "/"); ok {
		return slices.Contains(ScopedMetrics, a) && slices.Contains(ScopedMetrics, b)
	}
	return slices.Contains(ScopedMetrics, name)
}

// ValidMetric says whether a claim without a scope can name metric: one of
// MetricNames, a rule's tally (RuleMetric), or the ratio of two, "a/b".
func ValidMetric(name string) bool {
	names := MetricNames()
	valid := func(n string) bool {
		_, _, isRule := RuleMetric(n)
		return isRule || slices.Contains(names, n)
	}
	if a, b, ok := strings.Cut(name, "/"); ok {
		return valid(a) && valid(b)
	}
	return valid(name)
}

// RuleMetrics are the tallies a claim can name of one rule of a lane
// (rules.go): "rule_decides:N", the refusals the lane's Nth rule (from 1, in
// the order the lane asks them) decided, and "rule_fires:N", those it would
// have made.
var RuleMetrics = []string{"rule_decides", "rule_fires"}

// RuleMetric reads a rule's metric: its tally's name and the rule's number
// (from 1); false for another metric.
func RuleMetric(name string) (tally string, rule int, ok bool) {
	tally, n, found := strings.Cut(name, ":")
	if !found || !slices.Contains(RuleMetrics, tally) {
		return "", 0, false
	}
	rule, err := strconv.Atoi(n)
	if err != nil || rule < 1 || strconv.Itoa(rule) != n {
		return "", 0, false
	}
	return tally, rule, true
}

// MetricNames lists the metrics a claim without a scope can name: every number in
// Metrics, by its JSON name (durations in milliseconds); not its names nor its
// rules' tallies.
func MetricNames() []string {
	var names []string
	t := reflect.TypeOf(Metrics{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := jsonName(f)
		if name == "" || name == "-" || f.Type.Kind() == reflect.String || f.Type.Kind() == reflect.Slice {
			continue
		}
		names = append(names, name)
	}
	return names
}

// DeploymentMetric says name (or either side of a ratio "a/b") is one of a
// deployed lane's figures (Metrics' fields tagged ratelab:"deployment"),
// which another lane does not have.
func DeploymentMetric(name string) bool {
	a, b, _ := strings.Cut(name, "/")
	t := reflect.TypeFor[Metrics]()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if n := jsonName(f); (n == a || n == b) && f.Tag.Get("ratelab") == "deployment" {
			return true
		}
	}
	return false
}

// jsonName is a field's name in the JSON, without its tag's options.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// metricValue is m's metric called name, durations in milliseconds, or the ratio
// of two (see evaluate).
func metricValue(m Metrics, name string) (float64, bool) {
	return evaluate(name, m.field)
}

// evaluate is the value of name as value gives it; a name "a/b" is the ratio of
// two values, NaN when b is 0 (undefined, see Judge).
func evaluate(name string, value func(string) (float64, bool)) (float64, bool) {
	num, den, isRatio := strings.Cut(name, "/")
	if !isRatio {
		return value(name)
	}
	a, okA := value(num)
	b, okB := value(den)
	switch {
	case !okA || !okB:
		return 0, false
	case b == 0:
		return math.NaN(), true
	}
	return a / b, true
}

// field is m's metric whose JSON name is name, durations in milliseconds; or a
// rule's tally (RuleMetric), 0 before the rule refused anything.
func (m Metrics) field(name string) (float64, bool) {
	if tally, n, ok := RuleMetric(name); ok {
		if n > len(m.Rules) {
			return 0, true
		}
		if tally == "rule_decides" {
			return float64(m.Rules[n-1].Decides), true
		}
		return float64(m.Rules[n-1].Fires), true
	}
	v := reflect.ValueOf(m)
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		if jsonName(t.Field(i)) != name {
			continue
		}
		switch x := v.Field(i).Interface().(type) {
		case time.Duration:
			return format.Millis(x), true
		case int64:
			return float64(x), true
		case int:
			return float64(x), true
		case float64:
			return x, true
		}
	}
	return 0, false
}

// ScopeCounts are a lane's decisions within one scope.
type ScopeCounts struct {
	Attempts, Accepted, Denied, Offered int64
	// Succeeded is the logical requests that succeeded within the scope's span
	// (at the instant they were served), of its clients and keys: over Offered,
	// the span's goodput.
	Succeeded int64
}

// value is the scoped metric called name, or the ratio of two (see evaluate).
func (c ScopeCounts) value(name string) float64 {
	v, ok := evaluate(name, c.count)
	if !ok {
		return math.NaN()
	}
	return v
}

// count is one scoped metric (ScopedMetrics).
func (c ScopeCounts) count(name string) (float64, bool) {
	switch name {
	case "attempts":
		return float64(c.Attempts), true
	case "accepted":
		return float64(c.Accepted), true
	case "denied":
		return float64(c.Denied), true
	case "offered":
		return float64(c.Offered), true
	case "succeeded":
		return float64(c.Succeeded), true
	case "denied_share":
		if c.Attempts == 0 {
			return 0, true
		}
		return float64(c.Denied) / float64(c.Attempts), true
	}
	return 0, false
}

// scopeStats counts a lane's decisions in each of the configuration's scopes.
type scopeStats struct {
	scopes  []Scope
	clients [][]bool // per scope, per client: counted (nil: every client)
	keys    [][]bool // per scope, per key
	counts  []ScopeCounts
}

func newScopeStats(cfg *Config) scopeStats {
	if len(cfg.Scopes) == 0 {
		return scopeStats{}
	}
	s := scopeStats{scopes: cfg.Scopes, counts: make([]ScopeCounts, len(cfg.Scopes))}
	for _, sc := range cfg.Scopes {
		var clients []bool
		if sc.Clients != nil {
			clients = make([]bool, len(cfg.Clients))
			for _, c := range sc.Clients {
				clients[c] = true
			}
		}
		keys := make([]bool, len(cfg.Keys))
		for i, k := range cfg.Keys {
			keys[i] = strings.HasPrefix(k.Name, sc.KeyPrefix)
		}
		s.clients, s.keys = append(s.clients, clients), append(s.keys, keys)
	}
	return s
}

// count counts a decision on request r landed at now.
func (s *scopeStats) count(r *request, allowed bool, now time.Duration) {
	for i := range s.scopes {
		if !s.in(i, r, now) {
			continue
		}
		c := &s.counts[i]
		c.Attempts++
		if r.attempt == 1 {
			c.Offered++
		}
		if allowed {
			c.Accepted++
		} else {
			c.Denied++
		}
	}
}

// in says request r, at now, is within scope i.
func (s *scopeStats) in(i int, r *request, now time.Duration) bool {
	sc := s.scopes[i]
	return now >= sc.From && (sc.To == 0 || now < sc.To) && s.keys[i][r.key] && (s.clients[i] == nil || s.clients[i][r.client])
}

// succeed counts request r's success at now.
func (s *scopeStats) succeed(r *request, now time.Duration) {
	for i := range s.scopes {
		if !s.in(i, r, now) {
			continue
		}
		s.counts[i].Succeeded++
	}
}

// ClaimResult is a claim judged on a run.
type ClaimResult struct {
	Claim
	Holds bool
	// Got is each lane's value, Want what it was compared with, in Claim.Lanes
	// order.
	Got, Want []float64
	// Adjusted says the run's policy is not the one the claim was written for.
	Adjusted bool
	// Undefined marks, in Claim.Lanes order, a ratio over 0 (nothing counted yet,
	// or nothing at all): the claim does not hold, and Got and Want are 0 there.
	Undefined []bool
}

// Judge evaluates every claim of cfg on lanes' metrics and scope counts.
func Judge(cfg *Config, ms []Metrics, scoped [][]ScopeCounts) []ClaimResult {
	out := make([]ClaimResult, 0, len(cfg.Claims))
	for _, c := range cfg.Claims {
		out = append(out, judge(cfg, c, ms, scoped))
	}
	return out
}

// judge evaluates claim c on lanes' metrics and scope counts.
func judge(cfg *Config, c Claim, ms []Metrics, scoped [][]ScopeCounts) ClaimResult {
	value := func(lane int) float64 {
		if c.Scope >= 0 {
			return scoped[lane][c.Scope].value(c.Metric)
		}
		v, _ := metricValue(ms[lane], c.Metric)
		return v
	}
	r := ClaimResult{Claim: c, Holds: true, Adjusted: cfg.Tiers[0].Policy != c.Policy}
	for _, lane := range c.Lanes {
		got, want := value(lane), c.Value
		if c.Than >= 0 {
			want = c.Times * value(c.Than)
		}
		undefined := math.IsNaN(got) || math.IsNaN(want)
		if undefined {
			got, want = 0, 0
		}
		r.Got, r.Want, r.Undefined = append(r.Got, got), append(r.Want, want), append(r.Undefined, undefined)
		r.Holds = r.Holds && !undefined && compare(got, c.Op, want)
	}
	return r
}

// compare says whether got op want holds.
func compare(got float64, op string, want float64) bool {
	switch op {
	case "<":
		return got < want
	case "<=":
		return got <= want
	case "==":
		return got == want
	case "!=":
		return got != want
	case ">=":
		return got >= want
	case ">":
		return got > want
	}
	return false
}

// Ops are the comparisons a claim may make.
var Ops = []string{"<", "<=", "==", "!=", ">=", ">"}

// ValidOp says whether op is one of Ops.
func ValidOp(op string) bool { return slices.Contains(Ops, op) }
