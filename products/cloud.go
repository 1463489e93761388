package products

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"time"

	"ratelab/algorithms"
)

// Cloudflare is Cloudflare's rate limiting rules, read from the JSON of the
// Rulesets API (a ruleset, its rules, or one rule).
var Cloudflare = &Info{Name: algorithms.CloudflareName, File: "a Cloudflare rule's JSON", Shows: "requests_per_period",
	Limiting: "rule with a ratelimit", Detect: detectCloudflare, Read: readCloudflare, Lanes: cloudflareLanes,
	Target: &Target{Variants: []Variant{{}, {MitigationPeriods: 1}},
		Periods:  []time.Duration{10 * time.Second, time.Minute, 10 * time.Minute, time.Hour},
		Writable: "a period of 10s, 15s, 20s, 30s, 40s, 45s, 1m, 90s, 2m, 3m, 4m, 5m, 8m, 10m, 15m, 20m, 30m, 40m, 1h, 65535s or 24h (which ones depends on the plan: Free 10s only, Pro up to 1m, Business up to 10m)",
		Period: func(d time.Duration) bool {
			return algorithms.CheckCloudflarePolicy(algorithms.Policy{Limit: 1, Period: d}, algorithms.Options{}) == nil
		},
		MaxLimit: math.MaxInt32, Write: writeCloudflare}}

// APIGateway is Amazon API Gateway's throttling, read from the JSON of a usage
// plan (throttle, quota, apiStages) or a stage (methodSettings).
var APIGateway = &Info{Name: algorithms.APIGatewayName, File: "an API Gateway usage plan's or stage's JSON", Shows: "throttle, rateLimit, burstLimit",
	Limiting: "throttle with a rateLimit", Detect: detectAPIGateway, Read: readAPIGateway, Lanes: apiGatewayLanes,
	Target: &Target{Periods: []time.Duration{time.Second}, Writable: "rateLimit, requests a second (1s)",
		Period: OneOf(time.Second), MaxLimit: 1e9, MaxBurst: math.MaxInt32, Write: writeAPIGateway}}

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
func readCloudflare(name string, data []byte, _ Options) (*Config, error) {
	root, err := ParseJSON(name, data)
	if err != nil {
		return nil, err
	}
	c := &Config{File: name}
	r := Reader{File: name, Warnings: &c.Warnings}
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
	var rules []*Node
	switch {
	case n.Kind == SeqNode:
		rules = n.Vals
	case n.Kind == MapNode && n.Get("ratelimit") != nil:
		rules = []*Node{n}
	default:
		return nil, r.Errorf(n, "no rate limiting rule here: write a rule ({\"action\": \"block\", \"expression\": …, \"ratelimit\": {…}}), a list of them, or a ruleset with its rules")
	}
	if err := AddLanes(c, rules, func(i int, rule *Node) (*Lane, error) { return r.cloudflareRule(rule, i) }); err != nil {
		return nil, err
	}
	return c, nil
}

