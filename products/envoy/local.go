package envoy

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
)

// LocalLimit is one token bucket of Envoy's local rate limit filter:
// the filter's token_bucket (Descriptor empty) or a descriptor's.
type LocalLimit struct {
	// Descriptor is the descriptor's entries, "key=value" joined by ", "
	// (a value "" is every value, a bucket each); empty for the default.
	Descriptor    string
	MaxTokens     int64
	TokensPerFill int64
	FillInterval  time.Duration
}

// rate is the bucket's fill rate, in tokens a second.
func (l *LocalLimit) rate() float64 { return float64(l.TokensPerFill) / l.FillInterval.Seconds() }

// String is l as a lane's description: `descriptor="k=v" max=10 fill=10/1s`.
func (l *LocalLimit) String() string {
	s := fmt.Sprintf("max=%d fill=%d/%s", l.MaxTokens, l.TokensPerFill, l.FillInterval)
	if l.Descriptor != "" {
		s = fmt.Sprintf("descriptor=%q ", l.Descriptor) + s
	}
	return s
}

// localType is the @type of the local rate limit filter's typed_config
// (api/envoy/extensions/filters/http/local_ratelimit/v3/local_rate_limit.proto).
const localType = "envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit"

// localFields are LocalRateLimit's fields (local_rate_limit.proto, Envoy
// 1.34); Envoy refuses a typed_config with another.
var localFields = []string{"@type", "stat_prefix", "status", "token_bucket", "filter_enabled", "filter_enforced",
	"request_headers_to_add_when_not_enforced", "response_headers_to_add", "descriptors", "stage",
	"local_rate_limit_per_downstream_connection", "local_cluster_rate_limit", "enable_x_ratelimit_headers",
	"vh_rate_limits", "always_consume_default_token_bucket", "rate_limited_as_resource_exhausted",
	"rate_limits", "max_dynamic_descriptors"}

// readLocal reads Envoy's YAML: every LocalRateLimit typed_config in it
// (found by its @type, anywhere: a listener's http_filters, a route's or a
// virtual host's typed_per_filter_config), or a document that is the
// typed_config alone. Each that limits is a lane: its descriptors' buckets in
// the order Envoy's requestAllowed takes them (by fill rate, slowest first),
// the default token_bucket last.
func readLocal(name string, data []byte, _ products.Options) (*products.Config, error) {
	root, c, tree, err := products.ReadTree(name, data, products.ParseYAML)
	if err != nil {
		return nil, err
	}
	r := reader{tree}
	var found []*products.Node
	var walk func(n *products.Node)
	walk = func(n *products.Node) {
		if t := n.Get("@type"); t != nil && t.Kind == products.ScalarNode && strings.HasSuffix(t.Value, "/"+localType) {
			found = append(found, n)
			return
		}
		for _, v := range n.Vals {
			walk(v)
		}
	}
	walk(root)
	if len(found) == 0 && root.Kind == products.MapNode && (root.Get("token_bucket") != nil || root.Get("stat_prefix") != nil) {
		found = append(found, root) // the typed_config alone
	}
	if len(found) == 0 {
		return nil, products.Errorf(products.Place{File: name, Line: root.Line}, "no local rate limit filter here: write its typed_config with \"@type\": type.googleapis.com/%s (in http_filters or typed_per_filter_config), or the typed_config alone (stat_prefix, token_bucket…)", localType)
	}
	if err := products.AddLanes(c, found, func(_ int, m *products.Node) (*products.Lane, error) { return r.localRateLimit(m) }); err != nil {
		return nil, err
	}
	return c, nil
}

