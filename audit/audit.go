// Package audit judges the rate limits a site runs today on its own request
// log, rule by rule: the configuration's lanes (a product's contexts, each
// holding its requests to its rules) replay the log on the virtual clock, and
// every refusal names its decisive rule (sim/rules.go). For each rule it says
// how often it refuses (fires) and how often it is the first to (decides),
// whom its decisions fall on — the ordinary clients (those ratelab tune does
// not class as heavy hitters) or the heavy and abusive ones, by the kinds tune
// tells from the log (crawler, browser, scanner…) —, the clients it refuses
// most, and the first and last refusal it decides, in the log's own time. From
// those come the findings: a rule that refuses ordinary clients beyond a
// bound (a stale emergency rule), a rule that refuses only what another
// already refused (shadowed: it never decides), a rule that never refuses, a
// limit whose state several contexts share. A Check (--fail-on) turns a
// bound into an exit status, so a team can gate a limit change on last
// week's log.
package audit

import (
	"cmp"
	"slices"
	"time"

	"ratelab/sim"
)

// Key is what the audit knows of one of the run's keys (a client of the log):
// as ratelab tune classes it.
type Key struct {
	Name    string
	Agent   string // its User-Agent, "" when the log has none
	Kind    string // tune's kind: crawler, browser, scanner, ordinary…; "" without profiles
	Why     string // why, in the log's terms
	Abusive bool   // of a kind a limit is for (scanner, credential stuffer)
	Heavy   bool   // a heavy hitter over some period (tune's classes)
}

// Ordinary says the key is one of the ordinary clients: not a heavy hitter,
// nor of an abusive kind.
func (k Key) Ordinary() bool { return !k.Heavy && !k.Abusive }

// Input is what an audit reads beside the rows: the run's configuration, its
// keys as tune classes them (by the run's key index), and how a time of the
// run reads in the log's own terms.
type Input struct {
	Config *sim.Config
	Keys   []Key
	When   func(at time.Duration) string
}

// Tally adds up a run's rows for the audit.
type Tally struct {
	in    Input
	lanes []laneTally
}

type laneTally struct {
	requests, refused []int64 // per key: attempts, and those refused (by a rule or not)
	rules             []ruleTally
}

type ruleTally struct {
	decides     int64
	byKey       map[int]int64 // decided refusals per key
	first, last time.Duration
}

// NewTally starts a tally of in's run.
func NewTally(in Input) *Tally {
	t := &Tally{in: in, lanes: make([]laneTally, len(in.Config.Lanes))}
	for i, l := range in.Config.Lanes {
		n := len(in.Config.Keys)
		t.lanes[i] = laneTally{requests: make([]int64, n), refused: make([]int64, n), rules: make([]ruleTally, len(l.RuleNames(in.Config)))}
	}
	return t
}

// Add tallies rows (sim.Run.OnRows' sink).
func (t *Tally) Add(rows []sim.Row) error {
	for i := range rows {
		r := &rows[i]
		l := &t.lanes[r.Lane]
		l.requests[r.Key]++
		if r.Allowed {
			continue
		}
		l.refused[r.Key]++
		if r.Decisive <= 0 || int(r.Decisive) > len(l.rules) {
			continue
		}
		rt := &l.rules[r.Decisive-1]
		if rt.byKey == nil {
			rt.byKey, rt.first = map[int]int64{}, r.At
		}
		rt.decides++
		rt.byKey[r.Key]++
		rt.last = r.At
	}
	return nil
}

// topClients is how many clients a rule's report names.
const topClients = 10

// Report is the audit of the tallied run: each lane's rules (ms, the run's
// metrics, say what each would have refused), the findings, the checks
// judged. A finding on ordinary clients is past the checks' bound on
// ordinary, else past DefaultBound.
func (t *Tally) Report(ms []sim.Metrics, checks []Check) *Report {
	cfg := t.in.Config
	rep := &Report{}
	for i, lc := range cfg.Lanes {
		lt := &t.lanes[i]
		lr := LaneReport{Lane: lc.Name}
		for k, n := range lt.requests {
			lr.Requests += n
			lr.Refused += lt.refused[k]
			if t.in.Keys[k].Ordinary() {
				lr.OrdinaryRequests += n
				lr.OrdinaryRefused += lt.refused[k]
			}
		}
		var fired []sim.RuleTally
		if i < len(ms) {
			fired = ms[i].Rules
		}
		for j, name := range lc.RuleNames(cfg) {
			rt := lt.rules[j]
			rr := RuleReport{Rule: name, Decides: rt.decides}
			if j < len(fired) {
				rr.Fires = fired[j].Fires
			}
			if rt.decides > 0 {
				rr.First, rr.Last = t.in.When(rt.first), t.in.When(rt.last)
			}
			keys := make([]int, 0, len(rt.byKey))
			for k, n := range rt.byKey {
				keys = append(keys, k)
				if t.in.Keys[k].Ordinary() {
					rr.OrdinaryRefused += n
					rr.OrdinaryClients++
				}
			}
			slices.SortFunc(keys, func(a, b int) int {
				return cmp.Or(cmp.Compare(rt.byKey[b], rt.byKey[a]), cmp.Compare(t.in.Keys[a].Name, t.in.Keys[b].Name))
			})
			rr.Clients = len(keys)
			for _, k := range keys[:min(len(keys), topClients)] {
				key := t.in.Keys[k]
				rr.Top = append(rr.Top, Client{Key: key.Name, Agent: key.Agent, Kind: key.Kind, Why: key.Why, Abusive: key.Abusive, Heavy: key.Heavy,
					Sent: lt.requests[k], Refused: rt.byKey[k]})
			}
			lr.Rules = append(lr.Rules, rr)
		}
		rep.Lanes = append(rep.Lanes, lr)
	}
	bound := DefaultBound
	for _, c := range checks {
		if c.Class == "ordinary" {
			bound = c.Above
		}
	}
	rep.find(bound)
	rep.Checks = t.judge(checks)
	return rep
}
