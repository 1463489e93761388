package sim

import (
	"fmt"
	"math/bits"
	"time"

	"ratelab/algorithms"
)

// Which rule refused a request: attribution.
//
// A lane's rules are what can refuse a request in it, in the order its
// product asks them:
//
//   - a multi-limit lane's limits (nginx's several limit_req of a location,
//     Envoy's descriptors, a scenario's requests-and-tokens), in the client's
//     order (LaneConfig.Orders);
//   - the windows of a product that holds a request to several in one limiter
//     and answers for each (Kong's second … year: algorithms.Info.Windows);
//   - else the lane's one limit.
//
// A refusal's decisive rule is the one the product's own order makes refuse
// it: the first limit in order that refused (nginx stops at the first
// limit_req whose excess is over its burst, Envoy's filter at the first
// descriptor bucket with no token, in-order at the first refusal); for
// windows, the one whose reset the refusal's Retry-After tells (Kong's: the
// longest of those with nothing left, KongAnswer). The others that would have
// refused it too are counted: a limit the lane asked (nginx looks up every
// zone; check-then-consume checks every limit), and the limits an in-order
// lane did not reach, checked without charging in the same call as the
// refusing one (composite.go), so at the same instant in memory and on a
// store.
//
// A refusal no rule made has no decisive rule: the store's on_error, a WATCH
// that kept losing.

// RuleTally is what one rule of a lane did: the refusals it decided, and the
// refusals it would have made (those it decided, and those another rule
// decided while it had no room either).
type RuleTally struct {
	Rule    string `json:"rule"`
	Decides int64  `json:"decides"`
	Fires   int64  `json:"fires"`
}

// Refusal is a refusal a rule made, as the UI names it: when it landed, its
// key, its decisive rule from 1 (Row.Decides; 0: none yet) and how many other
// rules refused it too.
type Refusal struct {
	At           time.Duration
	Key          int32
	Rule         int16
	AlsoRefusing int16
}

// NoRule is a decision's rule when no rule refused it: an acceptance, or a
// refusal no rule made (the store's on_error, a lost WATCH).
const NoRule = -1

// maxRuleMask is how many rules a refusal's mask of refusing rules holds:
// a lane's rules past the 64th are never counted as refusing beside another.
const maxRuleMask = 64

// RuleNames are the lane's rules' names, as a refusal names its decisive one:
// a limit's Rule (the product's place and directive), else its Name, else
// "limit N"; a window's the lane's Rule, the window's name and limit (Kong's
// "kong.yml:4 rate-limiting minute=100"); a lane of one rule its Rule, else
// its algorithm.
func (l LaneConfig) RuleNames(cfg *Config) []string {
	if len(l.Limits) > 0 {
		names := make([]string, len(l.Limits))
		for i, m := range l.Limits {
			switch {
			case m.Rule != "":
				names[i] = m.Rule
			case m.Name != "":
				names[i] = m.Name
			default:
				names[i] = fmt.Sprintf("limit %d (%s)", i+1, m.Algorithm)
			}
		}
		return names
	}
	one := l.Rule
	if one == "" {
		one = string(l.Algorithm)
	}
	if ws := l.windows(cfg); len(ws) > 1 {
		names := make([]string, len(ws))
		for i, w := range ws {
			names[i] = fmt.Sprintf("%s %s=%d", one, w.Name, w.Policy.Limit)
		}
		return names
	}
	return []string{one}
}

// windows are the windows the lane's one limiter answers for (Kong's), under
// its first tier's policy; nil for a limiter that answers for one.
func (l LaneConfig) windows(cfg *Config) []algorithms.Quota {
	info, ok := algorithms.Lookup(l.Algorithm)
	if !ok || info.Windows == nil || len(l.Limits) > 0 || len(cfg.Tiers) == 0 {
		return nil
	}
	return info.Windows(l.TierPolicy(cfg, 0), l.Options)
}

// attribute is a refusal's decisive rule (an index in RuleNames; NoRule when
// no rule made it) and the mask of every rule that refused it, the decisive
// one included. limits is a multi-limit lane's decisions per limit (a zero
// Limit: not asked), unreached the mask of the limits an in-order lane checked
// past its refusal and found with no room.
func (l LaneConfig) attribute(client int32, d algorithms.Decision, limits []algorithms.Decision, unreached uint64) (int, uint64) {
	if d.Allowed || d.OnError {
		return NoRule, 0
	}
	switch {
	case len(l.Limits) > 0 && limits != nil:
		decisive, mask := NoRule, unreached
		each := func(i int) {
			ld := limits[i]
			if ld.Limit == 0 || ld.Allowed || ld.OnError {
				return
			}
			if decisive == NoRule {
				decisive = i
			}
			if i < maxRuleMask {
				mask |= 1 << i
			}
		}
		if int(client) < len(l.Orders) && l.Orders[client] != nil {
			for _, i := range l.Orders[client] {
				each(i)
			}
		} else {
			for i := range l.Limits {
				each(i)
			}
		}
		return decisive, mask
	case len(d.Windows) > 1:
		decisive, mask := NoRule, uint64(0)
		for i, w := range d.Windows {
			if w.Remaining <= 0 { // nothing left: this window refuses
				decisive = i // the last such: the longest, whose reset Retry-After tells
				if i < maxRuleMask {
					mask |= 1 << i
				}
			}
		}
		return decisive, mask
	}
	return 0, 1
}

// alsoRefusing is how many rules besides the decisive one refused.
func alsoRefusing(decisive int, mask uint64) int {
	n := bits.OnesCount64(mask)
	if decisive >= 0 && decisive < maxRuleMask && mask&(1<<decisive) != 0 {
		n--
	}
	return n
}

// countRule tallies a refusal's rules.
func (r *recorder) countRule(decisive int, mask uint64) {
	if decisive < 0 {
		return
	}
	if r.rules == nil {
		r.ruleNames = r.lane.RuleNames(r.cfg)
		r.rules = make([]RuleTally, len(r.ruleNames))
	}
	if decisive < len(r.rules) {
		r.rules[decisive].Decides++
	}
	for m := mask; m != 0; m &= m - 1 {
		if i := bits.TrailingZeros64(m); i < len(r.rules) {
			r.rules[i].Fires++
		}
	}
}

// ruleTallies are the lane's rules' tallies so far, named; nil before any
// refusal a rule made.
func (r *recorder) ruleTallies() []RuleTally {
	if r.rules == nil {
		return nil
	}
	out := make([]RuleTally, len(r.rules))
	for i, name := range r.ruleNames {
		out[i] = r.rules[i]
		out[i].Rule = name
	}
	return out
}