// localRateLimit reads one LocalRateLimit; nil when it limits no request (a
// Warning says why).
func (r reader) localRateLimit(m *products.Node) (*products.Lane, error) {
	if err := r.Fields(m, "the LocalRateLimit typed_config", localFields...); err != nil {
		return nil, err
	}
	sp := m.Get("stat_prefix")
	if sp == nil {
		return nil, r.Errorf(m, "the LocalRateLimit has no stat_prefix, which Envoy requires; add stat_prefix: http_local_rate_limiter")
	}
	prefix, err := r.Text(sp, "stat_prefix")
	if err != nil {
		return nil, err
	}
	if prefix == "" {
		return nil, r.Errorf(sp, "stat_prefix is empty, which Envoy refuses; name the filter's statistics: stat_prefix: http_local_rate_limiter")
	}
	lane := &products.Lane{Name: "stat_prefix " + prefix, Place: r.At(m)}
	var def *products.Limit
	if tb := m.Get("token_bucket"); tb != nil {
		l, err := r.bucket(tb, "token_bucket")
		if err != nil {
			return nil, err
		}
		def = &products.Limit{Place: r.At(tb), Key: products.Key{Expr: "the filter's token_bucket", Shared: true, Mapped: true}, Params: l}
	}
	var descs []products.Limit
	seen := map[string]bool{}
	if ds := m.Get("descriptors"); ds != nil {
		if ds.Kind != products.SeqNode {
			return nil, r.Errorf(ds, "descriptors must be a list of {entries: [{key, value}], token_bucket}; it is %s", ds.What())
		}
		for _, d := range ds.Vals {
			l, err := r.descriptor(d)
			if err != nil {
				return nil, err
			}
			if seen[l.Params.(*LocalLimit).Descriptor] {
				return nil, r.Errorf(d, "the descriptor %s is given twice, which Envoy refuses (duplicate descriptor in the local rate descriptor); keep one", l.Params.(*LocalLimit).Descriptor)
			}
			seen[l.Params.(*LocalLimit).Descriptor] = true
			descs = append(descs, l)
		}
	}
	// requestAllowed sorts the matched descriptors by fill rate, slowest first
	slices.SortStableFunc(descs, func(a, b products.Limit) int {
		ra, rb := a.Params.(*LocalLimit).rate(), b.Params.(*LocalLimit).rate()
		switch {
		case ra < rb:
			return -1
		case ra > rb:
			return 1
		}
		return 0
	})
	always := true
	if a := m.Get("always_consume_default_token_bucket"); a != nil {
		if always, err = r.Bool(a, "always_consume_default_token_bucket"); err != nil {
			return nil, err
		}
	}
	lane.Limits = descs
	if def != nil {
		if always || len(descs) == 0 {
			lane.Limits = append(lane.Limits, *def)
		} else {
			r.Warn(m.Get("always_consume_default_token_bucket"), "always_consume_default_token_bucket: false takes from the default token_bucket only the requests no descriptor matches; the lane matches every request to every descriptor, so it leaves the default bucket out")
		}
	}
	if len(descs) > 0 {
		r.Warn(m.Get("descriptors"), "which requests carry a descriptor is decided by the route's rate_limits actions, not this filter; the lane holds every request to every descriptor (slowest first, the default token_bucket last), as a request matching them all is")
	}
	if len(lane.Limits) == 0 {
		r.Warn(m, "this LocalRateLimit has no token_bucket and no descriptors: it limits no request (a route's typed_per_filter_config may)")
		return nil, nil
	}
	// the filter's fractions
	enabled, err := r.fraction(m, "filter_enabled")
	if err != nil {
		return nil, err
	}
	enforced, err := r.fraction(m, "filter_enforced")
	if err != nil {
		return nil, err
	}
	switch {
	case enabled == 0:
		at := m
		if fe := m.Get("filter_enabled"); fe != nil {
			at = fe
		}
		r.Warn(at, "filter_enabled is 0%% (its default when left out): the filter passes every request without taking a token; add filter_enabled: {default_value: {numerator: 100, denominator: HUNDRED}}")
		return nil, nil
	case enabled < 1:
		r.Warn(m.Get("filter_enabled"), "filter_enabled holds %s of the requests to the limit and passes the rest without a token; the lane holds every request", pct(enabled))
	}
	switch {
	case enforced < 1:
		at := m
		if fe := m.Get("filter_enforced"); fe != nil {
			at = fe
		}
		r.Warn(at, "filter_enforced is %s (0%% when left out): Envoy lets through the requests it would refuse (they still take tokens), refusing only %s of them; the lane refuses every one", pct(enforced), pct(enforced))
	}
	for _, k := range []string{"local_rate_limit_per_downstream_connection", "local_cluster_rate_limit", "rate_limits", "vh_rate_limits", "max_dynamic_descriptors", "status"} {
		v := m.Get(k)
		if v == nil {
			continue
		}
		switch k {
		case "local_rate_limit_per_downstream_connection":
			on, err := r.Bool(v, k)
			if err != nil {
				return nil, err
			}
			if on {
				r.Warn(v, "local_rate_limit_per_downstream_connection: true gives each connection its own buckets; the lane keeps one per Envoy process (its key's), shared by every connection")
			}
		case "local_cluster_rate_limit":
			r.Warn(v, "local_cluster_rate_limit shares the buckets' rate among the local cluster's hosts (each takes 1/hosts of a token a request); the lane is one host taking whole tokens")
		case "rate_limits":
			r.Warn(v, "rate_limits makes the descriptors from each request here; the lane holds every request to every descriptor")
		case "vh_rate_limits":
			r.Warn(v, "vh_rate_limits decides whether the virtual host's rate_limits make descriptors; the lane holds every request to every descriptor")
		case "max_dynamic_descriptors":
			r.Warn(v, "max_dynamic_descriptors evicts the least recently used per-value buckets beyond it (a key back starts full); the lane keeps every key's bucket")
		case "status":
			code := v.Get("code")
			if code == nil || code.Kind != products.ScalarNode || code.Value != "429" && code.Value != "TooManyRequests" {
				r.Warn(v, "status sets the refusal's HTTP status; the lane answers 429, Envoy's default")
			}
		}
	}
	return lane, nil
}

