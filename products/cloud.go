package products

import (
	"fmt"
	"math"
	"strings"
	"time"

	"ratelab/algorithms"
)

// cloudflareRuleFields are a rule's fields in the Rulesets API (a rule of the
// http_ratelimit phase).
var cloudflareRuleFields = []string{"id", "version", "action", "expression", "description", "enabled", "ref",
	"action_parameters", "ratelimit", "logging", "last_updated", "categories"}

// cloudflareRatelimitFields are a rule's ratelimit's fields.
var cloudflareRatelimitFields = []string{"characteristics", "period", "requests_per_period", "mitigation_timeout",
	"counting_expression", "requests_to_origin", "score_per_period", "score_response_header_name"}

// cloudflareActions are the actions a rate limiting rule takes.
var cloudflareActions = []string{"block", "challenge", "js_challenge", "managed_challenge", "log"}

// cloudflareCharacteristics are the characteristics a request log's fields
// stand for.
var cloudflareCharacteristics = map[string]string{
	"ip.src": "ip", "http.request.uri.path": "path", "http.request.method": "method",
}

// readCloudflare reads Cloudflare's rate limiting rules as the Rulesets API
// writes them (docs: waf/rate-limiting-rules/parameters and
// create-api): a response ({"result": ruleset}), a ruleset ({"rules": […]}),
// a list of rules, or one rule. Each enabled rule with a ratelimit is a lane.
func readCloudflare(name string, data []byte) (*Config, error) {
	root, err := parseJSON(name, data)
	if err != nil {
		return nil, err
	}
	c := &Config{Product: Cloudflare, File: name}
	r := reader{file: name, w: &c.Warnings}
	n := root
	if res := n.get("result"); res != nil {
		n = res
	}
	if rules := n.get("rules"); rules != nil {
		if p := n.get("phase"); p != nil && p.value != "http_ratelimit" {
			return nil, r.errorf(p, "the ruleset's phase is %s; rate limiting rules are the http_ratelimit phase's", p.what())
		}
		n = rules
	}
	var rules []*node
	switch {
	case n.kind == seqNode:
		rules = n.vals
	case n.kind == mapNode && n.get("ratelimit") != nil:
		rules = []*node{n}
	default:
		return nil, r.errorf(n, "no rate limiting rule here: write a rule ({\"action\": \"block\", \"expression\": …, \"ratelimit\": {…}}), a list of them, or a ruleset with its rules")
	}
	if err := addLanes(c, rules, func(i int, rule *node) (*Lane, error) { return r.cloudflareRule(rule, i) }); err != nil {
		return nil, err
	}
	return c, nil
}

