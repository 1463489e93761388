package products

import (
	"fmt"
	"iter"
	"slices"
	"strings"

	"ratelab/algorithms"
	"ratelab/internal/printable"
)

// RatelabLane is a lane as ratelab runs it: one limit, or several that each
// request is held to (nginx's several limit_req: all or nothing, the longest
// delay, as algorithms.NginxRequest decides).
type RatelabLane struct {
	// Name is the context's (Lane.Name), with no comma or control character
	// (a lane's name is a word of --lanes).
	Name    string
	Place   Place
	Limits  []RatelabLimit
	Combine algorithms.Combine // for several limits
}

// RatelabLimit is one limit as ratelab runs it: the product's lane
// (algorithms.NginxName, HAProxyName…), its policy and options, and the key
// template it keeps its state under ("{key}": the request's key; text without
// it: one key every request shares).
type RatelabLimit struct {
	Name string // the zone (nginx), the table (HAProxy), the rule…
	// Rule is the product's own words for the limit, without its place
	// ("limit_req zone=login", "http-request deny if { sc_http_req_rate(0)
	// gt 20 }"): what a refusal it decides is attributed to, after Place
	// (RuleAt); "" says Name.
	Rule      string
	Place     Place
	Algorithm algorithms.Name
	Policy    algorithms.Policy
	Options   algorithms.Options
	Key       string
}

// RuleAt is the limit's rule as a refusal names it, at place (its Place as
// the file that holds it has it): "nginx.conf:14 limit_req zone=login".
func (r RatelabLimit) RuleAt(place string) string {
	words := r.Rule
	if words == "" {
		words = r.Name
	}
	return strings.TrimSpace(place + " " + printable.String(words))
}

// Ratelab maps the configuration's lanes to ratelab's, as its product's Lanes
// says: an nginx lane to one lane of its limit_req, in order (several: all or
// nothing); a HAProxy rule to a lane of its own (a proxy's rules each count
// their own table). traceKey is what identifies a client in the requests
// replayed (a trace's key: "ip", "user", "ip+path"; "" when the traffic is not
// a log's): a limit keyed by something else keeps the request's key, and a
// Warning says so. A limit ratelab cannot run (a threshold that refuses every
// request) is left out, with a Warning. Lanes that would share a name are
// told apart by their places.
func (c *Config) Ratelab(traceKey string) ([]RatelabLane, []Warning) {
	m := &Mapping{TraceKey: traceKey, product: c.Product.Name}
	var lanes []RatelabLane
	names := map[string]bool{}
	for _, l := range c.Lanes {
		for _, rl := range c.Product.Lanes(l, m) {
			rl.Name = LaneWord(rl.Name)
			if names[rl.Name] {
				rl.Name = fmt.Sprintf("%s (%s)", rl.Name, LaneWord(rl.Place.String()))
			}
			names[rl.Name] = true
			lanes = append(lanes, rl)
		}
	}
	// a limit's name is the configuration's (a zone, a table, a route): shown
	// with the lane's, made printable as it is
	for _, l := range lanes {
		for j := range l.Limits {
			l.Limits[j].Name = printable.String(l.Limits[j].Name)
		}
	}
	return lanes, m.notes
}

// KeyWarnings say, for each zone or table that holds fewer keys than keys (a
// trace's distinct keys: the most that can be active at once), what the
// product does when it is full — a behaviour ratelab does not model, since its
// lanes keep every key (Info.KeyWarnings). keyBytes is the length of a trace's
// key, for a key whose length the product's expression does not fix. One
// warning per zone or table, at its line.
func (c *Config) KeyWarnings(keys int64, keyBytes int) []Warning {
	if c.Product.KeyWarnings == nil {
		return nil
	}
	return c.Product.KeyWarnings(c, keys, keyBytes)
}

// Once yields c's limits, each place by gives once: the first limit of each
// zone or table that several limits share.
func (c *Config) Once(by func(Limit) Place) iter.Seq[Limit] {
	return func(yield func(Limit) bool) {
		seen := map[Place]bool{}
		for _, l := range c.Lanes {
			for _, m := range l.Limits {
				if p := by(m); !seen[p] {
					seen[p] = true
					if !yield(m) {
						return
					}
				}
			}
		}
	}
}

// Mapping is what a product's Lanes is given beside the lane: what keys the
// requests replayed, and where the mapping's notes go.
type Mapping struct {
	// TraceKey is what identifies a client in the requests replayed ("ip",
	// "user", "ip+path"); "" when the traffic is not a log's.
	TraceKey string
	product  algorithms.Name
	notes    []Warning
}

// Note adds a note at place; a text of "" says nothing.
func (m *Mapping) Note(place Place, text string) {
	if text != "" {
		m.notes = append(m.notes, Warningf(place, "%s", text))
	}
}

// Template is the key template of a limit keyed by k, whose state every
// request shares under name when k is shared, for the requests replayed; and
// a note when the product keys it by other fields than they are.
func (m *Mapping) Template(k Key, name string) (string, string) {
	switch {
	case k.Mapped && k.Shared:
		return "shared " + strings.NewReplacer("{", "(", "}", ")").Replace(name), ""
	case k.Mapped && m.TraceKey != "" && !sameFields(k.Trace, m.TraceKey):
		return "{key}", fmt.Sprintf("%s keys this limit by %s (the log's %s); the requests replayed are keyed by %s, which the lane uses (read the log with --key %s, or key = %q, to key it as %s does)",
			m.product, k.Expr, k.Trace, m.TraceKey, k.Trace, k.Trace, m.product)
	}
	return "{key}", ""
}

// Key is Template's key for l, its note taken.
func (m *Mapping) Key(l Limit, name string) string {
	key, note := m.Template(l.Key, name)
	m.Note(l.Place, note)
	return key
}

// EachLimit maps each of l's limits to a lane of its own, named after l:
// limit makes its RatelabLimit and names the key a shared one is kept under;
// its place and key are the limit's.
func EachLimit(l Lane, m *Mapping, limit func(Limit) (r RatelabLimit, keyName string)) []RatelabLane {
	var lanes []RatelabLane
	for _, lim := range l.Limits {
		r, name := limit(lim)
		r.Place, r.Key = lim.Place, m.Key(lim, LaneWord(name))
		lanes = append(lanes, RatelabLane{Name: l.Name, Place: l.Place, Limits: []RatelabLimit{r}})
	}
	return lanes
}

// LaneWord makes a context's name a lane's, a word of --lanes on one line:
// a comma becomes a semicolon, a line break or a tab a space, and what a
// terminal would act on an escape (internal/printable).
func LaneWord(s string) string {
	return printable.String(strings.Map(func(r rune) rune {
		switch r {
		case ',':
			return ';'
		case '\n', '\r', '\t', '\v', '\f':
			return ' '
		}
		return r
	}, s))
}

// sameFields says two trace keys name the same fields, in any order.
func sameFields(a, b string) bool {
	split := func(s string) []string {
		parts := strings.Split(s, "+")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
			if parts[i] == "host" {
				parts[i] = "ip"
			}
		}
		slices.Sort(parts)
		return slices.Compact(parts)
	}
	return slices.Equal(split(a), split(b))
}