// cloudflareRule reads one rule; nil when it limits nothing (a Warning says
// why).
func (r Reader) cloudflareRule(rule *Node, i int) (*Lane, error) {
	if err := r.Fields(rule, "a rule", cloudflareRuleFields...); err != nil {
		return nil, err
	}
	rl := rule.Get("ratelimit")
	if rl == nil {
		r.Warn(rule, "this rule has no ratelimit: it is not a rate limiting rule, and no lane")
		return nil, nil
	}
	if err := r.Fields(rl, "ratelimit", cloudflareRatelimitFields...); err != nil {
		return nil, err
	}
	l := &CloudflareLimit{Rule: fmt.Sprintf("rule %d", i+1), Action: "block", Status: 429}
	for _, k := range []string{"description", "ref", "id"} {
		if v := rule.Get(k); v != nil && v.Kind == ScalarNode && v.Value != "" {
			l.Rule = LaneWord(v.Value)
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
		for _, x := range cloudflareActions {
			found = found || x == act
		}
		if !found {
			return nil, r.Errorf(a, "action %q is not one a rate limiting rule takes; use %s", act, strings.Join(cloudflareActions, ", "))
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
	if ch == nil || ch.Kind != SeqNode {
		return nil, r.Errorf(rl, "ratelimit needs characteristics, a list that includes \"cf.colo.id\"; add \"characteristics\": [\"cf.colo.id\", \"ip.src\"]")
	}
	key := Key{Mapped: true}
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
		if f, ok := cloudflareCharacteristics[s]; ok {
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
	return &Lane{Name: l.Rule, Place: r.At(rule), Limits: []Limit{{Place: r.At(rl), Key: key, Params: l}}}, nil
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
func readAPIGateway(name string, data []byte, _ Options) (*Config, error) {
	root, err := ParseJSON(name, data)
	if err != nil {
		return nil, err
	}
	c := &Config{File: name}
	r := Reader{File: name, Warnings: &c.Warnings}
	var docs []*Node
	switch {
	case root.Get("items") != nil && root.Get("items").Kind == SeqNode:
		docs = root.Get("items").Vals
	case root.Kind == SeqNode:
		docs = root.Vals
	default:
		docs = []*Node{root}
	}
	for _, d := range docs {
		if d.Kind != MapNode {
			return nil, r.Errorf(d, "a usage plan or a stage is a JSON object; this is %s", d.What())
		}
		var err error
		switch {
		case d.Get("methodSettings") != nil || d.Get("stageName") != nil:
			err = r.apiStage(c, d)
		default:
			err = r.apiUsagePlan(c, d)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(c.Lanes) == 0 && len(c.Warnings) == 0 {
		return nil, r.Errorf(root, "no throttle here: write a usage plan ({\"name\": …, \"throttle\": {\"rateLimit\": 100, \"burstLimit\": 200}, \"quota\": {…}}) or a stage with methodSettings")
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
func (r Reader) apiUsagePlan(c *Config, d *Node) error {
	if err := r.Fields(d, "a usage plan", "id", "name", "description", "apiStages", "throttle", "quota", "productCode", "tags"); err != nil {
		return err
	}
	plan := "usage plan"
	if n := d.Get("name"); n != nil && n.Kind == ScalarNode {
		plan = "usage plan " + LaneWord(n.Value)
	}
	var quota *APIGatewayLimit
	if q := d.Get("quota"); q != nil {
		if err := r.Fields(q, "quota", "limit", "offset", "period"); err != nil {
			return err
		}
		quota = &APIGatewayLimit{}
		var err error
		ln, pn := q.Get("limit"), q.Get("period")
		if ln == nil || pn == nil {
			return r.Errorf(q, "a quota needs its limit and its period (DAY, WEEK or MONTH); add both")
		}
		if quota.QuotaLimit, err = r.Int(ln, "quota.limit", 1, math.MaxInt32); err != nil {
			return err
		}
		if quota.QuotaPeriod, err = r.Text(pn, "quota.period"); err != nil {
			return err
		}
		if quota.QuotaPeriod != "DAY" && quota.QuotaPeriod != "WEEK" && quota.QuotaPeriod != "MONTH" {
			return r.Errorf(pn, "quota.period must be DAY, WEEK or MONTH; it is %s", pn.What())
		}
		if o := q.Get("offset"); o != nil {
			if quota.QuotaOffset, err = r.Int(o, "quota.offset", 0, quota.QuotaLimit); err != nil {
				return err
			}
		}
	}
	t := d.Get("throttle")
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
			c.Lanes = append(c.Lanes, Lane{Name: plan, Place: r.At(d), Limits: []Limit{{Place: r.At(t), Key: apiKey, Params: l}}})
		}
	} else if quota != nil {
		r.Warn(d.Get("quota"), "the plan has a quota and no throttle; the lane needs a throttle's rate: give the plan's throttle (the account's default is 10000 a second, burst 5000)")
	}
	if as := d.Get("apiStages"); as != nil {
		if as.Kind != SeqNode {
			return r.Errorf(as, "apiStages must be a list; it is %s", as.What())
		}
		for _, s := range as.Vals {
			if err := r.Fields(s, "an API stage", "apiId", "stage", "throttle"); err != nil {
				return err
			}
			mt := s.Get("throttle")
			if mt == nil {
				continue
			}
			if mt.Kind != MapNode {
				return r.Errorf(mt, "an API stage's throttle is a mapping of methods (\"/pets/GET\") to their throttles; it is %s", mt.What())
			}
			stage := ""
			if sn := s.Get("stage"); sn != nil {
				stage = " stage " + LaneWord(sn.Value)
			}
			for i, m := range mt.Keys {
				l, ok, err := r.apiThrottle(mt.Vals[i], "the throttle of "+m.Value, "rateLimit", "burstLimit")
				if err != nil {
					return err
				}
				if ok {
					l.Scope = plan + stage + " method " + LaneWord(m.Value)
					c.Lanes = append(c.Lanes, Lane{Name: l.Scope, Place: r.At(m), Limits: []Limit{{Place: r.At(mt.Vals[i]), Key: apiKey, Params: l}}})
					r.Warn(m, "a request to %s is held to this method's throttle and to the plan's (and the stage's, the account's); each is a lane of its own", m.Value)
				}
			}
		}
	}
	return nil
}

// apiStage reads a stage (Stage: stageName, methodSettings whose keys are
// "resource/method", "*/*" for every method).
func (r Reader) apiStage(c *Config, d *Node) error {
	stage := "stage"
	if n := d.Get("stageName"); n != nil && n.Kind == ScalarNode {
		stage = "stage " + LaneWord(n.Value)
	}
	ms := d.Get("methodSettings")
	if ms == nil {
		r.Warn(d, "the stage has no methodSettings: it throttles by the account's limits only")
		return nil
	}
	if ms.Kind != MapNode {
		return r.Errorf(ms, "methodSettings is a mapping of \"resource/method\" to settings; it is %s", ms.What())
	}
	for i, m := range ms.Keys {
		s := ms.Vals[i]
		if s.Kind != MapNode {
			return r.Errorf(s, "the settings of %s must be an object; it is %s", m.Value, s.What())
		}
		if s.Get("throttlingRateLimit") == nil && s.Get("throttlingBurstLimit") == nil {
			continue
		}
		sub := &Node{Kind: MapNode, Line: s.Line}
		for j, k := range s.Keys {
			if k.Value == "throttlingRateLimit" || k.Value == "throttlingBurstLimit" {
				sub.Keys, sub.Vals = append(sub.Keys, k), append(sub.Vals, s.Vals[j])
			}
		}
		l, ok, err := r.apiThrottle(sub, "the settings of "+m.Value, "throttlingRateLimit", "throttlingBurstLimit")
		if err != nil {
			return err
		}
		if ok {
			l.Scope = stage + " " + LaneWord(m.Value)
			// a stage's throttle holds every client together
			c.Lanes = append(c.Lanes, Lane{Name: l.Scope, Place: r.At(m), Limits: []Limit{{Place: r.At(s),
				Key: Key{Expr: "every client of the stage", Shared: true, Mapped: true}, Params: l}}})
		}
	}
	return nil
}

// apiThrottle reads a ThrottleSettings (rate and burst as named); false, with
// a Warning, when it lets no request through.
func (r Reader) apiThrottle(t *Node, what, rateKey, burstKey string) (*APIGatewayLimit, bool, error) {
	if err := r.Fields(t, what, rateKey, burstKey); err != nil {
		return nil, false, err
	}
	rn, bn := t.Get(rateKey), t.Get(burstKey)
	if rn == nil || bn == nil {
		return nil, false, r.Errorf(t, "%s needs %s and %s; give both (API Gateway takes an unset one as the account's)", what, rateKey, burstKey)
	}
	rate, err := r.Number(rn, what+"."+rateKey, 0, 1e9)
	if err != nil {
		return nil, false, err
	}
	burst, err := r.Int(bn, what+"."+burstKey, 0, math.MaxInt32)
	if err != nil {
		return nil, false, err
	}
	l := &APIGatewayLimit{RateMilli: int64(math.Round(rate * 1000)), Burst: burst}
	if float64(l.RateMilli) != rate*1000 {
		r.Warn(rn, "%s %g is run as %g requests a second (ratelab's rates are in thousandths)", rateKey, rate, float64(l.RateMilli)/1000)
	}
	if l.RateMilli == 0 || burst == 0 {
		r.Warn(t, "%s with %s %g and %s %d lets no request through: no lane", what, rateKey, rate, burstKey, burst)
		return nil, false, nil
	}
	return l, true, nil
}

// detectCloudflare finds a JSON document with a rule's requests_per_period or
// mitigation_timeout.
func detectCloudflare(data []byte) Sign {
	if OpensJSON(data) && (bytes.Contains(data, []byte(`"requests_per_period"`)) || bytes.Contains(data, []byte(`"mitigation_timeout"`))) {
		return Sign{Mark: StrongMark}
	}
	return Sign{}
}

// detectAPIGateway finds a JSON document with a usage plan's throttle,
// rateLimit or burstLimit, or a stage's throttlingRateLimit or
// methodSettings.
func detectAPIGateway(data []byte) Sign {
	if !OpensJSON(data) {
		return Sign{}
	}
	for _, field := range []string{`"throttle"`, `"rateLimit"`, `"burstLimit"`, `"throttlingRateLimit"`, `"methodSettings"`} {
		if bytes.Contains(data, []byte(field)) {
			return Sign{Mark: StrongMark}
		}
	}
	return Sign{}
}

// cloudflareLanes maps each rule to a lane: requests_per_period per period,
// its mitigation_timeout and status.
func cloudflareLanes(l Lane, m *Mapping) []RatelabLane {
	return EachLimit(l, m, func(lim Limit) (RatelabLimit, string) {
		cf := lim.Params.(*CloudflareLimit)
		o := algorithms.Options{MitigationTimeout: cf.MitigationTimeout}
		if cf.Status != 429 {
			o.DenyStatus = cf.Status
		}
		return RatelabLimit{Name: cf.Rule, Algorithm: algorithms.CloudflareName, Options: o,
			Policy: algorithms.Policy{Limit: cf.RequestsPerPeriod, Period: cf.Period}}, cf.Rule
	})
}

// apiGatewayLanes maps each throttle to a lane: rateLimit requests a second,
// whole per 1s, else in thousandths per 1000s; burstLimit the burst; the
// plan's quota as options.
func apiGatewayLanes(l Lane, m *Mapping) []RatelabLane {
	return EachLimit(l, m, func(lim Limit) (RatelabLimit, string) {
		a := lim.Params.(*APIGatewayLimit)
		p := algorithms.Policy{Limit: a.RateMilli, Period: 1000 * time.Second, Burst: a.Burst}
		if a.RateMilli%1000 == 0 {
			p.Limit, p.Period = a.RateMilli/1000, time.Second
		}
		o := algorithms.Options{QuotaLimit: a.QuotaLimit, QuotaOffset: a.QuotaOffset}
		switch a.QuotaPeriod {
		case "DAY":
			o.QuotaPeriod = algorithms.QuotaDay
		case "WEEK":
			o.QuotaPeriod = algorithms.QuotaWeek
		case "MONTH":
			o.QuotaPeriod = algorithms.QuotaMonth
		}
		return RatelabLimit{Name: a.Scope, Algorithm: algorithms.APIGatewayName, Options: o, Policy: p}, a.Scope
	})
}
