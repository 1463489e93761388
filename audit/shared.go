package audit

import (
	"fmt"
	"strings"

	"ratelab/products"
)

// Shared are the findings on limits whose state several contexts of conf
// use (an nginx zone in several locations, a HAProxy stick table tracked by
// several frontends; products.Info.SharedState): the product keeps one count
// for them all, so a client's requests to any of them count together — which
// the audit's lanes, each replaying the whole log on its own state, do not
// model. lanes are conf's (products.Config.Ratelab).
func Shared(conf *products.Config, lanes []products.RatelabLane) []Finding {
	word := conf.Product.SharedState
	if word == "" {
		return nil
	}
	uses := map[string][]string{}
	var order []string
	for _, l := range lanes {
		for _, m := range l.Limits {
			if uses[m.Name] == nil {
				order = append(order, m.Name)
			}
			uses[m.Name] = append(uses[m.Name], l.Name)
		}
	}
	var out []Finding
	for _, name := range order {
		if contexts := uses[name]; len(contexts) > 1 {
			out = append(out, Finding{Kind: "shared", Rule: name, Says: fmt.Sprintf("%s %s is used by %d contexts (%s): %s keeps one count for them all, so a client's requests to any of them count together (each lane here replays the log on its own).",
				word, name, len(contexts), strings.Join(contexts, "; "), conf.Product.Name)})
		}
	}
	return out
}
