package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"ratelab/internal/suggest"
	"ratelab/sim"
)

// Citations lists the claim ids a lesson cites, in order (see sim.Citations).
func Citations(lesson string) []string {
	var ids []string
	for _, c := range sim.Citations(lesson) {
		ids = append(ids, c.ID)
	}
	return ids
}

// claims compiles the scenario's claims. A claim about a lane that --lanes left
// out is dropped (it cannot be judged); every other problem is an error naming the
// claim and the fix. Every [id] the lesson cites must be a claim.
func (c *compiler) claims(Overrides) error {
	seen := map[string]bool{}
	for i, spec := range c.s.Claims {
		at := func(key string) []any { return []any{"claim", i, key} }
		bad := func(key, format string, args ...any) error {
			return c.fail(at(key), "claim %q: %s", spec.ID, fmt.Sprintf(format, args...))
		}
		switch {
		case !sim.ValidClaimID(spec.ID):
			return c.fail(at("id"), "claim %d: id must be lowercase letters, digits and dashes (got %q); the lesson cites it as [id]", i+1, spec.ID)
		case seen[spec.ID]:
			return bad("id", "two claims have this id; give each its own")
		case strings.TrimSpace(spec.Says) == "":
			return bad("says", "says is missing: the sentence of the lesson this claim supports")
		case !spec.Op.Set():
			return bad("op", "op is missing; use one of %s", strings.Join(sim.Ops, " "))
		case (spec.Value == nil) == (spec.Than == ""):
			return bad("value", "give value = a number, or than = another lane (with times, default 1), not both or neither")
		case spec.Lane != "" && len(spec.Lanes) > 0, spec.Lane == "" && len(spec.Lanes) == 0:
			return bad("lane", "give lane = \"…\" or lanes = [\"…\", …]")
		}
		if err := plainExcept("says", spec.Says, "\n\r\t"); err != nil {
			return bad("says", "%v", err)
		}
		seen[spec.ID] = true
		names, key := spec.laneNames(), "lanes"
		if spec.Lane != "" {
			key = "lane"
		}
		claim := sim.Claim{ID: spec.ID, Says: strings.Join(strings.Fields(spec.Says), " "), Metric: spec.Metric, Op: spec.Op.Value(), Than: -1, Times: 1, Scope: -1, Policy: c.written, Kind: spec.Kind.Value()}
		for j, name := range names {
			lane, ok := c.laneIndex(name)
			if !ok {
				if c.declared(name) {
					continue // left out by --lanes
				}
				where := []any{"claim", i, key}
				if key == "lanes" {
					where = append(where, j)
				}
				return c.fail(where, "claim %q: %s", spec.ID, c.noLane(name))
			}
			claim.Lanes = append(claim.Lanes, lane)
		}
		if spec.Value != nil {
			if math.IsNaN(*spec.Value) || math.IsInf(*spec.Value, 0) {
				return bad("value", "value must be a finite number (got %g)", *spec.Value)
			}
			claim.Value = *spec.Value
		} else {
			than, ok := c.laneIndex(spec.Than)
			if !ok {
				if c.declared(spec.Than) {
					continue // left out by --lanes
				}
				return bad("than", "%s", c.noLane(spec.Than))
			}
			claim.Than = than
			if spec.Times != nil {
				if math.IsNaN(*spec.Times) || math.IsInf(*spec.Times, 0) {
					return bad("times", "times must be a finite number (got %g)", *spec.Times)
				}
				claim.Times = *spec.Times
			}
		}
		scoped := spec.Clients != nil || spec.KeyPrefix != "" || spec.From != nil || spec.To != nil
		if scoped {
			if !sim.ValidScopedMetric(spec.Metric) {
				return bad("metric", "a claim scoped by clients, key_prefix, from or to counts decisions: metric must be one of %s (got %q)", strings.Join(sim.ScopedMetrics, ", "), spec.Metric)
			}
			scope, err := c.scope(spec, bad)
			if err != nil {
				return err
			}
			claim.Scope = c.addScope(scope)
		} else if part := badRuleNumber(spec.Metric); part != "" {
			return bad("metric", "%s: a lane's rules are numbered from 1 in the order it asks them (rule_decides:1 is its first)", part)
		} else if !sim.ValidMetric(spec.Metric) {
			return bad("metric", "unknown metric %q; use one of %s, a rule's rule_decides:N or rule_fires:N, or the ratio of two (a/b)", spec.Metric, strings.Join(sim.MetricNames(), ", "))
		}
		for _, part := range strings.Split(spec.Metric, "/") {
			_, n, ok := sim.RuleMetric(part)
			if !ok {
				continue
			}
			for _, l := range append(slices.Clone(claim.Lanes), claim.Than) {
				if rules := c.cfg.Lanes[max(l, 0)].RuleNames(c.cfg); l >= 0 && n > len(rules) {
					return bad("metric", "%s: lane %q has %d rules (%s); number one from 1 to %d", part, c.cfg.Lanes[l].Name, len(rules), strings.Join(rules, "; "), len(rules))
				}
			}
		}
		if sim.DeploymentMetric(spec.Metric) {
			for _, l := range append(slices.Clone(claim.Lanes), claim.Than) {
				if l >= 0 && !c.cfg.Lanes[l].Deployed() {
					return bad("metric", "%s is a deployment's figure against its ideal; lane %q is not a deployment (give it sync = \"…\" and instances), or claim another metric", spec.Metric, c.cfg.Lanes[l].Name)
				}
			}
		}
		if len(claim.Lanes) == 0 {
			continue // every lane it names was left out by --lanes
		}
		c.cfg.Claims = append(c.cfg.Claims, claim)
	}
	if len(c.s.Claims) == 0 {
		return nil // a lesson with no claims cites none: its brackets are text (a lesson written from a log names its files and keys)
	}
	for _, id := range Citations(c.s.Lesson) {
		if !seen[id] {
			return c.fail([]any{"lesson"}, "the lesson cites [%s], which is not a claim; add a [[scenario.claim]] with id = %q, or remove the citation", id, id)
		}
	}
	return nil
}

