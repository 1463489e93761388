package products

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
)

// EnvoyLocal is Envoy's local rate limit filter
// (envoy.filters.http.local_ratelimit), read from Envoy's YAML: its
// LocalRateLimit typed_config wherever it is (a listener's http_filters, a
// route's typed_per_filter_config, or the typed_config alone).
var EnvoyLocal = &Info{Name: algorithms.EnvoyLocalName, File: "Envoy's YAML", Shows: "a LocalRateLimit typed_config",
	Limiting: "LocalRateLimit with a token_bucket or descriptors and filter_enabled above 0%", Detect: detectEnvoyLocal, Read: readEnvoyLocal,
	Lanes: envoyLocalLanes,
	Target: &Target{Writable: "a fill_interval of 50ms or more, in whole milliseconds",
		Period:   func(d time.Duration) bool { return d >= 50*time.Millisecond && d%time.Millisecond == 0 },
		MaxLimit: math.MaxUint32, MaxBurst: math.MaxUint32, Write: writeEnvoyLocal}}

// EnvoyGlobal is envoyproxy/ratelimit, the rate limit service Envoy's global
// filter asks, read from the service's YAML (domain, descriptors).
var EnvoyGlobal = &Info{Name: algorithms.EnvoyGlobalName, File: "the rate limit service's YAML", Shows: "domain and descriptors",
	Limiting: "descriptor with a rate_limit of requests_per_unit above 0", Detect: detectEnvoyGlobal, Read: readEnvoyGlobal,
	Lanes: envoyGlobalLanes,
	Target: &Target{Writable: "unit second, minute, hour or day (1s, 1m, 1h, 24h)",
		Period: OneOf(time.Second, time.Minute, time.Hour, 24*time.Hour), MaxLimit: math.MaxUint32, Write: writeEnvoyGlobal}}

// envoyLocalType is the @type of the local rate limit filter's typed_config
// (api/envoy/extensions/filters/http/local_ratelimit/v3/local_rate_limit.proto).
const envoyLocalType = "envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit"

// envoyLocalFields are LocalRateLimit's fields (local_rate_limit.proto, Envoy
// 1.34); Envoy refuses a typed_config with another.
var envoyLocalFields = []string{"@type", "stat_prefix", "status", "token_bucket", "filter_enabled", "filter_enforced",
	"request_headers_to_add_when_not_enforced", "response_headers_to_add", "descriptors", "stage",
	"local_rate_limit_per_downstream_connection", "local_cluster_rate_limit", "enable_x_ratelimit_headers",
	"vh_rate_limits", "always_consume_default_token_bucket", "rate_limited_as_resource_exhausted",
	"rate_limits", "max_dynamic_descriptors"}

// readEnvoyLocal reads Envoy's YAML: every LocalRateLimit typed_config in it
// (found by its @type, anywhere: a listener's http_filters, a route's or a
// virtual host's typed_per_filter_config), or a document that is the
// typed_config alone. Each that limits is a lane: its descriptors' buckets in
// the order Envoy's requestAllowed takes them (by fill rate, slowest first),
// the default token_bucket last.
func readEnvoyLocal(name string, data []byte, _ Options) (*Config, error) {
	root, err := ParseYAML(name, data)
	if err != nil {
		return nil, err
	}
	c := &Config{File: name}
	r := Reader{File: name, Warnings: &c.Warnings}
	var found []*Node
	var walk func(n *Node)
	walk = func(n *Node) {
		if t := n.Get("@type"); t != nil && t.Kind == ScalarNode && strings.HasSuffix(t.Value, "/"+envoyLocalType) {
			found = append(found, n)
			return
		}
		for _, v := range n.Vals {
			walk(v)
		}
	}
	walk(root)
	if len(found) == 0 && root.Kind == MapNode && (root.Get("token_bucket") != nil || root.Get("stat_prefix") != nil) {
		found = append(found, root) // the typed_config alone
	}
	if len(found) == 0 {
		return nil, Errorf(Place{File: name, Line: root.Line}, "no local rate limit filter here: write its typed_config with \"@type\": type.googleapis.com/%s (in http_filters or typed_per_filter_config), or the typed_config alone (stat_prefix, token_bucket…)", envoyLocalType)
	}
	if err := AddLanes(c, found, func(_ int, m *Node) (*Lane, error) { return r.envoyLocal(m) }); err != nil {
		return nil, err
	}
	return c, nil
}

