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
// rule numbered decisive (from 1, sim.Row.Decides) refused, on a lane that
// names its rules; "" otherwise.
func refusedBy(cfg *sim.Config, lane sim.LaneConfig, decisive, also int16) string {
	names := lane.RuleNames(cfg)
	if decisive <= 0 || int(decisive) > len(names) || !namesRules(cfg, lane) {
		return ""
	}
	s := " by " + wordsFirst(names[decisive-1])
	switch {
	case also == 1:
		s += " (1 other rule refused it too)"
	case also > 1:
		s += fmt.Sprintf(" (%d other rules refused it too)", also)
	}
	return s
}

// wordsFirst is a rule named at a file's line with its words first, the place
// after: "limit_req zone=login (nginx.conf:14)", so a narrow line keeps what
// the rule is.
func wordsFirst(rule string) string {
	place, words, ok := strings.Cut(rule, " ")
	if f, line, isPlace := strings.Cut(place, ":"); !ok || !isPlace || f == "" || line == "" || strings.Trim(line, "0123456789") != "" {
		return rule
	}
	return words + " (" + place + ")"
}

// ruleLines are the zoom's lines on the lane's rules, for a lane that names
// them and has refused: the share of its refusals each rule decided, and a
// rule that refused yet never decided (in up to two lines of width, the file
// the rules are in said once); then the latest refusal: its key, when, and
// its rule.
func ruleLines(cfg *sim.Config, lane sim.LaneConfig, met sim.Metrics, l sim.LaneSnapshot, width int) []string {
	if !namesRules(cfg, lane) || len(met.Rules) == 0 {
		return nil
	}
	var decided int64
	for _, r := range met.Rules {
		decided += r.Decides
	}
	if decided == 0 {
		return nil
	}
	file := commonFile(met.Rules)
	var parts []string
	for _, r := range met.Rules {
		part := fmt.Sprintf("%s %s", strings.TrimPrefix(r.Rule, file+":"), format.Percent(float64(r.Decides)/float64(decided)))
		if r.Decides == 0 && r.Fires > 0 {
			part += fmt.Sprintf(" (refused %d, never first)", r.Fires)
		}
		parts = append(parts, part)
	}
	head := "refusals decided by: "
	if file != "" {
		head = "refusals decided by, at lines of " + file + ": "
	}
	lines := wrapParts(head, parts, width, 2)
	if rf := l.Refusal; rf.Rule > 0 {
		lines = append(lines, fmt.Sprintf("refused %s at %s%s", cfg.Keys[rf.Key].Name, format.Duration(rf.At), refusedBy(cfg, lane, rf.Rule, rf.AlsoRefusing)))
	}
	return lines
}

// commonFile is the file every rule is named at ("nginx.conf" of
// "nginx.conf:14 limit_req zone=login"), or "" when they are not all at
// lines of one file.
func commonFile(rules []sim.RuleTally) string {
	file := ""
	for i, r := range rules {
		place, _, _ := strings.Cut(r.Rule, " ")
		f, line, ok := strings.Cut(place, ":")
		if !ok || line == "" || strings.Trim(line, "0123456789") != "" || (i > 0 && f != file) {
			return ""
		}
		file = f
	}
	return file
}

// wrapParts joins parts with " · " after head in at most most lines of width
// columns, breaking between parts (a part longer than a line is cut where
// the view fits it).
func wrapParts(head string, parts []string, width, most int) []string {
	var lines []string
	line := head
	for i, p := range parts {
		sep := " · "
		if i == 0 {
			sep = ""
		}
		if i > 0 && len([]rune(line))+len(sep)+len([]rune(p)) > width && len(lines) < most-1 {
			lines, line = append(lines, line), "  "+p
			continue
		}
		line += sep + p
	}
	return append(lines, line)
}
