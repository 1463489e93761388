package scenarios

import "fmt"

// A setting left out takes its default; the schema reads a setting left out as
// its zero (0, "0s"), so a setting whose default is not zero would take the
// default when the file writes zero too: burst = 0 would become a burst of the
// limit, max_attempts = 0 five attempts, delay = "0s" 100 ms, with nothing said.
// Each such setting written as zero is an error at its place instead, saying
// what it takes and what leaving it out gives.

// zeroSetting is a setting whose zero is its default when left out, and must not
// be written.
type zeroSetting struct {
	path []any  // from the scenario: "client", 2, "per"
	zero bool   // the file's value is zero
	why  string // what the setting takes, and what leaving it out gives
}

// writtenZeros fails on the first setting of zeroSettings the file writes as zero.
func (c *compiler) writtenZeros(Overrides) error {
	for _, z := range c.zeroSettings() {
		if z.zero && c.pos.wrote(c.index, z.path...) {
			name := z.path[len(z.path)-1]
			return c.fail(z.path, "%s = 0 is not a setting: %s", name, z.why)
		}
	}
	return nil
}

// zeroSettings are the settings of the scenario whose zero is their default.
func (c *compiler) zeroSettings() []zeroSetting {
	s := c.s
	var zs []zeroSetting
	add := func(zero bool, why string, path ...any) {
		zs = append(zs, zeroSetting{path, zero, why})
	}
	policy := func(p PolicySpec, path ...any) {
		add(p.Period.Duration == 0, "period must be > 0; leave it out for the default, 1s", append(path, "period")...)
		add(p.Burst == 0, "burst must be >= 1; leave it out for the default, the limit", append(path, "burst")...)
	}
	retry := func(r *RetrySpec, path ...any) {
		if r == nil {
			return
		}
		add(r.Delay.Duration == 0, `delay must be > 0; for no delay use policy = "immediate", or leave delay out for the default, 100ms`, append(path, "delay")...)
		add(r.Cap.Duration == 0, "cap must be > 0; leave it out for the default, 10s (or the delay, if longer)", append(path, "cap")...)
		add(r.MaxAttempts == 0, `max_attempts must be from 1 to 1000, the first attempt included; for no retries use policy = "none", or leave it out for the default, 5`, append(path, "max_attempts")...)
	}
	add(s.Tick.Duration == 0, "tick must be > 0; leave it out for the default, set by the duration", "tick")
	if s.Policy != nil {
		policy(*s.Policy, "policy")
	}
	for i, t := range s.Tiers {
		policy(t.PolicySpec, "tier", i)
	}
	for i, l := range s.Lanes {
		add(l.Burst != nil && *l.Burst == 0, "burst must be >= 1; leave it out for the scenario's", "lane", i, "burst")
		add(l.DenyStatus == 0, "deny_status must be an HTTP error status from 400 to 599; leave it out for the product's default", "lane", i, "deny_status")
		for j, ls := range l.Limits {
			add(ls.Burst != nil && *ls.Burst == 0, "burst must be >= 1; leave it out for the limit's own", "lane", i, "limits", j, "burst")
		}
	}
	for i, cl := range s.Clients {
		add(cl.Per.Duration == 0, "per must be > 0; leave it out for the default, 1s", "client", i, "per")
		add(cl.Cost == 0, "cost must be >= 1; leave it out for the default, 1", "client", i, "cost")
		add(cl.Deliveries == 0, "deliveries must be from 1 to 100; leave it out for the default, 1", "client", i, "deliveries")
		add(cl.Keys == 0, fmt.Sprintf("keys must be from 1 to %d; leave it out for one key (key, or the client's name)", MaxKeys), "client", i, "keys")
		add(cl.ZipfS == 0, "zipf_s must be > 1; leave it out for the default, 1.1", "client", i, "zipf_s")
		if d := cl.CostDistribution; d != nil {
			add(d.Min == 0, "min must be >= 1; leave it out for the default, 1", "client", i, "cost_distribution", "min")
			add(d.Sigma == 0, "sigma must be > 0; for one cost use cost = N, or leave sigma out for the default, 1", "client", i, "cost_distribution", "sigma")
		}
		retry(cl.Retry, "client", i, "retry")
	}
	for i, ch := range s.Changes {
		add(ch.Per.Duration == 0, "per must be > 0; leave it out for the default, 1s", "change", i, "per")
		retry(ch.Retry, "change", i, "retry")
	}
	return zs
}
