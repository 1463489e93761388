package traefik

import (
	"math"
	"strconv"
	"time"

	"ratelab/products"
)

// read reads Traefik's dynamic configuration in YAML or TOML (a file
// with a [http…] table header): every http.middlewares.<name>.rateLimit
// (average, period, burst, sourceCriterion, redis). Each is a lane.
func read(name string, data []byte, _ products.Options) (*products.Config, error) {
	parse := products.ParseYAML
	if isTOML(data) {
		parse = products.ParseTOML
	}
	root, c, tree, err := products.ReadTree(name, data, parse)
	if err != nil {
		return nil, err
	}
	r := reader{tree}
	ms := root.Get("http").Get("middlewares")
	if ms == nil || ms.Kind != products.MapNode {
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
		l := &Limit{Middleware: products.LaneWord(k.Value), Period: time.Second, Burst: 1}
		// New (pkg/middlewares/ratelimiter/rate_limiter.go at fd5a576d)
		// refuses a negative period (line 67) and takes 0 as a second (line
		// 70), then sets a rate only for an average above 0 (line 80): the
		// rate stays rate.Inf (line 75), and every request passes at once
		if v := rl.Get("period"); v != nil {
			if l.Period, err = r.period(v); err != nil {
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
		key := products.Key{Expr: "the remote address", Trace: "ip", Mapped: true}
		if sc := rl.Get("sourceCriterion"); sc != nil {
			if err := r.Fields(sc, "sourceCriterion", "ipStrategy", "requestHeaderName", "requestHost"); err != nil {
				return nil, err
			}
			switch {
			case sc.Get("requestHeaderName") != nil:
				h := sc.Get("requestHeaderName")
				key = products.Key{Expr: "header " + h.Value, Mapped: false}
				r.Warn(h, "requestHeaderName %s keys the middleware by a header no request log field stands for; the lane keys it by the requests' own key", h.Value)
			case sc.Get("requestHost") != nil:
				key = products.Key{Expr: "the request's host", Mapped: false}
				r.Warn(sc.Get("requestHost"), "requestHost keys the middleware by the Host header, which a request log does not give; the lane keys it by the requests' own key")
			case sc.Get("ipStrategy") != nil:
				key = products.Key{Expr: "ipStrategy (X-Forwarded-For)", Trace: "ip", Mapped: true, Note: "the address ipStrategy takes from X-Forwarded-For; the log's ip is the one it records"}
				r.Warn(sc.Get("ipStrategy"), "ipStrategy takes the client's address from X-Forwarded-For; the lane takes the log's ip")
			}
		}
		if rd := rl.Get("redis"); rd != nil && !(rd.Kind == products.ScalarNode && rd.Tag == "!!null") { // null: no Redis, as Traefik's nil *Redis
			// Traefik's dynamic.Redis (v3.4); its endpoints and credentials are the
			// deployment's: the lane runs on the scenario's store
			if err := r.Fields(rd, "redis", "endpoints", "username", "password", "db", "tls", "poolSize", "minIdleConns", "maxActiveConns",
				"readTimeout", "writeTimeout", "dialTimeout"); err != nil {
				return nil, err
			}
			l.Redis = true
		}
		c.Lanes = append(c.Lanes, products.Lane{Name: "middleware " + l.Middleware, Place: r.At(k), Limits: []products.Limit{{Place: r.At(rl), Key: key, Params: l}}})
	}
	return c, nil
}

// period reads a Traefik period (paerser's types.Duration): whole
// seconds or a Go duration ("1s", "1m"), 0 or more; a negative one is
// refused, as Traefik's New refuses it (rate_limiter.go:67, negative value
// not valid for period).
func (r reader) period(n *products.Node) (time.Duration, error) {
	bad := r.Errorf(n, "period must be a duration such as \"1s\" or \"1m\" (or whole seconds); it is %s", n.What())
	if n.Kind != products.ScalarNode {
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
