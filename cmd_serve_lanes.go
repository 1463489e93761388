package main

import (
	"fmt"
	"slices"
	"strings"

	"ratelab/algorithms"
	"ratelab/products"
	"ratelab/serve"
	"ratelab/sim"
)

// The lanes ratelab serve serves: a scenario's, or a product configuration's
// contexts, each keyed as its product keys it.

// scenarioLanes are the served lanes of --scenario: each lane's limits as the
// scenario compiles them, on tier 0's policy.
func (o *serveOptions) scenarioLanes(key *serve.KeyOf) ([]serve.Lane, []string, error) {
	_, cfg, err := compileScenario(o.run, nil)
	if err != nil {
		return nil, nil, err
	}
	k := key
	if k == nil {
		ip, _ := serve.ParseKey("ip")
		k = &ip
	}
	var lanes []serve.Lane
	for _, lc := range cfg.Lanes {
		if why := unservable(lc); why != "" {
			return nil, nil, usagef("serve: lane %q %s; ratelab run replays it", lc.Name, why)
		}
		l := serve.Lane{Name: lc.Name, Key: *k, Headers: lc.Headers, Combine: lc.Combine}
		if lc.MultiLimit() {
			for _, m := range lc.Limits {
				l.Limits = append(l.Limits, serve.Limit{Name: m.Name, Rule: m.Rule, Algorithm: m.Algorithm, Policy: m.Policy, Options: m.Options, Template: m.Template})
			}
		} else {
			l.Limits = []serve.Limit{{Rule: lc.Rule, Algorithm: lc.Algorithm, Policy: lc.TierPolicy(cfg, 0), Options: lc.Options}}
		}
		lanes = append(lanes, l)
	}
	var notes []string
	if len(cfg.Tiers) > 1 {
		notes = append(notes, fmt.Sprintf("ratelab serve: every key is held to the first tier's policy (%s); the scenario's other tiers are not served", cfg.Tiers[0].Name))
	}
	return lanes, notes, nil
}

// unservable says why a scenario's lane cannot be served ("" when it can).
func unservable(lc sim.LaneConfig) string {
	switch {
	case lc.Deployed() || lc.Balanced():
		return "runs as several instances"
	case lc.Sharded():
		return "is sharded"
	case lc.Strategy != algorithms.Atomic:
		return fmt.Sprintf("decides non-atomically (%s), which needs a store's round trips", lc.Strategy)
	}
	return ""
}

// configLanes are the served lanes of --config: a lane per context that
// limits, each keyed by its first limit's key (as a request log's fields name
// it), unless key says otherwise.
func (o *serveOptions) configLanes(key *serve.KeyOf) ([]serve.Lane, []string, error) {
	conf, err := o.trace.readConfig()
	if err != nil {
		return nil, nil, err
	}
	rls, warnings := conf.Ratelab("")
	var notes []string
	for _, w := range append(conf.Warnings, warnings...) {
		notes = append(notes, w.String())
	}
	if rls, err = pickLanes(rls, o.run.lanes); err != nil {
		return nil, nil, err
	}
	var lanes []serve.Lane
	for _, rl := range rls {
		l := serve.Lane{Name: rl.Name, Combine: rl.Combine, Headers: algorithms.MustLookup(rl.Limits[0].Algorithm).Headers}
		for _, m := range rl.Limits {
			tmpl, err := algorithms.ParseKeyTemplate(m.Key)
			if err != nil {
				return nil, nil, usagef("serve: %s: %v", m.Place, err)
			}
			if err := m.Policy.Validate(1); err != nil {
				return nil, nil, usagef("serve: %s: %v", m.Place, err)
			}
			l.Limits = append(l.Limits, serve.Limit{Name: m.Name, Rule: m.RuleAt(m.Place.String()), Algorithm: m.Algorithm, Policy: m.Policy.WithDefaults(), Options: m.Options, Template: tmpl})
		}
		if key != nil {
			l.Key = *key
		} else {
			spec, note := productKey(conf, rl.Limits[0].Place)
			if note != "" {
				notes = append(notes, note)
			}
			if l.Key, err = serve.ParseKey(spec); err != nil {
				return nil, nil, usagef("serve: %s: %v", rl.Limits[0].Place, err)
			}
		}
		lanes = append(lanes, l)
	}
	return lanes, notes, nil
}

// productKey is the key spec of the limit at place, as a request's fields give
// it (products.Key.Trace), with a note when none stands for the product's
// expression (then the client's address).
func productKey(conf *products.Config, place products.Place) (string, string) {
	for _, l := range conf.Lanes {
		for _, m := range l.Limits {
			if m.Place != place {
				continue
			}
			if h := headerOf(m.Key.Expr); h != "" {
				return "header:" + h, ""
			}
			switch {
			case m.Key.Shared:
				return "shared", ""
			case m.Key.Mapped && m.Key.Trace != "":
				return m.Key.Trace, ""
			}
			return "ip", fmt.Sprintf("%s: ratelab serve keys %s by the client's address (give --key to key it otherwise)", place, m.Key.Expr)
		}
	}
	return "ip", ""
}

// pickLanes keeps the lanes --lanes names, each by its whole name or any part
// of it that no other lane's holds; all when it is empty.
func pickLanes(rls []products.RatelabLane, spec string) ([]products.RatelabLane, error) {
	if spec == "" {
		return rls, nil
	}
	var names []string
	for _, rl := range rls {
		names = append(names, fmt.Sprintf("%q", rl.Name))
	}
	var out []products.RatelabLane
	for _, want := range strings.Split(spec, ",") {
		want = strings.TrimSpace(want)
		var found []int
		for i, rl := range rls {
			if rl.Name == want {
				found = []int{i}
				break
			}
			if want != "" && strings.Contains(rl.Name, want) {
				found = append(found, i)
			}
		}
		switch {
		case len(found) == 0:
			return nil, usagef("serve: --lanes %q names no context; they are %s", want, strings.Join(names, ", "))
		case len(found) > 1:
			return nil, usagef("serve: --lanes %q is part of %d contexts' names; give more of one: %s", want, len(found), strings.Join(names, ", "))
		}
		if !slices.ContainsFunc(out, func(r products.RatelabLane) bool { return r.Name == rls[found[0]].Name }) {
			out = append(out, rls[found[0]])
		}
	}
	return out, nil
}

// headerOf is the request header a product's key expression reads, when it is
// one header alone: nginx's $http_x_api_key (X-Api-Key), HAProxy's
// req.hdr(x-api-key) or hdr(…); "" otherwise.
func headerOf(expr string) string {
	expr = strings.TrimSpace(expr)
	if name, ok := strings.CutPrefix(expr, "$http_"); ok && name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == "" {
		return strings.ReplaceAll(name, "_", "-")
	}
	for _, fetch := range []string{"req.hdr(", "hdr(", "req.fhdr("} {
		if inner, ok := strings.CutPrefix(expr, fetch); ok {
			if name, ok := strings.CutSuffix(inner, ")"); ok && name != "" && !strings.ContainsAny(name, ",() ") {
				return name
			}
		}
	}
	return ""
}
