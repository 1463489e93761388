package cloudflare

import (
	"fmt"
	"math"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
)

// ruleFields are a rule's fields in the Rulesets API (a rule of the
// http_ratelimit phase).
var ruleFields = []string{"id", "version", "action", "expression", "description", "enabled", "ref",
	"action_parameters", "ratelimit", "logging", "last_updated", "categories"}

// ratelimitFields are a rule's ratelimit's fields.
var ratelimitFields = []string{"characteristics", "period", "requests_per_period", "mitigation_timeout",
	"counting_expression", "requests_to_origin", "score_per_period", "score_response_header_name"}

// actions are the actions a rate limiting rule takes.
var actions = []string{"block", "challenge", "js_challenge", "managed_challenge", "log"}

// characteristics are the characteristics a request log's fields
// stand for.
var characteristics = map[string]string{
	"ip.src": "ip", "http.request.uri.path": "path", "http.request.method": "method",
}

// read reads Cloudflare's rate limiting rules as the Rulesets API
// writes them (docs: waf/rate-limiting-rules/parameters and
// create-api): a response ({"result": ruleset}), a ruleset ({"rules": […]}),
// a list of rules, or one rule. Each enabled rule with a ratelimit is a lane.
func read(name string, data []byte, _ products.Options) (*products.Config, error) {
	root, c, tree, err := products.ReadTree(name, data, products.ParseJSON)
	if err != nil {
		return nil, err
	}
	r := reader{tree}
	n := root
	if res := n.Get("result"); res != nil {
		n = res
	}
	if rules := n.Get("rules"); rules != nil {
		if p := n.Get("phase"); p != nil && p.Value != "http_ratelimit" {
			return nil, r.Errorf(p, "the ruleset's phase is %s; rate limiting rules are the http_ratelimit phase's", p.What())
		}
		n = rules
	}
	var rules []*products.Node
	switch {
	case n.Kind == products.SeqNode:
		rules = n.Vals
	case n.Kind == products.MapNode && n.Get("ratelimit") != nil:
		rules = []*products.Node{n}
	default:
		return nil, r.Errorf(n, "no rate limiting rule here: write a rule ({\"action\": \"block\", \"expression\": …, \"ratelimit\": {…}}), a list of them, or a ruleset with its rules")
	}
	if err := products.AddLanes(c, rules, func(i int, rule *products.Node) (*products.Lane, error) { return r.rule(rule, i) }); err != nil {
		return nil, err
	}
	return c, nil
}