// pct writes a fraction as a percentage.
func pct(f float64) string {
	return strconv.FormatFloat(f*100, 'f', -1, 64) + "%"
}

// fraction reads a RuntimeFractionalPercent (filter_enabled,
// filter_enforced) as the fraction of requests; 0 when it is left out.
func (r reader) fraction(m *products.Node, key string) (float64, error) {
	n := m.Get(key)
	if n == nil {
		return 0, nil
	}
	if err := r.Fields(n, key, "default_value", "runtime_key"); err != nil {
		return 0, err
	}
	dv := n.Get("default_value")
	if dv == nil {
		return 0, r.Errorf(n, "%s has no default_value, which Envoy requires; add default_value: {numerator: 100, denominator: HUNDRED}", key)
	}
	if err := r.Fields(dv, key+".default_value", "numerator", "denominator"); err != nil {
		return 0, err
	}
	var num int64
	var err error
	if v := dv.Get("numerator"); v != nil {
		if num, err = r.Int(v, key+".default_value.numerator", 0, math.MaxUint32); err != nil {
			return 0, err
		}
	}
	den := int64(100)
	if v := dv.Get("denominator"); v != nil {
		switch v.Value {
		case "HUNDRED", "0":
		case "TEN_THOUSAND", "1":
			den = 10000
		case "MILLION", "2":
			den = 1000000
		default:
			return 0, r.Errorf(v, "%s.default_value.denominator must be HUNDRED, TEN_THOUSAND or MILLION; it is %s", key, v.What())
		}
	}
	if rk := n.Get("runtime_key"); rk != nil {
		r.Warn(rk, "%s.runtime_key lets Envoy's runtime change the fraction; the lane uses default_value", key)
	}
	return min(1, float64(num)/float64(den)), nil
}

// bucket reads a token_bucket (envoy.type.v3.TokenBucket), its
// fill_interval in whole milliseconds as Envoy reads it.
func (r reader) bucket(n *products.Node, what string) (*LocalLimit, error) {
	if err := r.Fields(n, what, "max_tokens", "tokens_per_fill", "fill_interval"); err != nil {
		return nil, err
	}
	l := &LocalLimit{TokensPerFill: 1}
	mt := n.Get("max_tokens")
	if mt == nil {
		return nil, r.Errorf(n, "%s has no max_tokens, which Envoy requires (more than 0); add max_tokens: 10", what)
	}
	var err error
	if l.MaxTokens, err = r.Int(mt, what+".max_tokens", 1, math.MaxUint32); err != nil {
		return nil, err
	}
	if tp := n.Get("tokens_per_fill"); tp != nil {
		if l.TokensPerFill, err = r.Int(tp, what+".tokens_per_fill", 1, math.MaxUint32); err != nil {
			return nil, err
		}
	}
	fi := n.Get("fill_interval")
	if fi == nil {
		return nil, r.Errorf(n, "%s has no fill_interval, which Envoy requires; add fill_interval: 1s", what)
	}
	written, err := r.ProtoDuration(fi, what+".fill_interval")
	if err != nil {
		return nil, err
	}
	// Envoy reads it in whole milliseconds, rounded down: the filter's and
	// each descriptor's std::chrono::milliseconds(PROTOBUF_GET_MS_OR_DEFAULT(
	// token_bucket, fill_interval, 0)), Protobuf's DurationToMilliseconds
	// (source/extensions/filters/http/local_ratelimit/local_ratelimit.cc at
	// 673860c5, FilterConfig; source/extensions/filters/common/local_ratelimit/
	// local_ratelimit_impl.cc at 5a6c7aa8, LocalRateLimiterImpl), and checks
	// its minimum on that
	l.FillInterval = written.Truncate(time.Millisecond)
	read := ""
	if l.FillInterval != written {
		read = " (Envoy reads it in whole milliseconds)"
	}
	switch {
	case l.FillInterval == 0:
		return nil, r.Errorf(fi, "%s.fill_interval is 0s%s: Envoy sets no fill timer then, nor checks its 50ms minimum, and fills the bucket at no finite rate, which ratelab does not model; make it 50ms or more", what, read)
	case l.FillInterval < 50*time.Millisecond:
		return nil, r.Errorf(fi, "%s.fill_interval is %s%s; Envoy refuses one under 50ms (local rate limit token bucket fill timer must be >= 50ms): make it 50ms or more", what, l.FillInterval, read)
	}
	if read != "" {
		r.Warn(fi, "%s.fill_interval %s: Envoy reads it in whole milliseconds (PROTOBUF_GET_MS_OR_DEFAULT), %s, and so does the lane", what, written, l.FillInterval)
	}
	return l, nil
}

