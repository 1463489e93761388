package apigateway

import (
	"fmt"
	"math"

	"ratelab/products"
)

// read reads Amazon API Gateway's JSON as the API (and aws
// apigateway get-usage-plan, get-usage-plans, get-stage) writes it: a usage
// plan's throttle (rateLimit, burstLimit) and quota (limit, period, offset),
// its apiStages' per-method throttles, and a stage's methodSettings
// (throttlingRateLimit, throttlingBurstLimit). Each throttle is a lane; the
// plan's quota goes with the plan's throttle.
func read(name string, data []byte, _ products.Options) (*products.Config, error) {
	root, c, tree, err := products.ReadTree(name, data, products.ParseJSON)
	if err != nil {
		return nil, err
	}
	r := reader{tree}
	var docs []*products.Node
	switch {
	case root.Get("items") != nil && root.Get("items").Kind == products.SeqNode:
		docs = root.Get("items").Vals
	case root.Kind == products.SeqNode:
		docs = root.Vals
	default:
		docs = []*products.Node{root}
	}
	for _, d := range docs {
		if d.Kind != products.MapNode {
			return nil, r.Errorf(d, "a usage plan or a stage is a JSON object; this is %s", d.What())
		}
		var err error
		switch {
		case d.Get("methodSettings") != nil || d.Get("stageName") != nil:
			err = r.stage(c, d)
		default:
			err = r.usagePlan(c, d)
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
var apiKey = products.Key{Expr: "the API key (x-api-key)", Mapped: false}

// usagePlan reads a usage plan (UsagePlan: id, name, throttle, quota,
// apiStages).
func (r reader) usagePlan(c *products.Config, d *products.Node) error {
	if err := r.Fields(d, "a usage plan", "id", "name", "description", "apiStages", "throttle", "quota", "productCode", "tags"); err != nil {
		return err
	}
	plan := "usage plan"
	if n := d.Get("name"); n != nil && n.Kind == products.ScalarNode {
		plan = "usage plan " + products.LaneWord(n.Value)
	}
	var quota *Limit
	if q := d.Get("quota"); q != nil {
		if err := r.Fields(q, "quota", "limit", "offset", "period"); err != nil {
			return err
		}
		quota = &Limit{}
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
		l, ok, err := r.throttle(t, "throttle", "rateLimit", "burstLimit")
		if err != nil {
			return err
		}
		if ok {
			l.Scope = plan
			if quota != nil {
				l.QuotaLimit, l.QuotaPeriod, l.QuotaOffset = quota.QuotaLimit, quota.QuotaPeriod, quota.QuotaOffset
			}
			c.Lanes = append(c.Lanes, products.Lane{Name: plan, Place: r.At(d), Limits: []products.Limit{{Place: r.At(t), Key: apiKey, Params: l}}})
		}
	} else if quota != nil {
		r.Warn(d.Get("quota"), "the plan has a quota and no throttle; the lane needs a throttle's rate: give the plan's throttle (the account's default is 10000 a second, burst 5000)")
	}
	if as := d.Get("apiStages"); as != nil {
		if as.Kind != products.SeqNode {
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
			if mt.Kind != products.MapNode {
				return r.Errorf(mt, "an API stage's throttle is a mapping of methods (\"/pets/GET\") to their throttles; it is %s", mt.What())
			}
			stage := ""
			if sn := s.Get("stage"); sn != nil {
				stage = " stage " + products.LaneWord(sn.Value)
			}
			for i, m := range mt.Keys {
				l, ok, err := r.throttle(mt.Vals[i], "the throttle of "+m.Value, "rateLimit", "burstLimit")
				if err != nil {
					return err
				}
				if ok {
					l.Scope = plan + stage + " method " + products.LaneWord(m.Value)
					c.Lanes = append(c.Lanes, products.Lane{Name: l.Scope, Place: r.At(m), Limits: []products.Limit{{Place: r.At(mt.Vals[i]), Key: apiKey, Params: l}}})
					r.Warn(m, "a request to %s is held to this method's throttle and to the plan's (and the stage's, the account's); each is a lane of its own", m.Value)
				}
			}
		}
	}
	return nil
}

// stage reads a stage (Stage: stageName, methodSettings whose keys are
// "resource/method", "*/*" for every method).
func (r reader) stage(c *products.Config, d *products.Node) error {
	stage := "stage"
	if n := d.Get("stageName"); n != nil && n.Kind == products.ScalarNode {
		stage = "stage " + products.LaneWord(n.Value)
	}
	ms := d.Get("methodSettings")
	if ms == nil {
		r.Warn(d, "the stage has no methodSettings: it throttles by the account's limits only")
		return nil
	}
	if ms.Kind != products.MapNode {
		return r.Errorf(ms, "methodSettings is a mapping of \"resource/method\" to settings; it is %s", ms.What())
	}
	for i, m := range ms.Keys {
		s := ms.Vals[i]
		if s.Kind != products.MapNode {
			return r.Errorf(s, "the settings of %s must be an object; it is %s", m.Value, s.What())
		}
		if s.Get("throttlingRateLimit") == nil && s.Get("throttlingBurstLimit") == nil {
			continue
		}
		sub := &products.Node{Kind: products.MapNode, Line: s.Line}
		for j, k := range s.Keys {
			if k.Value == "throttlingRateLimit" || k.Value == "throttlingBurstLimit" {
				sub.Keys, sub.Vals = append(sub.Keys, k), append(sub.Vals, s.Vals[j])
			}
		}
		l, ok, err := r.throttle(sub, "the settings of "+m.Value, "throttlingRateLimit", "throttlingBurstLimit")
		if err != nil {
			return err
		}
		if ok {
			l.Scope = stage + " " + products.LaneWord(m.Value)
			// a stage's throttle holds every client together
			c.Lanes = append(c.Lanes, products.Lane{Name: l.Scope, Place: r.At(m), Limits: []products.Limit{{Place: r.At(s),
				Key: products.Key{Expr: "every client of the stage", Shared: true, Mapped: true}, Params: l}}})
		}
	}
	return nil
}

// throttle reads a ThrottleSettings (rate and burst as named); false, with
// a Warning, when it lets no request through.
func (r reader) throttle(t *products.Node, what, rateKey, burstKey string) (*Limit, bool, error) {
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
	l := &Limit{RateMilli: int64(math.Round(rate * 1000)), Burst: burst}
	if float64(l.RateMilli) != rate*1000 {
		r.Warn(rn, "%s %g is run as %g requests a second (ratelab's rates are in thousandths)", rateKey, rate, float64(l.RateMilli)/1000)
	}
	if l.RateMilli == 0 || burst == 0 {
		r.Warn(t, "%s with %s %g and %s %d lets no request through: no lane", what, rateKey, rate, burstKey, burst)
		return nil, false, nil
	}
	return l, true, nil
}