// rule reads one rule; nil when it limits nothing (a Warning says
// why).
func (r reader) rule(rule *products.Node, i int) (*products.Lane, error) {
	if err := r.Fields(rule, "a rule", ruleFields...); err != nil {
		return nil, err
	}
	rl := rule.Get("ratelimit")
	if rl == nil {
		r.Warn(rule, "this rule has no ratelimit: it is not a rate limiting rule, and no lane")
		return nil, nil
	}
	if err := r.Fields(rl, "ratelimit", ratelimitFields...); err != nil {
		return nil, err
	}
	l := &Limit{Rule: fmt.Sprintf("rule %d", i+1), Action: "block", Status: 429}
	for _, k := range []string{"description", "ref", "id"} {
		if v := rule.Get(k); v != nil && v.Kind == products.ScalarNode && v.Value != "" {
			l.Rule = products.LaneWord(v.Value)
			break
		}
	}
	if e := rule.Get("enabled"); e != nil {
		on, err := r.Bool(e, "enabled")
		if err != nil {
			return nil, err
		}
		if !on {
			r.Warn(e, "the rule is disabled (enabled: false): no lane")
			return nil, nil
		}
	}
	if a := rule.Get("action"); a != nil {
		act, err := r.Text(a, "action")
		if err != nil {
			return nil, err
		}
		found := false
		for _, x := range actions {
			found = found || x == act
		}
		if !found {
			return nil, r.Errorf(a, "action %q is not one a rate limiting rule takes; use %s", act, strings.Join(actions, ", "))
		}
		l.Action = act
		switch act {
		case "log":
			r.Warn(a, "action log only records the requests over the rate; the lane blocks them (read its refusals as what Cloudflare would log)")
		case "challenge", "js_challenge", "managed_challenge":
			r.Warn(a, "action %s answers a challenge, and one passed resets the counter; the lane blocks instead", act)
		}
	} else {
		return nil, r.Errorf(rule, "the rule has no action; add \"action\": \"block\"")
	}
	if ap := rule.Get("action_parameters"); ap != nil {
		if err := r.Fields(ap, "action_parameters", "response"); err != nil {
			return nil, err
		}
		if resp := ap.Get("response"); resp != nil {
			if err := r.Fields(resp, "action_parameters.response", "status_code", "content", "content_type"); err != nil {
				return nil, err
			}
			if sc := resp.Get("status_code"); sc != nil {
				s, err := r.Int(sc, "response.status_code", 400, 499)
				if err != nil {
					return nil, err
				}
				l.Status = int(s)
			}
		}
	}
	if ex := rule.Get("expression"); ex != nil {
		if s, _ := r.Text(ex, "expression"); strings.TrimSpace(s) != "true" {
			r.Warn(ex, "the expression decides which requests the rule applies to (%s); the lane holds every request", short(s))
		}
	} else {
		return nil, r.Errorf(rule, "the rule has no expression; add \"expression\": \"true\" (every request) or one that matches the requests to limit")
	}
	// the counter
	pn := rl.Get("period")
	if pn == nil {
		return nil, r.Errorf(rl, "ratelimit has no period; add \"period\": 60 (seconds)")
	}
	p, err := r.Int(pn, "period", 1, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	l.Period = time.Duration(p) * time.Second
	rp := rl.Get("requests_per_period")
	if rp == nil {
		if sp := rl.Get("score_per_period"); sp != nil {
			r.Warn(sp, "score_per_period limits a score the origin's responses add up (score_response_header_name), which the lane cannot count: no lane")
			return nil, nil
		}
		return nil, r.Errorf(rl, "ratelimit has no requests_per_period; add \"requests_per_period\": 100")
	}
	if l.RequestsPerPeriod, err = r.Int(rp, "requests_per_period", 1, math.MaxInt32); err != nil {
		return nil, err
	}
	if mt := rl.Get("mitigation_timeout"); mt != nil {
		s, err := r.Int(mt, "mitigation_timeout", 0, 86400)
		if err != nil {
			return nil, err
		}
		l.MitigationTimeout = time.Duration(s) * time.Second
	}
	o := algorithms.Options{MitigationTimeout: l.MitigationTimeout}
	if err := algorithms.CheckCloudflarePolicy(algorithms.Policy{Limit: l.RequestsPerPeriod, Period: l.Period}, o); err != nil {
		at := pn
		if mt := rl.Get("mitigation_timeout"); mt != nil && strings.Contains(err.Error(), "mitigation_timeout") {
			at = mt
		}
		return nil, r.Errorf(at, "%v", err)
	}
	if ce := rl.Get("counting_expression"); ce != nil {
		if s, _ := r.Text(ce, "counting_expression"); s != "" {
			r.Warn(ce, "counting_expression decides which requests add to the counter (%s); the lane counts every request", short(s))
		}
	}
	if ro := rl.Get("requests_to_origin"); ro != nil {
		on, err := r.Bool(ro, "requests_to_origin")
		if err != nil {
			return nil, err
		}
		if on {
			r.Warn(ro, "requests_to_origin: true counts only the requests that reach the origin (not those the cache answers); the lane counts every request")
		}
	}
	// the key: what identifies a client
	ch := rl.Get("characteristics")
	if ch == nil || ch.Kind != products.SeqNode {
		return nil, r.Errorf(rl, "ratelimit needs characteristics, a list that includes \"cf.colo.id\"; add \"characteristics\": [\"cf.colo.id\", \"ip.src\"]")
	}
	key := products.Key{Mapped: true}
	var trace []string
	colo := false
	for _, v := range ch.Vals {
		s, err := r.Text(v, "a characteristic")
		if err != nil {
			return nil, err
		}
		l.Characteristics = append(l.Characteristics, s)
		if s == "cf.colo.id" {
			colo = true
			continue
		}
		if f, ok := characteristics[s]; ok {
			trace = append(trace, f)
			continue
		}
		key.Mapped = false
		r.Warn(v, "the characteristic %s is no field of a request log; the lane keys the rule by the requests' own key", s)
	}
	if !colo {
		return nil, r.Errorf(ch, "characteristics must include \"cf.colo.id\" (Cloudflare counts per data centre); add it")
	}
	key.Expr = strings.Join(l.Characteristics, ", ")
	if key.Mapped {
		key.Trace = strings.Join(trace, "+")
		key.Shared = len(trace) == 0
	}
	return &products.Lane{Name: l.Rule, Place: r.At(rule), Limits: []products.Limit{{Place: r.At(rl), Key: key, Params: l}}}, nil
}

// short is an expression cut to a line's length, for a message.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
