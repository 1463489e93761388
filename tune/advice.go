package tune

import (
	"fmt"
	"strings"
)

// keySuggestions are better keys or exclusions the log points to: several
// User-Agents behind one address that stands out (people behind one NAT, or a
// crawler beside them) are told apart by --key ip+agent; a page view's
// assets, when people's page views are among the clients that stand out,
// are better limited apart (--exclude assets).
func (r *Report) keySuggestions() []string {
	t := r.Trace
	if t.Profiles == nil {
		return nil
	}
	var out []string
	shared, browsers := 0, 0
	for _, k := range r.standout() {
		p := &t.Profiles[k]
		if p.Agents >= sharedAgents {
			shared++
		}
		if r.Classes.Kinds != nil && Rules[r.Classes.Kinds[k]].Kind == "browser" {
			browsers++
		}
	}
	if shared > 0 {
		out = append(out, fmt.Sprintf("of the keys that stand out, %d gave %d or more User-Agents each: several clients behind one address; --key ip+agent tells them apart.", shared, sharedAgents))
	}
	if browsers > 0 {
		are := "are"
		if browsers == 1 {
			are = "is"
		}
		out = append(out, fmt.Sprintf("of the keys that stand out, %d %s people's page views pulling their assets; --exclude assets leaves the assets out (limit them apart).", browsers, are))
	}
	return out
}

// sharedAgents are the User-Agents one key gives that say it is several
// clients.
const sharedAgents = 3

// abuseUnheld says, for the abuse goal when nothing meets it, which abusive
// kinds no limit in the grid holds without refusing other clients, what the
// one that holds them refusing the fewest refuses, and, when those are
// browsers pulling a page's assets, that leaving the assets out
// (--exclude assets) separates them; "" otherwise.
func (r *Report) abuseUnheld() string {
	if r.Goal.Name != GoalAbuse || r.Best >= 0 || r.Classes.Kinds == nil {
		return ""
	}
	present := map[int]bool{}
	for _, k := range r.Classes.Kinds {
		present[int(k)] = true
	}
	var parts []string
	assets := false
	for i, rule := range Rules {
		if !rule.Abusive || !present[i] {
			continue
		}
		best, total := -1, kindTotal(r, i)
		for j, res := range r.Results {
			if held(res.KindDenied[i], total) && (best < 0 || res.OthersDenied < r.Results[best].OthersDenied) {
				best = j
			}
		}
		if best < 0 {
			parts = append(parts, fmt.Sprintf("no limit in the grid refuses the %s a tenth of its requests", rule.Kind))
			continue
		}
		res := r.Results[best]
		if res.OthersDenied == 0 {
			continue
		}
		var whom []string
		for k, other := range Rules {
			if !other.Abusive && res.KindDenied[k] > 0 {
				whom = append(whom, fmt.Sprintf("%d requests of %s clients", res.KindDenied[k], other.Kind))
				assets = assets || other.Kind == "browser"
			}
		}
		parts = append(parts, fmt.Sprintf("the limit that holds the %s refusing fewest others, %s, refuses %s", rule.Kind, res.Limits, strings.Join(whom, ", ")))
	}
	if len(parts) == 0 {
		return ""
	}
	s := "Per key, " + strings.Join(parts, "; ") + "."
	if assets {
		s += " A page view pulls its assets in a burst: leave them out with --exclude assets (limit them apart) and ask again."
	}
	return s
}

// kindTotal is the requests of the keys of kind i (an index in Rules).
func kindTotal(r *Report, i int) int64 {
	var n int64
	for k, kind := range r.Classes.Kinds {
		if int(kind) == i {
			n += r.Trace.Volume[k]
		}
	}
	return n
}