// scope builds a claim's scope.
func (c *compiler) scope(spec ClaimSpec, bad func(string, string, ...any) error) (sim.Scope, error) {
	var s sim.Scope
	if spec.Clients != nil {
		s.Clients = []int{}
		for _, name := range spec.Clients {
			i := slices.IndexFunc(c.cfg.Clients, func(cl sim.Client) bool { return cl.Name == name })
			if i < 0 {
				return s, bad("clients", "no client %q in this scenario", name)
			}
			s.Clients = append(s.Clients, i)
		}
	}
	s.KeyPrefix = spec.KeyPrefix
	if spec.From != nil {
		s.From = spec.From.Duration
	}
	if spec.To != nil {
		s.To = spec.To.Duration
	}
	if s.From < 0 || s.To < 0 || (s.To > 0 && s.To <= s.From) {
		return s, bad("from", "from and to must be >= 0 with to after from (got %s and %s)", s.From, s.To)
	}
	return s, nil
}

// addScope returns the index of s in the configuration's scopes, adding it.
func (c *compiler) addScope(s sim.Scope) int {
	for i, have := range c.cfg.Scopes {
		if slices.Equal(have.Clients, s.Clients) && (have.Clients == nil) == (s.Clients == nil) && have.KeyPrefix == s.KeyPrefix && have.From == s.From && have.To == s.To {
			return i
		}
	}
	c.cfg.Scopes = append(c.cfg.Scopes, s)
	return len(c.cfg.Scopes) - 1
}

// laneIndex finds a compiled lane by name, or by algorithm when one lane runs it.
func (c *compiler) laneIndex(name string) (int, bool) {
	if i := slices.IndexFunc(c.cfg.Lanes, func(l sim.LaneConfig) bool { return l.Name == name }); i >= 0 {
		return i, true
	}
	i := slices.IndexFunc(c.cfg.Lanes, func(l sim.LaneConfig) bool { return string(l.Algorithm) == name })
	return i, i >= 0
}

// declared says the scenario declares a lane called name (or running it), whether
// or not --lanes kept it.
func (c *compiler) declared(name string) bool {
	specs := c.s.Lanes
	if len(specs) == 0 {
		for _, a := range c.defaultLanes() {
			if string(a) == name {
				return true
			}
		}
		return false
	}
	for _, l := range specs {
		if l.Name == name || l.Algorithm.String() == name {
			return true
		}
	}
	return slices.Contains(c.expanded, name) // a lane a product's configuration describes
}

// noLane says the scenario has no lane called name, lists its lanes and
// suggests the nearest name of a lane or of an algorithm one runs.
func (c *compiler) noLane(name string) string {
	var names, known []string
	for _, l := range c.cfg.Lanes {
		names = append(names, l.Name)
		known = append(known, l.Name, string(l.Algorithm))
	}
	msg := fmt.Sprintf("no lane or algorithm %q; the lanes are: %s", name, strings.Join(names, ", "))
	if near := suggest.Nearest(name, known); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	return msg
}

// laneNames are the lanes a claim names: its lane, or its lanes.
func (spec ClaimSpec) laneNames() []string {
	if spec.Lane != "" {
		return []string{spec.Lane}
	}
	return spec.Lanes
}

// badRuleNumber is the part of metric that names a rule's tally
// (sim.RuleMetrics) with a number that is not one, "" when none does.
func badRuleNumber(metric string) string {
	for _, part := range strings.Split(metric, "/") {
		tally, _, found := strings.Cut(part, ":")
		if _, _, ok := sim.RuleMetric(part); found && !ok && slices.Contains(sim.RuleMetrics, tally) {
			return part
		}
	}
	return ""
}
