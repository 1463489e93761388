package kong

import (
	"math"
	"strings"

	"ratelab/algorithms"
	"ratelab/products"
)

// configFields are the rate-limiting plugin's config fields (schema.lua,
// 3.x): its windows and these.
var configFields = append(algorithms.KongWindowNames[:], "limit_by", "header_name", "path",
	"policy", "fault_tolerant", "redis", "redis_host", "redis_port", "redis_password", "redis_username", "redis_ssl",
	"redis_ssl_verify", "redis_server_name", "redis_timeout", "redis_database", "hide_client_headers", "error_code",
	"error_message", "sync_rate")

// read reads Kong's declarative configuration (kong.yml): every plugin
// named rate-limiting, at the top level or under a service, route or
// consumer. Each enabled one is a lane.
func read(name string, data []byte, _ products.Options) (*products.Config, error) {
	root, c, tree, err := products.ReadTree(name, data, products.ParseYAML)
	if err != nil {
		return nil, err
	}
	r := reader{tree}
	var found []foundPlugin
	var walk func(n *products.Node, where string, depth int)
	walk = func(n *products.Node, where string, depth int) {
		if n.Kind == products.MapNode {
			if nm := n.Get("name"); nm != nil && nm.Value == "rate-limiting" && n.Get("config") != nil {
				found = append(found, foundPlugin{where, n})
				return
			}
			for i, k := range n.Keys {
				w := where
				if (k.Value == "plugins") && depth > 0 {
					if nm := n.Get("name"); nm != nil && nm.Kind == products.ScalarNode {
						w = strings.TrimSpace(where + " " + products.LaneWord(nm.Value))
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
	if err := products.AddLanes(c, found, func(_ int, f foundPlugin) (*products.Lane, error) { return r.plugin(f.p, f.where) }); err != nil {
		return nil, err
	}
	return c, nil
}

// foundPlugin is a rate-limiting plugin found in a declarative file, with where
// it is (the service, route or consumer it is on; "" at the top).
type foundPlugin struct {
	where string
	p     *products.Node
}

// plugin reads one rate-limiting plugin.
func (r reader) plugin(p *products.Node, where string) (*products.Lane, error) {
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
	if err := r.Fields(cfg, "the rate-limiting plugin's config", configFields...); err != nil {
		return nil, err
	}
	l := &Limit{Policy: "local", Status: 429}
	any := false
	prev, prevName := int64(0), ""
	for w, wn := range algorithms.KongWindowNames {
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
	key := products.Key{Expr: "consumer", Trace: "user", Mapped: true, Note: "Kong's consumer, falling back to the client's IP"}
	if v := cfg.Get("limit_by"); v != nil {
		switch v.Value {
		case "consumer", "credential":
		case "ip":
			key = products.Key{Expr: "ip", Trace: "ip", Mapped: true}
		case "path":
			path := ""
			if pn := cfg.Get("path"); pn != nil {
				path = pn.Value
			}
			key = products.Key{Expr: "path " + path, Shared: true, Mapped: true}
		case "service":
			key = products.Key{Expr: "service", Shared: true, Mapped: true}
		case "header", "consumer-group":
			key = products.Key{Expr: v.Value, Mapped: false}
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
	return &products.Lane{Name: name, Place: r.At(p), Limits: []products.Limit{{Place: r.At(cfg), Key: key, Params: l}}}, nil
}