// envoyLocal reads one LocalRateLimit; nil when it limits no request (a
// Warning says why).
func (r Reader) envoyLocal(m *Node) (*Lane, error) {
	if err := r.Fields(m, "the LocalRateLimit typed_config", envoyLocalFields...); err != nil {
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
	lane := &Lane{Name: "stat_prefix " + prefix, Place: r.At(m)}
	var def *Limit
	if tb := m.Get("token_bucket"); tb != nil {
		l, err := r.envoyBucket(tb, "token_bucket")
		if err != nil {
			return nil, err
		}
		def = &Limit{Place: r.At(tb), Key: Key{Expr: "the filter's token_bucket", Shared: true, Mapped: true}, Params: l}
	}
	var descs []Limit
	seen := map[string]bool{}
	if ds := m.Get("descriptors"); ds != nil {
		if ds.Kind != SeqNode {
			return nil, r.Errorf(ds, "descriptors must be a list of {entries: [{key, value}], token_bucket}; it is %s", ds.What())
		}
		for _, d := range ds.Vals {
			l, err := r.envoyDescriptor(d)
			if err != nil {
				return nil, err
			}
			if seen[l.Params.(*EnvoyLocalLimit).Descriptor] {
				return nil, r.Errorf(d, "the descriptor %s is given twice, which Envoy refuses (duplicate descriptor in the local rate descriptor); keep one", l.Params.(*EnvoyLocalLimit).Descriptor)
			}
			seen[l.Params.(*EnvoyLocalLimit).Descriptor] = true
			descs = append(descs, l)
		}
	}
	// requestAllowed sorts the matched descriptors by fill rate, slowest first
	slices.SortStableFunc(descs, func(a, b Limit) int {
		ra, rb := a.Params.(*EnvoyLocalLimit).rate(), b.Params.(*EnvoyLocalLimit).rate()
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
	enabled, err := r.envoyFraction(m, "filter_enabled")
	if err != nil {
		return nil, err
	}
	enforced, err := r.envoyFraction(m, "filter_enforced")
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
			if code == nil || code.Kind != ScalarNode || code.Value != "429" && code.Value != "TooManyRequests" {
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

// envoyFraction reads a RuntimeFractionalPercent (filter_enabled,
// filter_enforced) as the fraction of requests; 0 when it is left out.
func (r Reader) envoyFraction(m *Node, key string) (float64, error) {
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

// envoyBucket reads a token_bucket (envoy.type.v3.TokenBucket), its
// fill_interval in whole milliseconds as Envoy reads it.
func (r Reader) envoyBucket(n *Node, what string) (*EnvoyLocalLimit, error) {
	if err := r.Fields(n, what, "max_tokens", "tokens_per_fill", "fill_interval"); err != nil {
		return nil, err
	}
	l := &EnvoyLocalLimit{TokensPerFill: 1}
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

// envoyDescriptor reads one of LocalRateLimit's descriptors.
func (r Reader) envoyDescriptor(d *Node) (Limit, error) {
	if err := r.Fields(d, "a descriptor", "entries", "token_bucket"); err != nil {
		return Limit{}, err
	}
	es := d.Get("entries")
	if es == nil || es.Kind != SeqNode || len(es.Vals) == 0 {
		return Limit{}, r.Errorf(d, "a descriptor needs entries, a list of at least one {key, value}; add entries: [{key: client_id, value: \"\"}]")
	}
	var parts []string
	dynamic := false
	for _, e := range es.Vals {
		if err := r.Fields(e, "a descriptor's entry", "key", "value"); err != nil {
			return Limit{}, err
		}
		k := e.Get("key")
		if k == nil {
			return Limit{}, r.Errorf(e, "a descriptor's entry needs its key; add key: client_id")
		}
		key, err := r.Text(k, "the entry's key")
		if err != nil {
			return Limit{}, err
		}
		val := ""
		if v := e.Get("value"); v != nil && v.Tag != "!!null" {
			if val, err = r.Text(v, "the entry's value"); err != nil {
				return Limit{}, err
			}
		}
		dynamic = dynamic || val == ""
		parts = append(parts, key+"="+val)
	}
	tb := d.Get("token_bucket")
	if tb == nil {
		return Limit{}, r.Errorf(d, "a descriptor needs its token_bucket, which Envoy requires; add token_bucket: {max_tokens: 10, tokens_per_fill: 10, fill_interval: 1s}")
	}
	l, err := r.envoyBucket(tb, "the descriptor's token_bucket")
	if err != nil {
		return Limit{}, err
	}
	l.Descriptor = strings.Join(parts, ", ")
	key := Key{Expr: "descriptor " + l.Descriptor, Shared: true, Mapped: true}
	if dynamic {
		key = Key{Expr: "descriptor " + l.Descriptor, Mapped: false}
		r.Warn(d, "the descriptor %s has a bucket for each value its empty entry takes, which the route's rate_limits actions set (a header, the remote address…), not this file; the lane keys it by the requests' own key", l.Descriptor)
	}
	return Limit{Place: r.At(d), Key: key, Params: l}, nil
}

// envoyGlobalUnits are the rate limit service's units and their dividers
// (envoyproxy/ratelimit src/utils/utilities.go: UnitToDivider).
var envoyGlobalUnits = []struct {
	name string
	d    time.Duration
}{{"second", time.Second}, {"minute", time.Minute}, {"hour", time.Hour}, {"day", 24 * time.Hour},
	{"week", 7 * 24 * time.Hour}, {"month", 30 * 24 * time.Hour}, {"year", 365 * 24 * time.Hour}}

// readEnvoyGlobal reads the rate limit service's YAML (envoyproxy/ratelimit
// src/config/config_impl.go: the domain, descriptors nested under each
// other, each with a key, a value, and a rate_limit of requests_per_unit a
// unit, shadow_mode). Each rate_limit is a lane of its own (the service
// counts each descriptor of a request apart), in the file's order.
func readEnvoyGlobal(name string, data []byte, _ Options) (*Config, error) {
	root, err := ParseYAML(name, data)
	if err != nil {
		return nil, err
	}
	c := &Config{File: name}
	r := Reader{File: name, Warnings: &c.Warnings}
	if err := r.Fields(root, "the rate limit service's configuration", "domain", "descriptors"); err != nil {
		return nil, err
	}
	dn := root.Get("domain")
	if dn == nil {
		return nil, r.Errorf(root, "the configuration has no domain, which the service requires (config error, empty domain); add domain: my_domain")
	}
	domain, err := r.Text(dn, "domain")
	if err != nil {
		return nil, err
	}
	if domain == "" {
		return nil, r.Errorf(dn, "domain is empty, which the service refuses; name it: domain: my_domain")
	}
	var walk func(list *Node, path []string, dynamic bool) error
	walk = func(list *Node, path []string, dynamic bool) error {
		if list.Kind != SeqNode {
			return r.Errorf(list, "descriptors must be a list of {key, value, rate_limit, descriptors}; it is %s", list.What())
		}
		seen := map[string]bool{}
		for _, d := range list.Vals {
			if err := r.Fields(d, "a descriptor", "key", "value", "rate_limit", "descriptors", "shadow_mode", "detailed_metric", "value_to_metric"); err != nil {
				return err
			}
			k := d.Get("key")
			if k == nil {
				return r.Errorf(d, "a descriptor needs its key, which the service requires (config error, descriptor has empty key); add key: remote_address")
			}
			key, err := r.Text(k, "the descriptor's key")
			if err != nil {
				return err
			}
			if key == "" {
				return r.Errorf(k, "the descriptor's key is empty, which the service refuses; name it")
			}
			val := ""
			if v := d.Get("value"); v != nil && v.Tag != "!!null" {
				if val, err = r.Text(v, "the descriptor's value"); err != nil {
					return err
				}
			}
			if seen[key+"_"+val] {
				return r.Errorf(d, "the descriptor %s=%s is given twice here, which the service refuses (duplicate descriptor composite key); keep one", key, val)
			}
			seen[key+"_"+val] = true
			p := append(slices.Clone(path), key+"="+val)
			dyn := dynamic || val == ""
			shadow := false
			if s := d.Get("shadow_mode"); s != nil {
				if shadow, err = r.Bool(s, "shadow_mode"); err != nil {
					return err
				}
			}
			if rl := d.Get("rate_limit"); rl != nil {
				l, err := r.envoyRateLimit(rl)
				if err != nil {
					return err
				}
				if l != nil {
					l.Domain, l.Descriptor, l.ShadowMode = domain, strings.Join(p, " / "), shadow
					expr := "descriptor " + l.Descriptor
					k := Key{Expr: expr, Shared: true, Mapped: true}
					if dyn {
						k = Key{Expr: expr, Mapped: false}
						r.Warn(d, "the descriptor %s counts each value its empty value takes, which Envoy's rate_limits actions set (a header, the remote address…), not this file; the lane keys it by the requests' own key", l.Descriptor)
					}
					c.Lanes = append(c.Lanes, Lane{Name: domain + " " + l.Descriptor, Place: r.At(d),
						Limits: []Limit{{Place: r.At(rl), Key: k, Params: l}}})
				}
			}
			if sub := d.Get("descriptors"); sub != nil {
				if err := walk(sub, p, dyn); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if ds := root.Get("descriptors"); ds != nil {
		if err := walk(ds, nil, false); err != nil {
			return nil, err
		}
	}
	if len(c.Lanes) == 0 {
		r.Warn(root, "no descriptor has a rate_limit: the service limits no request")
	} else {
		r.Warn(root, "which of these descriptors a request carries is decided by Envoy's rate_limits actions, not this file; each is a lane of its own, holding every request")
	}
	return c, nil
}

// envoyRateLimit reads a descriptor's rate_limit; nil for unlimited: true.
func (r Reader) envoyRateLimit(rl *Node) (*EnvoyGlobalLimit, error) {
	if err := r.Fields(rl, "rate_limit", "unit", "requests_per_unit", "unlimited", "name", "replaces"); err != nil {
		return nil, err
	}
	if u := rl.Get("unlimited"); u != nil {
		on, err := r.Bool(u, "unlimited")
		if err != nil {
			return nil, err
		}
		if on {
			r.Warn(u, "unlimited: true lets every request of this descriptor through: no lane")
			return nil, nil
		}
	}
	if rp := rl.Get("replaces"); rp != nil {
		r.Warn(rp, "replaces makes this limit stand in for others a request carries; the lanes are each descriptor's own")
	}
	un := rl.Get("unit")
	if un == nil {
		return nil, r.Errorf(rl, "rate_limit has no unit; add unit: second (or minute, hour, day, week, month, year)")
	}
	unit, err := r.Text(un, "unit")
	if err != nil {
		return nil, err
	}
	l := &EnvoyGlobalLimit{Unit: strings.ToLower(unit)}
	for _, u := range envoyGlobalUnits {
		if u.name == l.Unit {
			l.Period = u.d
		}
	}
	if l.Period == 0 {
		return nil, r.Errorf(un, "unit %q is not one of the service's (config error, invalid rate limit unit); use second, minute, hour, day, week, month or year", unit)
	}
	rp := rl.Get("requests_per_unit")
	if rp == nil {
		return nil, r.Errorf(rl, "rate_limit has no requests_per_unit; add requests_per_unit: 100")
	}
	if l.RequestsPerUnit, err = r.Int(rp, "requests_per_unit", 0, math.MaxUint32); err != nil {
		return nil, err
	}
	if l.RequestsPerUnit == 0 {
		r.Warn(rp, "requests_per_unit: 0 refuses every request of this descriptor: no lane")
		return nil, nil
	}
	return l, nil
}

// detectEnvoyLocal finds the @type of the local rate limit filter's
// typed_config.
func detectEnvoyLocal(data []byte) Sign {
	if bytes.Contains(data, []byte(envoyLocalType)) {
		return Sign{Mark: StrongMark}
	}
	return Sign{}
}

// detectEnvoyGlobal finds the rate limit service's top-level domain: and
// descriptors:, words another product's YAML may write too.
func detectEnvoyGlobal(data []byte) Sign {
	var domain, descriptors bool
	for line := range bytes.Lines(data) {
		domain = domain || bytes.HasPrefix(line, []byte("domain:"))
		descriptors = descriptors || bytes.HasPrefix(line, []byte("descriptors:"))
	}
	if domain && descriptors {
		return Sign{Mark: WeakMark}
	}
	return Sign{}
}

// envoyLocalLanes maps a LocalRateLimit to one lane of its buckets, in the
// order requestAllowed takes them: in order, stopping at the first refusal,
// earlier ones kept.
func envoyLocalLanes(l Lane, m *Mapping) []RatelabLane {
	lane := RatelabLane{Name: l.Name, Place: l.Place, Combine: algorithms.InOrder}
	for _, lim := range l.Limits {
		e := lim.Params.(*EnvoyLocalLimit)
		name := "token_bucket"
		if e.Descriptor != "" {
			name = LaneWord("descriptor " + e.Descriptor)
		}
		lane.Limits = append(lane.Limits, RatelabLimit{Name: name, Place: lim.Place, Algorithm: algorithms.EnvoyLocalName, Key: m.Key(lim, LaneWord(name)),
			Policy: algorithms.Policy{Limit: e.TokensPerFill, Period: e.FillInterval, Burst: e.MaxTokens}})
	}
	return []RatelabLane{lane}
}

// envoyGlobalLanes maps each rate_limit to a lane: requests_per_unit per
// unit, shadow_mode.
func envoyGlobalLanes(l Lane, m *Mapping) []RatelabLane {
	return EachLimit(l, m, func(lim Limit) (RatelabLimit, string) {
		e := lim.Params.(*EnvoyGlobalLimit)
		return RatelabLimit{Name: e.Descriptor, Algorithm: algorithms.EnvoyGlobalName, Options: algorithms.Options{ShadowMode: e.ShadowMode},
			Policy: algorithms.Policy{Limit: e.RequestsPerUnit, Period: e.Period}}, e.Descriptor
	})
}
