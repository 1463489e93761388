package products

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
)

// Spring is Spring Cloud Gateway's RequestRateLimiter filter
// (RedisRateLimiter), read from an application.yml's routes.
var Spring = &Info{Name: algorithms.SpringName, File: "a Spring application.yml", Shows: "RequestRateLimiter",
	Limiting: "route with a RequestRateLimiter filter", Detect: detectSpring, Read: readSpring, Lanes: springLanes,
	Target: &Target{Writable: "replenishRate tokens a second and requestedTokens a request: a whole number of seconds",
		Period: func(d time.Duration) bool {
			return d >= time.Second && d%time.Second == 0 && d/time.Second <= math.MaxInt32
		},
		MaxLimit: math.MaxInt32, MaxBurst: SpringMaxBurstCapacity, Write: writeSpring}}

// Traefik is Traefik's rateLimit middleware, read from its dynamic
// configuration in YAML or TOML.
var Traefik = &Info{Name: algorithms.TraefikName, File: "Traefik's YAML or TOML", Shows: "a rateLimit middleware",
	Limiting: "rateLimit middleware with an average above 0", Detect: detectTraefik, Read: readTraefik, Lanes: traefikLanes,
	Target: &Target{Writable: "a period in whole microseconds", Period: EveryPeriod,
		MaxLimit: math.MaxInt64 / int64(time.Second), MaxBurst: math.MaxInt64, Delays: true, Write: writeTraefik}}

// Kong is Kong's rate-limiting plugin, read from a declarative configuration
// (kong.yml).
var Kong = &Info{Name: algorithms.KongName, File: "Kong's declarative kong.yml", Shows: "_format_version",
	Limiting: "rate-limiting plugin with a second, minute, hour or day limit", Detect: detectKong, Read: readKong, Lanes: kongLanes,
	Target: &Target{Writable: "second, minute, hour or day windows (1s, 1m, 1h, 24h)",
		Period: OneOf(time.Second, time.Minute, time.Hour, 24*time.Hour), MaxLimit: math.MaxInt64, Write: writeKong}}

// readSpring reads a Spring Cloud Gateway application.yml: every route (under
// spring.cloud.gateway.routes, or .server.webflux.routes since 4.3) and the
// default-filters, whose filters hold a RequestRateLimiter with its
// redis-rate-limiter args (replenishRate, burstCapacity, requestedTokens;
// kebab-case or nested as Spring's relaxed binding reads them). Each is a lane.
func readSpring(name string, data []byte, _ Options) (*Config, error) {
	root, err := ParseYAML(name, data)
	if err != nil {
		return nil, err
	}
	c := &Config{File: name}
	r := Reader{File: name, Warnings: &c.Warnings}
	gw := root.Get("spring").Get("cloud").Get("gateway")
	if w := gw.Get("server").Get("webflux"); w != nil {
		gw = w
	}
	if gw == nil {
		return nil, r.Errorf(root, "no spring.cloud.gateway here: write the routes under spring.cloud.gateway.routes (or spring.cloud.gateway.server.webflux.routes), each with filters: [{name: RequestRateLimiter, args: {...}}]")
	}
	type holder struct {
		name    string
		filters *Node
		route   bool
	}
	var hs []holder
	if d := gw.Get("default-filters"); d != nil {
		hs = append(hs, holder{"default-filters", d, false})
	}
	if rs := gw.Get("routes"); rs != nil {
		if rs.Kind != SeqNode {
			return nil, r.Errorf(rs, "routes must be a list of routes; it is %s", rs.What())
		}
		for i, rt := range rs.Vals {
			id := fmt.Sprintf("route %d", i+1)
			if v := rt.Get("id"); v != nil && v.Kind == ScalarNode {
				id = "route " + LaneWord(v.Value)
			}
			if f := rt.Get("filters"); f != nil {
				hs = append(hs, holder{id, f, true})
			}
		}
	}
	for _, h := range hs {
		if h.filters.Kind != SeqNode {
			return nil, r.Errorf(h.filters, "filters must be a list; it is %s", h.filters.What())
		}
		for _, f := range h.filters.Vals {
			if f.Kind == ScalarNode {
				if strings.HasPrefix(strings.TrimSpace(f.Value), "RequestRateLimiter") {
					return nil, r.Errorf(f, "RequestRateLimiter has no shortcut form Spring reads its redis-rate-limiter from; write it as {name: RequestRateLimiter, args: {redis-rate-limiter.replenishRate: 10, redis-rate-limiter.burstCapacity: 20}}")
				}
				continue
			}
			if n := f.Get("name"); n == nil || n.Value != "RequestRateLimiter" {
				continue
			}
			l, key, err := r.springFilter(f)
			if err != nil {
				return nil, err
			}
			if l == nil {
				continue
			}
			l.Route = h.name
			if !h.route {
				r.Warn(f, "default-filters apply to every route; the lane is one, every request of every route")
			}
			c.Lanes = append(c.Lanes, Lane{Name: h.name, Place: r.At(f), Limits: []Limit{{Place: r.At(f), Key: key, Params: l}}})
		}
	}
	return c, nil
}