// cloudflareRule reads one rule; nil when it limits nothing (a Warning says
// why).
func (r reader) cloudflareRule(rule *node, i int) (*Lane, error) {
	if err := r.fields(rule, "a rule", cloudflareRuleFields...); err != nil {
		return nil, err
	}
	rl := rule.get("ratelimit")
	if rl == nil {
		r.warn(rule, "this rule has no ratelimit: it is not a rate limiting rule, and no lane")
		return nil, nil
	}
	if err := r.fields(rl, "ratelimit", cloudflareRatelimitFields...); err != nil {
		return nil, err
	}
	l := &CloudflareLimit{Rule: fmt.Sprintf("rule %d", i+1), Action: "block", Status: 429}
	for _, k := range []string{"description", "ref", "id"} {
		if v := rule.get(k); v != nil && v.kind == scalarNode && v.value != "" {
			l.Rule = laneWord(v.value)
			break
		}
	}
	if e := rule.get("enabled"); e != nil {
		on, err := r.boolean(e, "enabled")
		if err != nil {
			return nil, err
		}
		if !on {
			r.warn(e, "the rule is disabled (enabled: false): no lane")
			return nil, nil
		}
	}
	if a := rule.get("action"); a != nil {
		act, err := r.str(a, "action")
		if err != nil {
			return nil, err
		}
		found := false
		for _, x := range cloudflareActions {
			found = found || x == act
		}
		if !found {
			return nil, r.errorf(a, "action %q is not one a rate limiting rule takes; use %s", act, strings.Join(cloudflareActions, ", "))
		}
		l.Action = act
		switch act {
		case "log":
			r.warn(a, "action log only records the requests over the rate; the lane blocks them (read its refusals as what Cloudflare would log)")
		case "challenge", "js_challenge", "managed_challenge":
			r.warn(a, "action %s answers a challenge, and one passed resets the counter; the lane blocks instead", act)
		}
	} else {
		return nil, r.errorf(rule, "the rule has no action; add \"action\": \"block\"")
	}
	if ap := rule.get("action_parameters"); ap != nil {
		if err := r.fields(ap, "action_parameters", "response"); err != nil {
			return nil, err
		}
		if resp := ap.get("response"); resp != nil {
			if err := r.fields(resp, "action_parameters.response", "status_code", "content", "content_type"); err != nil {
				return nil, err
			}
			if sc := resp.get("status_code"); sc != nil {
				s, err := r.integer(sc, "response.status_code", 400, 499)
				if err != nil {
					return nil, err
				}
				l.Status = int(s)
			}
		}
	}
	if ex := rule.get("expression"); ex != nil {
		if s, _ := r.str(ex, "expression"); strings.TrimSpace(s) != "true" {
			r.warn(ex, "the expression decides which requests the rule applies to (%s); the lane holds every request", short(s))
		}
	} else {
		return nil, r.errorf(rule, "the rule has no expression; add \"expression\": \"true\" (every request) or one that matches the requests to limit")
	}
	// the counter
	pn := rl.get("period")
	if pn == nil {
		return nil, r.errorf(rl, "ratelimit has no period; add \"period\": 60 (seconds)")
	}
	p, err := r.integer(pn, "period", 1, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	l.Period = time.Duration(p) * time.Second
	rp := rl.get("requests_per_period")
	if rp == nil {
		if sp := rl.get("score_per_period"); sp != nil {
			r.warn(sp, "score_per_period limits a score the origin's responses add up (score_response_header_name), which the lane cannot count: no lane")
			return nil, nil
		}
		return nil, r.errorf(rl, "ratelimit has no requests_per_period; add \"requests_per_period\": 100")
	}
	if l.RequestsPerPeriod, err = r.integer(rp, "requests_per_period", 1, math.MaxInt32); err != nil {
		return nil, err
	}
	if mt := rl.get("mitigation_timeout"); mt != nil {
		s, err := r.integer(mt, "mitigation_timeout", 0, 86400)
		if err != nil {
			return nil, err
		}
		l.MitigationTimeout = time.Duration(s) * time.Second
	}
	o := algorithms.Options{MitigationTimeout: l.MitigationTimeout}
	if err := algorithms.CheckCloudflarePolicy(algorithms.Policy{Limit: l.RequestsPerPeriod, Period: l.Period}, o); err != nil {
		at := pn
		if mt := rl.get("mitigation_timeout"); mt != nil && strings.Contains(err.Error(), "mitigation_timeout") {
			at = mt
		}
		return nil, r.errorf(at, "%v", err)
	}
	if ce := rl.get("counting_expression"); ce != nil {
		if s, _ := r.str(ce, "counting_expression"); s != "" {
			r.warn(ce, "counting_expression decides which requests add to the counter (%s); the lane counts every request", short(s))
		}
	}
	if ro := rl.get("requests_to_origin"); ro != nil {
		on, err := r.boolean(ro, "requests_to_origin")
		if err != nil {
			return nil, err
		}
		if on {
			r.warn(ro, "requests_to_origin: true counts only the requests that reach the origin (not those the cache answers); the lane counts every request")
		}
	}
	// the key: what identifies a client
	ch := rl.get("characteristics")
	if ch == nil || ch.kind != seqNode {
		return nil, r.errorf(rl, "ratelimit needs characteristics, a list that includes \"cf.colo.id\"; add \"characteristics\": [\"cf.colo.id\", \"ip.src\"]")
	}
	key := Key{Mapped: true}
	var trace []string
	colo := false
	for _, v := range ch.vals {
		s, err := r.str(v, "a characteristic")
		if err != nil {
			return nil, err
		}
		l.Characteristics = append(l.Characteristics, s)
		if s == "cf.colo.id" {
			colo = true
			continue
		}
		if f, ok := cloudflareCharacteristics[s]; ok {
			trace = append(trace, f)
			continue
		}
		key.Mapped = false
		r.warn(v, "the characteristic %s is no field of a request log; the lane keys the rule by the requests' own key", s)
	}
	if !colo {
		return nil, r.errorf(ch, "characteristics must include \"cf.colo.id\" (Cloudflare counts per data centre); add it")
	}
	key.Expr = strings.Join(l.Characteristics, ", ")
	if key.Mapped {
		key.Trace = strings.Join(trace, "+")
		key.Shared = len(trace) == 0
	}
	return &Lane{Name: l.Rule, Place: r.at(rule), Limits: []Limit{{Place: r.at(rl), Key: key, Cloudflare: l}}}, nil
}

// short is an expression cut to a line's length, for a message.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// readAPIGateway reads Amazon API Gateway's JSON as the API (and aws
// apigateway get-usage-plan, get-usage-plans, get-stage) writes it: a usage
// plan's throttle (rateLimit, burstLimit) and quota (limit, period, offset),
// its apiStages' per-method throttles, and a stage's methodSettings
// (throttlingRateLimit, throttlingBurstLimit). Each throttle is a lane; the
// plan's quota goes with the plan's throttle.
func readAPIGateway(name string, data []byte) (*Config, error) {
	root, err := parseJSON(name, data)
	if err != nil {
		return nil, err
	}
	c := &Config{Product: APIGateway, File: name}
	r := reader{file: name, w: &c.Warnings}
	var docs []*node
	switch {
	case root.get("items") != nil && root.get("items").kind == seqNode:
		docs = root.get("items").vals
	case root.kind == seqNode:
		docs = root.vals
	default:
		docs = []*node{root}
	}
	for _, d := range docs {
		if d.kind != mapNode {
			return nil, r.errorf(d, "a usage plan or a stage is a JSON object; this is %s", d.what())
		}
		var err error
		switch {
		case d.get("methodSettings") != nil || d.get("stageName") != nil:
			err = r.apiStage(c, d)
		default:
			err = r.apiUsagePlan(c, d)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(c.Lanes) == 0 && len(c.Warnings) == 0 {
		return nil, r.errorf(root, "no throttle here: write a usage plan ({\"name\": …, \"throttle\": {\"rateLimit\": 100, \"burstLimit\": 200}, \"quota\": {…}}) or a stage with methodSettings")
	}
	names := map[string]int{}
	for i := range c.Lanes {
		if names[c.Lanes[i].Name]++; names[c.Lanes[i].Name] > 1 {
			c.Lanes[i].Name = fmt.Sprintf("%s line %d", c.Lanes[i].Name, c.Lanes[i].Place.Line)
		}
	}
	return c, nil
}

// apiKey is a usage plan's key: its API key, which no request log field
// stands for.
var apiKey = Key{Expr: "the API key (x-api-key)", Mapped: false}

// apiUsagePlan reads a usage plan (UsagePlan: id, name, throttle, quota,
// apiStages).
func (r reader) apiUsagePlan(c *Config, d *node) error {
	if err := r.fields(d, "a usage plan", "id", "name", "description", "apiStages", "throttle", "quota", "productCode", "tags"); err != nil {
		return err
	}
	plan := "usage plan"
	if n := d.get("name"); n != nil && n.kind == scalarNode {
		plan = "usage plan " + laneWord(n.value)
	}
	var quota *APIGatewayLimit
	if q := d.get("quota"); q != nil {
		if err := r.fields(q, "quota", "limit", "offset", "period"); err != nil {
			return err
		}
		quota = &APIGatewayLimit{}
		var err error
		ln, pn := q.get("limit"), q.get("period")
		if ln == nil || pn == nil {
			return r.errorf(q, "a quota needs its limit and its period (DAY, WEEK or MONTH); add both")
		}
		if quota.QuotaLimit, err = r.integer(ln, "quota.limit", 1, math.MaxInt32); err != nil {
			return err
		}
		if quota.QuotaPeriod, err = r.str(pn, "quota.period"); err != nil {
			return err
		}
		if quota.QuotaPeriod != "DAY" && quota.QuotaPeriod != "WEEK" && quota.QuotaPeriod != "MONTH" {
			return r.errorf(pn, "quota.period must be DAY, WEEK or MONTH; it is %s", pn.what())
		}
		if o := q.get("offset"); o != nil {
			if quota.QuotaOffset, err = r.integer(o, "quota.offset", 0, quota.QuotaLimit); err != nil {
				return err
			}
		}
	}
	t := d.get("throttle")
	if t != nil {
		l, ok, err := r.apiThrottle(t, "throttle", "rateLimit", "burstLimit")
		if err != nil {
			return err
		}
		if ok {
			l.Scope = plan
			if quota != nil {
				l.QuotaLimit, l.QuotaPeriod, l.QuotaOffset = quota.QuotaLimit, quota.QuotaPeriod, quota.QuotaOffset
			}
			c.Lanes = append(c.Lanes, Lane{Name: plan, Place: r.at(d), Limits: []Limit{{Place: r.at(t), Key: apiKey, APIGateway: l}}})
		}
	} else if quota != nil {
		r.warn(d.get("quota"), "the plan has a quota and no throttle; the lane needs a throttle's rate: give the plan's throttle (the account's default is 10000 a second, burst 5000)")
	}
	if as := d.get("apiStages"); as != nil {
		if as.kind != seqNode {
			return r.errorf(as, "apiStages must be a list; it is %s", as.what())
		}
		for _, s := range as.vals {
			if err := r.fields(s, "an API stage", "apiId", "stage", "throttle"); err != nil {
				return err
			}
			mt := s.get("throttle")
			if mt == nil {
				continue
			}
			if mt.kind != mapNode {
				return r.errorf(mt, "an API stage's throttle is a mapping of methods (\"/pets/GET\") to their throttles; it is %s", mt.what())
			}
			stage := ""
			if sn := s.get("stage"); sn != nil {
				stage = " stage " + laneWord(sn.value)
			}
			for i, m := range mt.keys {
				l, ok, err := r.apiThrottle(mt.vals[i], "the throttle of "+m.value, "rateLimit", "burstLimit")
				if err != nil {
					return err
				}
				if ok {
					l.Scope = plan + stage + " method " + laneWord(m.value)
					c.Lanes = append(c.Lanes, Lane{Name: l.Scope, Place: r.at(m), Limits: []Limit{{Place: r.at(mt.vals[i]), Key: apiKey, APIGateway: l}}})
					r.warn(m, "a request to %s is held to this method's throttle and to the plan's (and the stage's, the account's); each is a lane of its own", m.value)
				}
			}
		}
	}
	return nil
}

// apiStage reads a stage (Stage: stageName, methodSettings whose keys are
// "resource/method", "*/*" for every method).
func (r reader) apiStage(c *Config, d *node) error {
	stage := "stage"
	if n := d.get("stageName"); n != nil && n.kind == scalarNode {
		stage = "stage " + laneWord(n.value)
	}
	ms := d.get("methodSettings")
	if ms == nil {
		r.warn(d, "the stage has no methodSettings: it throttles by the account's limits only")
		return nil
	}
	if ms.kind != mapNode {
		return r.errorf(ms, "methodSettings is a mapping of \"resource/method\" to settings; it is %s", ms.what())
	}
	for i, m := range ms.keys {
		s := ms.vals[i]
		if s.kind != mapNode {
			return r.errorf(s, "the settings of %s must be an object; it is %s", m.value, s.what())
		}
		if s.get("throttlingRateLimit") == nil && s.get("throttlingBurstLimit") == nil {
			continue
		}
		sub := &node{kind: mapNode, line: s.line}
		for j, k := range s.keys {
			if k.value == "throttlingRateLimit" || k.value == "throttlingBurstLimit" {
				sub.keys, sub.vals = append(sub.keys, k), append(sub.vals, s.vals[j])
			}
		}
		l, ok, err := r.apiThrottle(sub, "the settings of "+m.value, "throttlingRateLimit", "throttlingBurstLimit")
		if err != nil {
			return err
		}
		if ok {
			l.Scope = stage + " " + laneWord(m.value)
			// a stage's throttle holds every client together
			c.Lanes = append(c.Lanes, Lane{Name: l.Scope, Place: r.at(m), Limits: []Limit{{Place: r.at(s),
				Key: Key{Expr: "every client of the stage", Shared: true, Mapped: true}, APIGateway: l}}})
		}
	}
	return nil
}

// apiThrottle reads a ThrottleSettings (rate and burst as named); false, with
// a Warning, when it lets no request through.
func (r reader) apiThrottle(t *node, what, rateKey, burstKey string) (*APIGatewayLimit, bool, error) {
	if err := r.fields(t, what, rateKey, burstKey); err != nil {
		return nil, false, err
	}
	rn, bn := t.get(rateKey), t.get(burstKey)
	if rn == nil || bn == nil {
		return nil, false, r.errorf(t, "%s needs %s and %s; give both (API Gateway takes an unset one as the account's)", what, rateKey, burstKey)
	}
	rate, err := r.number(rn, what+"."+rateKey, 0, 1e9)
	if err != nil {
		return nil, false, err
	}
	burst, err := r.integer(bn, what+"."+burstKey, 0, math.MaxInt32)
	if err != nil {
		return nil, false, err
	}
	l := &APIGatewayLimit{RateMilli: int64(math.Round(rate * 1000)), Burst: burst}
	if float64(l.RateMilli) != rate*1000 {
		r.warn(rn, "%s %g is run as %g requests a second (ratelab's rates are in thousandths)", rateKey, rate, float64(l.RateMilli)/1000)
	}
	if l.RateMilli == 0 || burst == 0 {
		r.warn(t, "%s with %s %g and %s %d lets no request through: no lane", what, rateKey, rate, burstKey, burst)
		return nil, false, nil
	}
	return l, true, nil
}
