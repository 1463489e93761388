package audit

import (
	"fmt"
	"slices"
	"strings"

	"ratelab/internal/format"
)

// Report is an audit: each lane's rules and the findings, most pressing
// first. Shares are fractions.
type Report struct {
	Title    string       `json:"title"`
	Log      LogSummary   `json:"log"`
	Findings []Finding    `json:"findings"`
	Lanes    []LaneReport `json:"lanes"`
	Checks   []Result     `json:"fail_on,omitempty"`
	// Notes are what the configuration does that its lanes do not model.
	Notes []string `json:"notes,omitempty"`
}

// LogSummary is the log the configuration replayed: its requests, clients
// and span, in its own time.
type LogSummary struct {
	File     string `json:"file"`
	Requests int64  `json:"requests"`
	Clients  int    `json:"clients"`
	From     string `json:"from"`
	To       string `json:"to"`
	// Unparsed is the log's lines that could not be read, skipped (an error
	// with --strict); Shown the first few, "file:line: why".
	Unparsed int64    `json:"unparsed"`
	Shown    []string `json:"unparsed_shown,omitempty"`
	// WholeSeconds, for a log stamped to the second, says what that means
	// for limits of a second or less and whether the requests were spread.
	WholeSeconds string `json:"whole_seconds,omitempty"`
}

// LaneReport is one context of the configuration (an nginx location, an
// Envoy filter…), which replayed the whole log: its requests, those refused,
// the ordinary clients' share, and each rule in the order it is asked.
type LaneReport struct {
	Lane             string       `json:"lane"`
	Requests         int64        `json:"requests"`
	Refused          int64        `json:"refused"`
	OrdinaryRequests int64        `json:"ordinary_requests"`
	OrdinaryRefused  int64        `json:"ordinary_refused"`
	Rules            []RuleReport `json:"rules"`
}

// OrdinaryShare is the share of the ordinary clients' requests refused.
func (l LaneReport) OrdinaryShare() float64 { return share(l.OrdinaryRefused, l.OrdinaryRequests) }

// RuleReport is one rule: the refusals it would make (Fires) and those it was
// the first to make (Decides), how many of those fell on ordinary clients and
// on how many of them, how many clients it refused, the first and last refusal
// it decided in the log's own time, and the clients it refused most.
type RuleReport struct {
	Rule            string   `json:"rule"`
	Fires           int64    `json:"fires"`
	Decides         int64    `json:"decides"`
	OrdinaryRefused int64    `json:"ordinary_refused"`
	OrdinaryClients int      `json:"ordinary_clients"`
	Clients         int      `json:"clients"`
	First           string   `json:"first,omitempty"`
	Last            string   `json:"last,omitempty"`
	Top             []Client `json:"top_clients,omitempty"`
}

// Client is a client a rule refused: what it sent the context, and how many
// of its requests the rule decided to refuse.
type Client struct {
	Key     string `json:"key"`
	Agent   string `json:"agent,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Why     string `json:"why,omitempty"`
	Abusive bool   `json:"abusive"`
	Heavy   bool   `json:"heavy"`
	Sent    int64  `json:"sent"`
	Refused int64  `json:"refused"`
}

// A Finding is one thing the audit found, about a rule or a context.
type Finding struct {
	// Kind is what was found: "ordinary" (the rule refuses ordinary
	// clients beyond the bound), "shadowed" (it refuses, yet never first),
	// "idle" (it never refuses on this log), "shared" (several contexts
	// count against one limit's state), "holds" (it refuses, and not
	// ordinary clients beyond the bound).
	Kind string `json:"kind"`
	Lane string `json:"lane,omitempty"`
	Rule string `json:"rule,omitempty"`
	Says string `json:"says"`
}

// severity orders the findings' kinds, most pressing first.
var severity = map[string]int{"ordinary": 0, "shadowed": 1, "shared": 2, "idle": 3, "holds": 4}

// Mark is a finding's sign in the text: ✗ for what to act on, · for what
// to know, ✓ for a rule that does its job.
func (f Finding) Mark() string {
	switch f.Kind {
	case "ordinary", "shadowed":
		return "✗"
	case "holds":
		return "✓"
	}
	return "·"
}

// find derives the findings from the lanes: bound is the share of the
// ordinary clients' requests past which a rule's refusals of them are a
// finding (the --fail-on bound on ordinary, else DefaultBound).
func (r *Report) find(bound float64) {
	for _, l := range r.Lanes {
		for _, rr := range l.Rules {
			f := Finding{Lane: l.Lane, Rule: rr.Rule}
			switch {
			case rr.Fires == 0 && rr.Decides == 0:
				f.Kind, f.Says = "idle", fmt.Sprintf("%s never refuses a request of this log.", rr.Rule)
			case rr.Decides == 0:
				f.Kind = "shadowed"
				f.Says = fmt.Sprintf("%s never decides: each of the %s requests it would refuse is refused first by another rule (shadowed). Remove it, or tighten it if it should bite.", rr.Rule, format.Grouped(rr.Fires))
			case share(rr.OrdinaryRefused, l.OrdinaryRequests) > bound:
				f.Kind = "ordinary"
				f.Says = fmt.Sprintf("%s refuses %s requests of %s (%s of all ordinary requests, %s of its refusals), %s to %s.%s",
					rr.Rule, format.Grouped(rr.OrdinaryRefused), plural(int64(rr.OrdinaryClients), "ordinary client", "ordinary clients"), format.Percent(share(rr.OrdinaryRefused, l.OrdinaryRequests)),
					format.Percent(share(rr.OrdinaryRefused, rr.Decides)), rr.First, rr.Last, mostRefused(rr, Client.ordinary))
			default:
				f.Kind = "holds"
				f.Says = fmt.Sprintf("%s decides %s refusals, %s on heavy or abusive clients.%s", rr.Rule, format.Grouped(rr.Decides), format.Percent(1-share(rr.OrdinaryRefused, rr.Decides)), mostRefused(rr, nil))
			}
			r.Findings = append(r.Findings, f)
		}
	}
	sortFindings(r.Findings)
}

// mostRefused is " Most: KEY (kind, agent) N of its M." for the client a rule
// refused most (of those of, when not nil), or "" for none among its top.
func mostRefused(rr RuleReport, of func(Client) bool) string {
	i := slices.IndexFunc(rr.Top, func(c Client) bool { return of == nil || of(c) })
	if i < 0 {
		return ""
	}
	c := rr.Top[i]
	var about []string
	if c.Kind != "" {
		about = append(about, c.Kind)
	}
	if c.Agent != "" {
		about = append(about, fmt.Sprintf("%q", format.Clip(c.Agent, 40)))
	}
	who := c.Key
	if len(about) > 0 {
		who += " (" + strings.Join(about, ", ") + ")"
	}
	return fmt.Sprintf(" Most: %s, %s of its %s.", who, format.Grouped(c.Refused), format.Grouped(c.Sent))
}

// ordinary says the client is an ordinary one (Key.Ordinary).
func (c Client) ordinary() bool { return !c.Heavy && !c.Abusive }

func share(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return format.Grouped(n) + " " + many
}