// springArg is a filter's argument by Spring's relaxed binding: flat
// ("redis-rate-limiter.replenishRate"), kebab-case ("replenish-rate") or
// nested (redis-rate-limiter: {replenishRate: …}).
func springArg(args *Node, camel, kebab string) *Node {
	for _, prefix := range []string{"redis-rate-limiter.", "redisRateLimiter."} {
		for _, k := range []string{camel, kebab} {
			if v := args.Get(prefix + k); v != nil {
				return v
			}
		}
	}
	for _, g := range []string{"redis-rate-limiter", "redisRateLimiter"} {
		for _, k := range []string{camel, kebab} {
			if v := args.Get(g).Get(k); v != nil {
				return v
			}
		}
	}
	return nil
}

// springFilter reads a RequestRateLimiter filter.
func (r Reader) springFilter(f *Node) (*SpringLimit, Key, error) {
	args := f.Get("args")
	if args == nil || args.Kind != MapNode {
		return nil, Key{}, r.Errorf(f, "RequestRateLimiter needs its args: add args: {redis-rate-limiter.replenishRate: 10, redis-rate-limiter.burstCapacity: 20}")
	}
	known := map[string]bool{}
	l := &SpringLimit{BurstCapacity: 1, RequestedTokens: 1, Status: 429}
	rr := springArg(args, "replenishRate", "replenish-rate")
	if rr == nil {
		return nil, Key{}, r.Errorf(args, "RequestRateLimiter has no redis-rate-limiter.replenishRate; add redis-rate-limiter.replenishRate: 10 (tokens a second)")
	}
	var err error
	if l.ReplenishRate, err = r.Int(rr, "replenishRate", 0, math.MaxInt32); err != nil {
		return nil, Key{}, err
	}
	known[rr.Value] = true
	if v := springArg(args, "burstCapacity", "burst-capacity"); v != nil {
		if l.BurstCapacity, err = r.Int(v, "burstCapacity", 0, SpringMaxBurstCapacity); err != nil {
			return nil, Key{}, err
		}
	}
	if v := springArg(args, "requestedTokens", "requested-tokens"); v != nil {
		if l.RequestedTokens, err = r.Int(v, "requestedTokens", 1, math.MaxInt32); err != nil {
			return nil, Key{}, err
		}
	}
	if l.ReplenishRate == 0 || l.BurstCapacity < l.RequestedTokens {
		r.Warn(args, "replenishRate %d, burstCapacity %d and requestedTokens %d refuse every request: no lane", l.ReplenishRate, l.BurstCapacity, l.RequestedTokens)
		return nil, Key{}, nil
	}
	if l.BurstCapacity%l.RequestedTokens != 0 {
		r.Warn(args, "burstCapacity %d is not a whole number of requests of %d tokens; the lane holds %d", l.BurstCapacity, l.RequestedTokens, l.BurstCapacity/l.RequestedTokens*l.RequestedTokens)
	}
	key := Key{Expr: "PrincipalNameKeyResolver (the user's principal)", Trace: "user", Mapped: true}
	for i, k := range args.Keys {
		v := args.Vals[i]
		switch k.Value {
		case "key-resolver", "keyResolver":
			key = Key{Expr: "key-resolver " + v.Value, Mapped: false}
			r.Warn(k, "key-resolver %s is a bean ratelab cannot read; the lane keys the route by the requests' own key", v.Value)
		case "deny-empty-key", "denyEmptyKey", "empty-key-status-code", "emptyKeyStatusCode":
			r.Warn(k, "%s decides what a request without a key gets; the lane gives every request a key", k.Value)
		case "status-code", "statusCode":
			code, ok := algorithms.SpringStatusCode(v.Value)
			if !ok || v.Kind != ScalarNode {
				return nil, Key{}, r.Errorf(v, "statusCode must name an HttpStatus from 400 to 599, as Spring binds it (by name: TOO_MANY_REQUESTS, SERVICE_UNAVAILABLE); it is %s", v.What())
			}
			l.Status = code
		case "rate-limiter", "rateLimiter":
			r.Warn(k, "rate-limiter %s is another bean than RedisRateLimiter; the lane runs RedisRateLimiter with the args here", v.Value)
		}
	}
	return l, key, nil
}

