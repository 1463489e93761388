package gubernator

import (
	"bytes"
	"math"
	"strings"
	"time"

	"ratelab/products"
)

// reader reads Gubernator's requests.
type reader struct{ products.Reader }

// read reads {requests: [...]} (GetRateLimitsReq), or a list of requests, in
// JSON or YAML: each request with a limit above 0 is a lane.
func read(name string, data []byte, _ products.Options) (*products.Config, error) {
	parse := products.ParseYAML
	if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		parse = products.ParseJSON
	}
	root, c, tree, err := products.ReadTree(name, data, parse)
	if err != nil {
		return nil, err
	}
	r := reader{tree}
	reqs := root
	if root.Kind == products.MapNode {
		if err := r.Fields(root, "GetRateLimitsReq", "requests", "behaviors"); err != nil {
			return nil, err
		}
		reqs = root.Get("requests")
		if b := root.Get("behaviors"); b != nil {
			if err := r.behaviors(b); err != nil {
				return nil, err
			}
		}
	}
	if reqs == nil || reqs.Kind != products.SeqNode {
		return nil, r.Errorf(root, "no requests here: write {requests: [{name: requests_per_sec, unique_key: account, limit: 10, duration: 1000}]} (GetRateLimitsReq)")
	}
	for _, q := range reqs.Vals {
		l, err := r.request(q)
		if err != nil {
			return nil, err
		}
		if l == nil {
			continue
		}
		c.Lanes = append(c.Lanes, products.Lane{Name: "rate limit " + products.LaneWord(l.Name), Place: r.At(q),
			Limits: []products.Limit{{Place: r.At(q), Key: products.Key{Expr: "unique_key " + products.LaneWord(l.UniqueKey)}, Params: l}}})
	}
	return c, nil
}

// request reads one RateLimitReq: nil, with a note, for one that limits
// nothing.
func (r reader) request(q *products.Node) (*Limit, error) {
	if q.Kind != products.MapNode {
		return nil, r.Errorf(q, "a request must be a map {name, unique_key, limit, duration}; it is %s", q.What())
	}
	if err := r.Fields(q, "request", "name", "unique_key", "hits", "limit", "duration", "algorithm", "behavior", "burst", "metadata", "created_at"); err != nil {
		return nil, err
	}
	l := &Limit{Name: "limit", UniqueKey: "key"}
	if v := q.Get("name"); v != nil {
		l.Name = v.Value
	}
	if v := q.Get("unique_key"); v != nil {
		l.UniqueKey = v.Value
	}
	if v := q.Get("algorithm"); v != nil {
		switch strings.ToUpper(v.Value) {
		case "TOKEN_BUCKET", "0":
		case "LEAKY_BUCKET", "1":
			return nil, r.Errorf(v, "LEAKY_BUCKET is not modelled yet; the lane runs Gubernator's TOKEN_BUCKET (a window of limit hits from the first request): write algorithm: TOKEN_BUCKET")
		default:
			return nil, r.Errorf(v, "algorithm must be TOKEN_BUCKET or LEAKY_BUCKET (got %s)", v.Value)
		}
	}
	lim := q.Get("limit")
	if lim == nil {
		r.Warn(q, "no limit: Gubernator answers OVER_LIMIT to every hit of a limit of 0: no lane")
		return nil, nil
	}
	var err error
	if l.Limit, err = r.Int(lim, "limit", math.MinInt64, math.MaxInt64); err != nil {
		return nil, err
	}
	if l.Limit <= 0 {
		r.Warn(lim, "limit %d: Gubernator refuses every hit: no lane", l.Limit)
		return nil, nil
	}
	d := q.Get("duration")
	if d == nil {
		return nil, r.Errorf(q, "duration is missing: the window's length in milliseconds, e.g. duration: 1000")
	}
	ms, err := r.Int(d, "duration (ms)", 1, math.MaxInt64/int64(time.Millisecond))
	if err != nil {
		return nil, err
	}
	l.Duration = time.Duration(ms) * time.Millisecond
	if b := q.Get("behavior"); b != nil {
		for _, word := range strings.FieldsFunc(strings.ToUpper(b.Value), func(r rune) bool { return r == '|' || r == ',' || r == ' ' }) {
			switch word {
			case "BATCHING", "NO_BATCHING":
			case "GLOBAL":
				l.Global = true
				r.Warn(b, "GLOBAL is how the peers share the limit: the lane is one peer; a scenario's lane of algorithm = \"gubernator\" runs it on several, instances = N with sync = \"gubernator-global\" and sync_wait (GlobalSyncWait, 100ms by default)")
			case "RESET_REMAINING", "DURATION_IS_GREGORIAN", "DRAIN_OVER_LIMIT", "MULTI_REGION":
				r.Warn(b, "%s is not modelled: the lane runs the token bucket without it", word)
			default:
				return nil, r.Errorf(b, "behavior %s is none of Gubernator's (BATCHING, NO_BATCHING, GLOBAL, DURATION_IS_GREGORIAN, RESET_REMAINING, MULTI_REGION, DRAIN_OVER_LIMIT)", word)
			}
		}
	}
	if h := q.Get("hits"); h != nil {
		r.Warn(h, "hits is the client's per request; the lane takes a request's cost as its hits")
	}
	return l, nil
}

// behaviors reads the daemon's BehaviorConfig (config.go): noted, as the
// deployment's (sync_wait, sync_batch_limit).
func (r reader) behaviors(b *products.Node) error {
	if err := r.Fields(b, "behaviors", "batch_timeout", "batch_wait", "batch_limit", "disable_batching", "global_timeout", "global_sync_wait", "global_batch_limit", "global_peer_requests_concurrency", "force_global"); err != nil {
		return err
	}
	if v := b.Get("global_sync_wait"); v != nil {
		r.Warn(v, "global_sync_wait %s is the deployment's: give the lane sync_wait = %q", v.Value, v.Value)
	}
	if v := b.Get("global_batch_limit"); v != nil {
		r.Warn(v, "global_batch_limit %s is the deployment's: give the lane sync_batch_limit = %s", v.Value, v.Value)
	}
	return nil
}