// descriptor reads one of LocalRateLimit's descriptors.
func (r reader) descriptor(d *products.Node) (products.Limit, error) {
	if err := r.Fields(d, "a descriptor", "entries", "token_bucket"); err != nil {
		return products.Limit{}, err
	}
	es := d.Get("entries")
	if es == nil || es.Kind != products.SeqNode || len(es.Vals) == 0 {
		return products.Limit{}, r.Errorf(d, "a descriptor needs entries, a list of at least one {key, value}; add entries: [{key: client_id, value: \"\"}]")
	}
	var parts []string
	dynamic := false
	for _, e := range es.Vals {
		if err := r.Fields(e, "a descriptor's entry", "key", "value"); err != nil {
			return products.Limit{}, err
		}
		k := e.Get("key")
		if k == nil {
			return products.Limit{}, r.Errorf(e, "a descriptor's entry needs its key; add key: client_id")
		}
		key, err := r.Text(k, "the entry's key")
		if err != nil {
			return products.Limit{}, err
		}
		val := ""
		if v := e.Get("value"); v != nil && v.Tag != "!!null" {
			if val, err = r.Text(v, "the entry's value"); err != nil {
				return products.Limit{}, err
			}
		}
		dynamic = dynamic || val == ""
		parts = append(parts, key+"="+val)
	}
	tb := d.Get("token_bucket")
	if tb == nil {
		return products.Limit{}, r.Errorf(d, "a descriptor needs its token_bucket, which Envoy requires; add token_bucket: {max_tokens: 10, tokens_per_fill: 10, fill_interval: 1s}")
	}
	l, err := r.bucket(tb, "the descriptor's token_bucket")
	if err != nil {
		return products.Limit{}, err
	}
	l.Descriptor = strings.Join(parts, ", ")
	key := products.Key{Expr: "descriptor " + l.Descriptor, Shared: true, Mapped: true}
	if dynamic {
		key = products.Key{Expr: "descriptor " + l.Descriptor, Mapped: false}
		r.Warn(d, "the descriptor %s has a bucket for each value its empty entry takes, which the route's rate_limits actions set (a header, the remote address…), not this file; the lane keys it by the requests' own key", l.Descriptor)
	}
	return products.Limit{Place: r.At(d), Key: key, Params: l}, nil
}

// detectLocal finds the @type of the local rate limit filter's
// typed_config.
func detectLocal(data []byte) products.Sign {
	if bytes.Contains(data, []byte(localType)) {
		return products.Sign{Mark: products.StrongMark}
	}
	return products.Sign{}
}

// localLanes maps a LocalRateLimit to one lane of its buckets, in the
// order requestAllowed takes them: in order, stopping at the first refusal,
// earlier ones kept.
func localLanes(l products.Lane, m *products.Mapping) []products.RatelabLane {
	lane := products.RatelabLane{Name: l.Name, Place: l.Place, Combine: algorithms.InOrder}
	for _, lim := range l.Limits {
		e := lim.Params.(*LocalLimit)
		name := "token_bucket"
		if e.Descriptor != "" {
			name = products.LaneWord("descriptor " + e.Descriptor)
		}
		rule := "token_bucket"
		if e.Descriptor != "" {
			rule = "descriptor " + e.Descriptor
		}
		lane.Limits = append(lane.Limits, products.RatelabLimit{Name: name, Rule: rule, Place: lim.Place, Algorithm: algorithms.EnvoyLocalName, Key: m.Key(lim, products.LaneWord(name)),
			Policy: algorithms.Policy{Limit: e.TokensPerFill, Period: e.FillInterval, Burst: e.MaxTokens}})
	}
	return []products.RatelabLane{lane}
}