// readTraefik reads Traefik's dynamic configuration in YAML or TOML (a file
// with a [http…] table header): every http.middlewares.<name>.rateLimit
// (average, period, burst, sourceCriterion, redis). Each is a lane.
func readTraefik(name string, data []byte, _ Options) (*Config, error) {
	parse := ParseYAML
	if isTraefikTOML(data) {
		parse = ParseTOML
	}
	root, err := parse(name, data)
	if err != nil {
		return nil, err
	}
	c := &Config{File: name}
	r := Reader{File: name, Warnings: &c.Warnings}
	ms := root.Get("http").Get("middlewares")
	if ms == nil || ms.Kind != MapNode {
		return nil, r.Errorf(root, "no http.middlewares here: write http: {middlewares: {NAME: {rateLimit: {average: 100, burst: 200}}}} (Traefik's dynamic configuration in YAML)")
	}
	for i, k := range ms.Keys {
		m := ms.Vals[i]
		rl := m.Get("rateLimit")
		if rl == nil {
			continue
		}
		if err := r.Fields(rl, "rateLimit", "average", "period", "burst", "sourceCriterion", "redis"); err != nil {
			return nil, err
		}
		l := &TraefikLimit{Middleware: LaneWord(k.Value), Period: time.Second, Burst: 1}
		// New (pkg/middlewares/ratelimiter/rate_limiter.go at fd5a576d)
		// refuses a negative period (line 67) and takes 0 as a second (line
		// 70), then sets a rate only for an average above 0 (line 80): the
		// rate stays rate.Inf (line 75), and every request passes at once
		if v := rl.Get("period"); v != nil {
			if l.Period, err = traefikDuration(r, v); err != nil {
				return nil, err
			}
			if l.Period == 0 {
				l.Period = time.Second
				r.Warn(v, "period %s is a second to Traefik (rate_limiter.go:70, if period == 0 { period = time.Second }), and to the lane", v.Value)
			}
		}
		av := rl.Get("average")
		if av != nil {
			if l.Average, err = r.Int(av, "average", math.MinInt64, math.MaxInt64); err != nil {
				return nil, err
			}
		}
		switch {
		case av == nil || l.Average == 0:
			r.Warn(rl, "average is 0 (its default): the middleware limits nothing: no lane")
			continue
		case l.Average < 0:
			r.Warn(av, "average %d: Traefik limits nothing, as with 0 (rate_limiter.go:75-80: the rate is set only for an average above 0, else it stays rate.Inf and every request passes): no lane", l.Average)
			continue
		}
		if v := rl.Get("burst"); v != nil {
			if l.Burst, err = r.Int(v, "burst", math.MinInt64, math.MaxInt64); err != nil {
				return nil, err
			}
			if l.Burst < 1 {
				r.Warn(v, "burst %d is taken as 1, as Traefik does", l.Burst)
				l.Burst = 1
			}
		}
		key := Key{Expr: "the remote address", Trace: "ip", Mapped: true}
		if sc := rl.Get("sourceCriterion"); sc != nil {
			if err := r.Fields(sc, "sourceCriterion", "ipStrategy", "requestHeaderName", "requestHost"); err != nil {
				return nil, err
			}
			switch {
			case sc.Get("requestHeaderName") != nil:
				h := sc.Get("requestHeaderName")
				key = Key{Expr: "header " + h.Value, Mapped: false}
				r.Warn(h, "requestHeaderName %s keys the middleware by a header no request log field stands for; the lane keys it by the requests' own key", h.Value)
			case sc.Get("requestHost") != nil:
				key = Key{Expr: "the request's host", Mapped: false}
				r.Warn(sc.Get("requestHost"), "requestHost keys the middleware by the Host header, which a request log does not give; the lane keys it by the requests' own key")
			case sc.Get("ipStrategy") != nil:
				key = Key{Expr: "ipStrategy (X-Forwarded-For)", Trace: "ip", Mapped: true, Note: "the address ipStrategy takes from X-Forwarded-For; the log's ip is the one it records"}
				r.Warn(sc.Get("ipStrategy"), "ipStrategy takes the client's address from X-Forwarded-For; the lane takes the log's ip")
			}
		}
		if rd := rl.Get("redis"); rd != nil && !(rd.Kind == ScalarNode && rd.Tag == "!!null") { // null: no Redis, as Traefik's nil *Redis
			// Traefik's dynamic.Redis (v3.4); its endpoints and credentials are the
			// deployment's: the lane runs on the scenario's store
			if err := r.Fields(rd, "redis", "endpoints", "username", "password", "db", "tls", "poolSize", "minIdleConns", "maxActiveConns",
				"readTimeout", "writeTimeout", "dialTimeout"); err != nil {
				return nil, err
			}
			l.Redis = true
		}
		c.Lanes = append(c.Lanes, Lane{Name: "middleware " + l.Middleware, Place: r.At(k), Limits: []Limit{{Place: r.At(rl), Key: key, Params: l}}})
	}
	return c, nil
}

