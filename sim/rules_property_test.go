package sim

import (
	"fmt"
	"testing"
	"time"

	"ratelab/algorithms"
)

// Attribution, checked against limiters of its own: layered lanes of several
// products (nginx's limit_req zones, all or nothing; Envoy's descriptor
// buckets, in order; Kong's windows; a scenario's limits combined in each of
// the three ways) refuse well over 10^5 requests, and for every refusal the
// row's rule is the decisive one and also_refusing the others' count, as
// shadow limiters of the same policies say: each fed exactly what the
// product charges, and each asked (uncharged) at the refusal's instant. So
// removing the decisive rule's limit admits the request, or the next rule
// named refuses it: the rules before the decisive one in order admit it, and
// also_refusing is 0 exactly when every other rule admits it.
func TestEveryRefusalNamesItsDecisiveRule(t *testing.T) {
	span := 300 * time.Second // under a second of CPU
	keyed := func(key, name string, a algorithms.Name, p algorithms.Policy, o algorithms.Options) LimitConfig {
		tmpl, _ := algorithms.ParseKeyTemplate(key)
		return LimitConfig{Name: name, Algorithm: a, Policy: p.WithDefaults(), Options: o, Template: tmpl}
	}
	limit := func(name string, a algorithms.Name, p algorithms.Policy, o algorithms.Options) LimitConfig {
		return keyed("{key}", name, a, p, o)
	}
	s, m := time.Second, time.Minute
	nodelay := algorithms.Options{Nodelay: true}
	generic := []LimitConfig{
		limit("per second", algorithms.TokenBucketName, algorithms.Policy{Limit: 8, Period: s, Burst: 12}, algorithms.Options{}),
		limit("per 10 s", algorithms.FixedWindowName, algorithms.Policy{Limit: 60, Period: 10 * s}, algorithms.Options{}),
		limit("per minute", algorithms.SlidingLogName, algorithms.Policy{Limit: 300, Period: m}, algorithms.Options{}),
	}
	layered := func(name string, c algorithms.Combine, limits []LimitConfig) LaneConfig {
		l := lane(name, limits[0].Algorithm)
		l.Options, l.Limits, l.Combine = limits[0].Options, limits, c
		return l
	}
	kong := lane("kong", algorithms.KongName)
	kong.Policy = algorithms.Policy{Limit: 6, Period: s}.WithDefaults()
	kong.Options.KongWindows[1], kong.Options.KongWindows[2] = 150, 400 // a minute's, an hour's
	lanes := []LaneConfig{
		layered("nginx", algorithms.AllOrNothing, []LimitConfig{
			limit("fast", algorithms.NginxName, algorithms.Policy{Limit: 10, Period: s, Burst: 6}, nodelay),
			limit("slow", algorithms.NginxName, algorithms.Policy{Limit: 240, Period: m, Burst: 20}, nodelay),
			limit("wide", algorithms.NginxName, algorithms.Policy{Limit: 3, Period: s, Burst: 60}, nodelay)}),
		// as the reader orders them: slowest first, the default token_bucket
		// (shared by every key) last
		layered("envoy", algorithms.InOrder, []LimitConfig{
			limit("descriptor user", algorithms.EnvoyLocalName, algorithms.Policy{Limit: 2, Period: s, Burst: 30}, algorithms.Options{}),
			limit("descriptor path=/login", algorithms.EnvoyLocalName, algorithms.Policy{Limit: 4, Period: s, Burst: 4}, algorithms.Options{}),
			keyed("default", "token_bucket", algorithms.EnvoyLocalName, algorithms.Policy{Limit: 5, Period: s, Burst: 5}, algorithms.Options{})}),
		layered("in-order", algorithms.InOrder, generic),
		layered("check-then-consume", algorithms.CheckThenConsume, generic),
		layered("all-or-nothing", algorithms.AllOrNothing, generic),
		kong,
	}
	// a hot key, a busy one and a quiet one
	cfg := newConfig(algorithms.Policy{Limit: 10, Period: s}, span, lanes,
		Client{Name: "hot", Pattern: Poisson{Rate: 100}}, Client{Name: "busy", Pattern: Poisson{Rate: 12}}, Client{Name: "quiet", Pattern: Poisson{Rate: 3}})
	_, rows := runRows(t, cfg)

	shadows := make([]*shadowLane, len(lanes))
	for i, l := range lanes {
		shadows[i] = newShadowLane(t, cfg, l)
	}
	refusals, named := 0, map[string]int{}
	for i := range rows {
		row := &rows[i]
		sh := shadows[row.Lane]
		key, now := cfg.Keys[row.Key].Name, row.DecidedAt
		refusing := sh.refusing(key, now, row.Cost)
		decisive, others := -1, 0
		for _, j := range refusing {
			if decisive < 0 {
				decisive = j
			} else {
				others++
			}
		}
		if row.Allowed != (decisive < 0) {
			t.Fatalf("%s at %v: the lane decided allowed=%v, its shadow limiters refuse by %v", lanes[row.Lane].Name, now, row.Allowed, refusing)
		}
		if !row.Allowed {
			refusals++
			names := lanes[row.Lane].RuleNames(cfg)
			named[lanes[row.Lane].Name+": "+names[decisive]]++
			if int(row.Decisive) != decisive+1 || int(row.AlsoRefusing) != others {
				t.Fatalf("%s at %v on %s: the row names rule %d with %d others; the shadows' first refusal is %d (%s) with %d others (%v)",
					lanes[row.Lane].Name, now, key, row.Decisive, row.AlsoRefusing, decisive+1, names[decisive], others, refusing)
			}
		} else if row.Decisive != 0 || row.AlsoRefusing != 0 {
			t.Fatalf("an accepted row names rule %d", row.Decisive)
		}
		sh.charge(key, now, row.Cost, decisive)
	}
	if want := 100_000; refusals < want {
		t.Errorf("%d refusals; the property wants at least %d", refusals, want)
	}
	// every rule of the layered lanes decides some refusals, and none is
	// named by a lane it is not in
	for _, l := range lanes {
		for _, name := range l.RuleNames(cfg) {
			if named[l.Name+": "+name] == 0 {
				t.Errorf("%s: rule %q decided no refusal", l.Name, name)
			}
		}
	}
	t.Logf("%d refusals checked: %v", refusals, named)
}

