package spring

import (
	"fmt"
	"math"
	"strings"

	"ratelab/algorithms"
	"ratelab/products"
)

// read reads a Spring Cloud Gateway application.yml: every route (under
// spring.cloud.gateway.routes, or .server.webflux.routes since 4.3) and the
// default-filters, whose filters hold a RequestRateLimiter with its
// redis-rate-limiter args (replenishRate, burstCapacity, requestedTokens;
// kebab-case or nested as Spring's relaxed binding reads them). Each is a lane.
func read(name string, data []byte, _ products.Options) (*products.Config, error) {
	root, c, tree, err := products.ReadTree(name, data, products.ParseYAML)
	if err != nil {
		return nil, err
	}
	r := reader{tree}
	gw := root.Get("spring").Get("cloud").Get("gateway")
	if w := gw.Get("server").Get("webflux"); w != nil {
		gw = w
	}
	if gw == nil {
		return nil, r.Errorf(root, "no spring.cloud.gateway here: write the routes under spring.cloud.gateway.routes (or spring.cloud.gateway.server.webflux.routes), each with filters: [{name: RequestRateLimiter, args: {...}}]")
	}
	type holder struct {
		name    string
		filters *products.Node
		route   bool
	}
	var hs []holder
	if d := gw.Get("default-filters"); d != nil {
		hs = append(hs, holder{"default-filters", d, false})
	}
	if rs := gw.Get("routes"); rs != nil {
		if rs.Kind != products.SeqNode {
			return nil, r.Errorf(rs, "routes must be a list of routes; it is %s", rs.What())
		}
		for i, rt := range rs.Vals {
			id := fmt.Sprintf("route %d", i+1)
			if v := rt.Get("id"); v != nil && v.Kind == products.ScalarNode {
				id = "route " + products.LaneWord(v.Value)
			}
			if f := rt.Get("filters"); f != nil {
				hs = append(hs, holder{id, f, true})
			}
		}
	}
	for _, h := range hs {
		if h.filters.Kind != products.SeqNode {
			return nil, r.Errorf(h.filters, "filters must be a list; it is %s", h.filters.What())
		}
		for _, f := range h.filters.Vals {
			if f.Kind == products.ScalarNode {
				if strings.HasPrefix(strings.TrimSpace(f.Value), "RequestRateLimiter") {
					return nil, r.Errorf(f, "RequestRateLimiter has no shortcut form Spring reads its redis-rate-limiter from; write it as {name: RequestRateLimiter, args: {redis-rate-limiter.replenishRate: 10, redis-rate-limiter.burstCapacity: 20}}")
				}
				continue
			}
			if n := f.Get("name"); n == nil || n.Value != "RequestRateLimiter" {
				continue
			}
			l, key, err := r.filter(f)
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
			c.Lanes = append(c.Lanes, products.Lane{Name: h.name, Place: r.At(f), Limits: []products.Limit{{Place: r.At(f), Key: key, Params: l}}})
		}
	}
	return c, nil
}

// arg is a filter's argument by Spring's relaxed binding: flat
// ("redis-rate-limiter.replenishRate"), kebab-case ("replenish-rate") or
// nested (redis-rate-limiter: {replenishRate: …}).
func arg(args *products.Node, camel, kebab string) *products.Node {
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

// filter reads a RequestRateLimiter filter.
func (r reader) filter(f *products.Node) (*Limit, products.Key, error) {
	args := f.Get("args")
	if args == nil || args.Kind != products.MapNode {
		return nil, products.Key{}, r.Errorf(f, "RequestRateLimiter needs its args: add args: {redis-rate-limiter.replenishRate: 10, redis-rate-limiter.burstCapacity: 20}")
	}
	known := map[string]bool{}
	l := &Limit{BurstCapacity: 1, RequestedTokens: 1, Status: 429}
	rr := arg(args, "replenishRate", "replenish-rate")
	if rr == nil {
		return nil, products.Key{}, r.Errorf(args, "RequestRateLimiter has no redis-rate-limiter.replenishRate; add redis-rate-limiter.replenishRate: 10 (tokens a second)")
	}
	var err error
	if l.ReplenishRate, err = r.Int(rr, "replenishRate", 0, math.MaxInt32); err != nil {
		return nil, products.Key{}, err
	}
	known[rr.Value] = true
	if v := arg(args, "burstCapacity", "burst-capacity"); v != nil {
		if l.BurstCapacity, err = r.Int(v, "burstCapacity", 0, maxBurstCapacity); err != nil {
			return nil, products.Key{}, err
		}
	}
	if v := arg(args, "requestedTokens", "requested-tokens"); v != nil {
		if l.RequestedTokens, err = r.Int(v, "requestedTokens", 1, math.MaxInt32); err != nil {
			return nil, products.Key{}, err
		}
	}
	if l.ReplenishRate == 0 || l.BurstCapacity < l.RequestedTokens {
		r.Warn(args, "replenishRate %d, burstCapacity %d and requestedTokens %d refuse every request: no lane", l.ReplenishRate, l.BurstCapacity, l.RequestedTokens)
		return nil, products.Key{}, nil
	}
	if l.BurstCapacity%l.RequestedTokens != 0 {
		r.Warn(args, "burstCapacity %d is not a whole number of requests of %d tokens; the lane holds %d", l.BurstCapacity, l.RequestedTokens, l.BurstCapacity/l.RequestedTokens*l.RequestedTokens)
	}
	key := products.Key{Expr: "PrincipalNameKeyResolver (the user's principal)", Trace: "user", Mapped: true}
	for i, k := range args.Keys {
		v := args.Vals[i]
		switch k.Value {
		case "key-resolver", "keyResolver":
			key = products.Key{Expr: "key-resolver " + v.Value, Mapped: false}
			r.Warn(k, "key-resolver %s is a bean ratelab cannot read; the lane keys the route by the requests' own key", v.Value)
		case "deny-empty-key", "denyEmptyKey", "empty-key-status-code", "emptyKeyStatusCode":
			r.Warn(k, "%s decides what a request without a key gets; the lane gives every request a key", k.Value)
		case "status-code", "statusCode":
			code, ok := algorithms.SpringStatusCode(v.Value)
			if !ok || v.Kind != products.ScalarNode {
				return nil, products.Key{}, r.Errorf(v, "statusCode must name an HttpStatus from 400 to 599, as Spring binds it (by name: TOO_MANY_REQUESTS, SERVICE_UNAVAILABLE); it is %s", v.What())
			}
			l.Status = code
		case "rate-limiter", "rateLimiter":
			r.Warn(k, "rate-limiter %s is another bean than RedisRateLimiter; the lane runs RedisRateLimiter with the args here", v.Value)
		}
	}
	return l, key, nil
}