// traefikDuration reads a Traefik period (paerser's types.Duration): whole
// seconds or a Go duration ("1s", "1m"), 0 or more; a negative one is
// refused, as Traefik's New refuses it (rate_limiter.go:67, negative value
// not valid for period).
func traefikDuration(r Reader, n *Node) (time.Duration, error) {
	bad := r.Errorf(n, "period must be a duration such as \"1s\" or \"1m\" (or whole seconds); it is %s", n.What())
	if n.Kind != ScalarNode {
		return 0, bad
	}
	var d time.Duration
	if s, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
		if s > math.MaxInt64/int64(time.Second) || s < math.MinInt64/int64(time.Second) {
			return 0, bad
		}
		d = time.Duration(s) * time.Second
	} else if d, err = time.ParseDuration(n.Value); err != nil {
		return 0, bad
	}
	switch {
	case d < 0:
		return 0, r.Errorf(n, "period %s is negative, which Traefik refuses (negative value not valid for period); make it 0 (a second) or more", n.Value)
	case d%time.Microsecond != 0:
		return 0, r.Errorf(n, "period %s is not whole microseconds, which ratelab's clock runs on; round it", n.Value)
	}
	return d, nil
}

// kongWindows are the plugin's windows, in its order.
var kongWindows = []string{"second", "minute", "hour", "day", "month", "year"}

// kongConfigFields are the rate-limiting plugin's config fields (schema.lua,
// 3.x).
var kongConfigFields = []string{"second", "minute", "hour", "day", "month", "year", "limit_by", "header_name", "path",
	"policy", "fault_tolerant", "redis", "redis_host", "redis_port", "redis_password", "redis_username", "redis_ssl",
	"redis_ssl_verify", "redis_server_name", "redis_timeout", "redis_database", "hide_client_headers", "error_code",
	"error_message", "sync_rate"}

// readKong reads Kong's declarative configuration (kong.yml): every plugin
// named rate-limiting, at the top level or under a service, route or
// consumer. Each enabled one is a lane.
func readKong(name string, data []byte, _ Options) (*Config, error) {
	root, err := ParseYAML(name, data)
	if err != nil {
		return nil, err
	}
	c := &Config{File: name}
	r := Reader{File: name, Warnings: &c.Warnings}
	var found []kongFound
	var walk func(n *Node, where string, depth int)
	walk = func(n *Node, where string, depth int) {
		if n.Kind == MapNode {
			if nm := n.Get("name"); nm != nil && nm.Value == "rate-limiting" && n.Get("config") != nil {
				found = append(found, kongFound{where, n})
				return
			}
			for i, k := range n.Keys {
				w := where
				if (k.Value == "plugins") && depth > 0 {
					if nm := n.Get("name"); nm != nil && nm.Kind == ScalarNode {
						w = strings.TrimSpace(where + " " + LaneWord(nm.Value))
					}
				}
				if k.Value == "services" || k.Value == "routes" || k.Value == "consumers" {
					w = strings.TrimSpace(where + " " + strings.TrimSuffix(k.Value, "s"))
				}
				walk(n.Vals[i], w, depth+1)
			}
			return
		}
		for _, v := range n.Vals {
			walk(v, where, depth+1)
		}
	}
	walk(root, "", 0)
	if len(found) == 0 {
		return nil, r.Errorf(root, "no rate-limiting plugin here: write plugins: [{name: rate-limiting, config: {minute: 6, policy: local}}] (at the top, or under a service or route)")
	}
	if err := AddLanes(c, found, func(_ int, f kongFound) (*Lane, error) { return r.kongPlugin(f.p, f.where) }); err != nil {
		return nil, err
	}
	return c, nil
}