// shadowLane is a lane's limits kept apart from it: one limiter per rule, of
// the same policy, charged as the lane's product charges them.
type shadowLane struct {
	lane  LaneConfig
	parts []algorithms.Limiter
	kong  []int // kong: each window's index in KongWindows
}

func newShadowLane(t *testing.T, cfg *Config, l LaneConfig) *shadowLane {
	sh := &shadowLane{lane: l}
	if len(l.Limits) == 0 { // Kong: one limiter per window, each holding only it
		ws, _ := algorithms.KongLimits(l.Policy, l.Options)
		for w, limit := range ws {
			if limit == 0 {
				continue
			}
			o := l.Options
			o.KongWindows = algorithms.KongWindows{}
			p := algorithms.Policy{Limit: limit, Period: algorithms.KongWindowPeriod(w)}.WithDefaults()
			lim, err := algorithms.New(algorithms.KongName, p, o)
			if err != nil {
				t.Fatal(fmt.Errorf("window %d: %w", w, err))
			}
			sh.parts, sh.kong = append(sh.parts, lim), append(sh.kong, w)
		}
		return sh
	}
	for _, m := range l.Limits {
		lim, err := algorithms.New(m.Algorithm, m.Policy, m.Options)
		if err != nil {
			t.Fatal(err)
		}
		sh.parts = append(sh.parts, lim)
	}
	return sh
}

// refusing are the rules that refuse a request at now, asked in the lane's
// order without charging, as the product's own order names them: for Kong
// the longest refusing window first (its Retry-After's), then the others.
func (sh *shadowLane) refusing(key string, now time.Duration, cost int64) []int {
	var out []int
	for j, p := range sh.parts {
		if !p.(algorithms.Checker).Check(sh.key(j, key), now, cost).Allowed {
			out = append(out, j)
		}
	}
	if sh.kong != nil && len(out) > 1 { // the longest first
		out = append([]int{out[len(out)-1]}, out[:len(out)-1]...)
	}
	return out
}

// charge feeds the shadows what the product charges for the request, refused
// by rule decisive (-1: accepted): nginx, check-then-consume, all-or-nothing
// and Kong's local windows nothing for a refusal; in-order (Envoy's
// descriptors too) what it granted before the refusal.
func (sh *shadowLane) charge(key string, now time.Duration, cost int64, decisive int) {
	upTo := len(sh.parts)
	if decisive >= 0 {
		if sh.lane.Combine != algorithms.InOrder || len(sh.lane.Limits) == 0 {
			return
		}
		upTo = decisive
	}
	for j := 0; j < upTo; j++ {
		sh.parts[j].Allow(sh.key(j, key), now, cost)
	}
}

// key is the key rule j keeps key's state under (its template's).
func (sh *shadowLane) key(j int, key string) string {
	if len(sh.lane.Limits) == 0 {
		return key
	}
	return sh.lane.Limits[j].Template.Render(key)
}
