package ui

import (
	"fmt"
	"strings"

	"ratelab/internal/format"
	"ratelab/sim"
)

// namesRules says the lane's refusals are worth naming by rule: it has several
// (limits, windows), or its one is a product's, with its place.
func namesRules(cfg *sim.Config, lane sim.LaneConfig) bool {
	return lane.Rule != "" || len(lane.RuleNames(cfg)) > 1
}

// refusedBy is " by RULE" (and how many others refused too) for a decision the
// rule numbered decisive (from 1, sim.Row.Decisive) refused, on a lane that
// names its rules; "" otherwise.
func refusedBy(cfg *sim.Config, lane sim.LaneConfig, decisive, also int16) string {
	names := lane.RuleNames(cfg)
	if decisive <= 0 || int(decisive) > len(names) || !namesRules(cfg, lane) {
		return ""
	}
	s := " by " + names[decisive-1]
	switch {
	case also == 1:
		s += " (1 other rule refused it too)"
	case also > 1:
		s += fmt.Sprintf(" (%d other rules refused it too)", also)
	}
	return s
}

// ruleLines are the zoom's lines on the lane's rules, for a lane that names
// them and has refused: the share of its refusals each rule decided, and a
// rule that refused yet never decided; then the latest refusal, when, its key
// and its rule.
func ruleLines(cfg *sim.Config, lane sim.LaneConfig, met sim.Metrics, l sim.LaneSnapshot) []string {
	if !namesRules(cfg, lane) || len(met.Rules) == 0 {
		return nil
	}
	var decided int64
	for _, r := range met.Rules {
		decided += r.Decisive
	}
	if decided == 0 {
		return nil
	}
	var parts []string
	for _, r := range met.Rules {
		part := fmt.Sprintf("%s %s", r.Rule, format.Percent(float64(r.Decisive)/float64(decided)))
		if r.Decisive == 0 && r.Refused > 0 {
			part += fmt.Sprintf(" (refused %d, never first)", r.Refused)
		}
		parts = append(parts, part)
	}
	lines := []string{"refusals decided by: " + strings.Join(parts, " · ")}
	if rf := l.Refusal; rf.Rule > 0 {
		lines = append(lines, fmt.Sprintf("latest refusal at %s, key %s:%s", format.Duration(rf.At), cfg.Keys[rf.Key].Name, refusedBy(cfg, lane, rf.Rule, rf.AlsoRefusing)))
	}
	return lines
}