// kongFound is a rate-limiting plugin found in a declarative file, with where
// it is (the service, route or consumer it is on; "" at the top).
type kongFound struct {
	where string
	p     *Node
}

// kongPlugin reads one rate-limiting plugin.
func (r Reader) kongPlugin(p *Node, where string) (*Lane, error) {
	if e := p.Get("enabled"); e != nil {
		on, err := r.Bool(e, "enabled")
		if err != nil {
			return nil, err
		}
		if !on {
			r.Warn(e, "the plugin is disabled (enabled: false): no lane")
			return nil, nil
		}
	}
	cfg := p.Get("config")
	if err := r.Fields(cfg, "the rate-limiting plugin's config", kongConfigFields...); err != nil {
		return nil, err
	}
	l := &KongLimit{Policy: "local", Status: 429}
	any := false
	prev, prevName := int64(0), ""
	for w, wn := range kongWindows {
		v := cfg.Get(wn)
		if v == nil || v.Tag == "!!null" {
			continue
		}
		n, err := r.Int(v, wn, 0, math.MaxInt64)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			continue
		}
		if prev > 0 && n < prev {
			return nil, r.Errorf(v, "the limit for %s (%d) is lower than the limit for %s (%d), which Kong's schema refuses; raise it", wn, n, prevName, prev)
		}
		prev, prevName = n, wn
		l.Windows[w] = n
		any = true
	}
	if !any {
		return nil, r.Errorf(cfg, "the plugin sets no limit, which Kong's schema refuses (at least one of second, minute, hour, day, month, year); add minute: 60")
	}
	if l.Windows[0] == 0 && l.Windows[1] == 0 && l.Windows[2] == 0 && l.Windows[3] == 0 {
		r.Warn(cfg, "the plugin limits only per month or year; the lane needs a second, minute, hour or day limit: no lane")
		return nil, nil
	}
	if v := cfg.Get("policy"); v != nil {
		s, err := r.Text(v, "policy")
		if err != nil {
			return nil, err
		}
		if s != "local" && s != "cluster" && s != "redis" {
			return nil, r.Errorf(v, "policy %q is not one of Kong's; use local, cluster or redis", s)
		}
		l.Policy = s
	}
	if v := cfg.Get("error_code"); v != nil {
		s, err := r.Int(v, "error_code", 400, 599)
		if err != nil {
			return nil, err
		}
		l.Status = int(s)
	}
	if v := cfg.Get("hide_client_headers"); v != nil {
		hide, err := r.Bool(v, "hide_client_headers")
		if err != nil {
			return nil, err
		}
		l.HideClientHeaders = hide
	}
	if v := cfg.Get("sync_rate"); v != nil {
		if f, err := r.Number(v, "sync_rate", -1, 1e9); err != nil {
			return nil, err
		} else if f > 0 {
			r.Warn(v, "sync_rate %g flushes the counters to Redis in batches; the lane counts as sync_rate -1 does", f)
		}
	}
	key := Key{Expr: "consumer", Trace: "user", Mapped: true, Note: "Kong's consumer, falling back to the client's IP"}
	if v := cfg.Get("limit_by"); v != nil {
		switch v.Value {
		case "consumer", "credential":
		case "ip":
			key = Key{Expr: "ip", Trace: "ip", Mapped: true}
		case "path":
			path := ""
			if pn := cfg.Get("path"); pn != nil {
				path = pn.Value
			}
			key = Key{Expr: "path " + path, Shared: true, Mapped: true}
		case "service":
			key = Key{Expr: "service", Shared: true, Mapped: true}
		case "header", "consumer-group":
			key = Key{Expr: v.Value, Mapped: false}
			r.Warn(v, "limit_by %s keys the plugin by what no request log field stands for; the lane keys it by the requests' own key", v.Value)
		default:
			return nil, r.Errorf(v, "limit_by %q is not one of Kong's; use consumer, credential, ip, service, header, path or consumer-group", v.Value)
		}
	}
	name := strings.TrimSpace(where + " rate-limiting")
	if where != "" {
		r.Warn(p, "the plugin holds the requests of its %s; the lane holds every request", where)
	}
	l.Plugin = name
	return &Lane{Name: name, Place: r.At(p), Limits: []Limit{{Place: r.At(cfg), Key: key, Params: l}}}, nil
}

// isTraefikTOML says a Traefik configuration is TOML: a line opens a table
// of http ([http…] or [[http…]]).
func isTraefikTOML(data []byte) bool {
	for line := range bytes.Lines(data) {
		t := bytes.TrimLeft(bytes.TrimSpace(line), "[")
		if len(t) < len(bytes.TrimSpace(line)) && bytes.HasPrefix(t, []byte("http")) {
			return true
		}
	}
	return false
}

// detectSpring finds the RequestRateLimiter filter.
func detectSpring(data []byte) Sign {
	if bytes.Contains(data, []byte("RequestRateLimiter")) {
		return Sign{Mark: StrongMark}
	}
	return Sign{}
}

// detectTraefik finds a rateLimit among http middlewares (YAML's
// middlewares:, TOML's [http.middlewares…]).
func detectTraefik(data []byte) Sign {
	if bytes.Contains(data, []byte("rateLimit")) && (bytes.Contains(data, []byte("middlewares:")) || bytes.Contains(data, []byte("[http.middlewares"))) {
		return Sign{Mark: StrongMark}
	}
	return Sign{}
}

// detectKong finds a declarative configuration's _format_version, or a
// plugin named rate-limiting.
func detectKong(data []byte) Sign {
	if bytes.Contains(data, []byte("_format_version")) || bytes.Contains(data, []byte("name: rate-limiting")) {
		return Sign{Mark: StrongMark}
	}
	return Sign{}
}

// springLanes maps each RequestRateLimiter to a lane: replenishRate R,
// burstCapacity B, requestedTokens k are R requests per k seconds with a burst
// of B/k requests (algorithms.SpringConfigOf gives them back, divided by their
// common factor, which decides the same).
func springLanes(l Lane, m *Mapping) []RatelabLane {
	return EachLimit(l, m, func(lim Limit) (RatelabLimit, string) {
		s := lim.Params.(*SpringLimit)
		o := algorithms.Options{}
		if s.Status != 429 {
			o.DenyStatus = s.Status
		}
		return RatelabLimit{Name: s.Route, Algorithm: algorithms.SpringName, Options: o,
			Policy: algorithms.Policy{Limit: s.ReplenishRate, Period: time.Duration(s.RequestedTokens) * time.Second, Burst: s.BurstCapacity / s.RequestedTokens}}, l.Name
	})
}

// traefikLanes maps each rateLimit to a lane: average per period, burst; on
// Redis with its redis option.
func traefikLanes(l Lane, m *Mapping) []RatelabLane {
	return EachLimit(l, m, func(lim Limit) (RatelabLimit, string) {
		t := lim.Params.(*TraefikLimit)
		algorithm := algorithms.TraefikName
		if t.Redis {
			algorithm = algorithms.TraefikRedisName
		}
		return RatelabLimit{Name: t.Middleware, Algorithm: algorithm, Policy: algorithms.Policy{Limit: t.Average, Period: t.Period, Burst: t.Burst}}, l.Name
	})
}

// kongLanes maps each plugin to a lane: the shortest of its second, minute,
// hour and day limits as the policy, the others as kong_windows, policy and
// error_code as options.
func kongLanes(l Lane, m *Mapping) []RatelabLane {
	return EachLimit(l, m, func(lim Limit) (RatelabLimit, string) {
		k := lim.Params.(*KongLimit)
		periods := []time.Duration{time.Second, time.Minute, time.Hour, 24 * time.Hour}
		o := algorithms.Options{}
		switch k.Policy {
		case "cluster":
			o.KongPolicy = algorithms.KongCluster
		case "redis":
			o.KongPolicy = algorithms.KongRedis
		}
		if k.Status != 429 {
			o.DenyStatus = k.Status
		}
		o.HideClientHeaders = k.HideClientHeaders
		var p algorithms.Policy
		for w, limit := range k.Windows {
			switch {
			case limit == 0:
			case p.Limit == 0 && w < len(periods):
				p = algorithms.Policy{Limit: limit, Period: periods[w]}
			default:
				o.KongWindows[w] = limit
			}
		}
		return RatelabLimit{Name: k.Plugin, Algorithm: algorithms.KongName, Policy: p, Options: o}, l.Name
	})
}
