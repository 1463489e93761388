package redislua

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/redistest"
)

// templates the parts' keys are drawn from: per key, shared by all, the key as is.
var templates = []string{"{key}", "user:{key}", "global", "{key}:tokens"}

// TestSetDecidesAsInMemory: sets of two to four limiters (any algorithm, policy
// and key template) called with random batches of allows, checks and
// all-or-nothing groups decide on Redis exactly as the same limiters in memory —
// the 'check' mode of every script, the all-or-nothing script, the placement of
// templated keys, and recovery from SCRIPT FLUSH included.
func TestSetDecidesAsInMemory(t *testing.T) {
	srv := redistest.Start(t)
	s := open(t, srv.URL())
	for seed := uint64(1); seed <= 30; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		n := 2 + r.IntN(3)
		var mem, red []algorithms.Limiter
		var policies []algorithms.Policy
		for i := 0; i < n; i++ {
			name := ported[r.IntN(len(ported))]
			limit := 2 + r.Int64N(10)
			p := algorithms.Policy{Limit: limit, Period: []time.Duration{100 * time.Millisecond, time.Second}[r.IntN(2)], Burst: 1 + r.Int64N(2*limit), RetryJitter: float64(r.IntN(2)) * 0.5}
			if name == "envoy-global" { // its periods are the service's units
				p.Period = time.Second
			}
			o := options(name, r, p)
			tmpl, _ := algorithms.ParseKeyTemplate(templates[r.IntN(len(templates))])
			m, err := algorithms.New(name, p, o)
			if err != nil {
				t.Fatal(err)
			}
			mem = append(mem, algorithms.WithTemplate(m, tmpl))
			l, err := NewLimiter(s, Config{Lane: fmt.Sprintf("set%d", seed), Part: fmt.Sprintf("l%d", i), Template: tmpl, Algorithm: name, Policy: p, Options: o})
			if err != nil {
				t.Fatal(err)
			}
			red = append(red, l)
			policies = append(policies, p)
		}
		memSet, err := algorithms.NewSet(mem)
		if err != nil {
			t.Fatal(err)
		}
		redSet, err := algorithms.NewSet(red)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := redSet.(*Set); !ok {
			t.Fatalf("Redis limiters joined into %T, not one pipeline", redSet)
		}
		at := time.Duration(r.Int64N(int64(time.Second))).Truncate(time.Microsecond)
		for batch := 0; batch < 40; batch++ {
			var calls []algorithms.Call
			for len(calls) < 1+r.IntN(12) {
				at += time.Duration(r.ExpFloat64() * float64(20*time.Millisecond)).Truncate(time.Microsecond)
				key := fmt.Sprintf("k%d", r.IntN(3))
				cost := func(part int) int64 {
					return 1 + r.Int64N(min(2, policies[part].Limit, policies[part].WithDefaults().Burst))
				}
				switch r.IntN(3) {
				case 0, 1:
					part := r.IntN(n)
					calls = append(calls, algorithms.Call{Mode: algorithms.Mode(r.IntN(2)), Part: part, Req: algorithms.Request{Key: key, Now: at, Cost: cost(part)}})
				default:
					size := 2 + r.IntN(n-1)
					for j, part := range r.Perm(n)[:size] {
						c := algorithms.Call{Mode: algorithms.ModeAll, Part: part, Req: algorithms.Request{Key: key, Now: at, Cost: cost(part)}}
						if j == 0 {
							c.Group = size
						}
						calls = append(calls, c)
					}
				}
			}
			if batch%16 == 15 { // the scripts vanish (SCRIPT FLUSH): loaded again, nothing changes
				srv.Client().ScriptFlush(t.Context())
			}
			want := make([]algorithms.Decision, len(calls))
			got := make([]algorithms.Decision, len(calls))
			memSet.Do(calls, want)
			redSet.Do(calls, got)
			for i := range calls {
				g, w := got[i], want[i]
				if g.Allowed != w.Allowed || g.RetryAfter != w.RetryAfter || g.ResetAfter != w.ResetAfter || g.Delay != w.Delay || g.Limit != w.Limit || math.Abs(g.Remaining-w.Remaining) > 1e-6 {
					t.Fatalf("seed %d batch %d call %d %+v: redis %+v, memory %+v", seed, batch, i, calls[i], g, w)
				}
			}
		}
		for i, l := range red {
			if f := l.(*Limiter).Failures(); f != 0 {
				t.Fatalf("seed %d part %d: %d failed calls", seed, i, f)
			}
		}
	}
}

// A check writes nothing, in any algorithm: a key only checked does not exist, and
// a key's state is the same after checks as before.
func TestCheckWritesNothing(t *testing.T) {
	srv := redistest.Start(t)
	s := open(t, srv.URL())
	ctx := t.Context()
	for _, name := range ported {
		l, err := NewLimiter(s, Config{Lane: "check-" + string(name), Algorithm: name, Policy: algorithms.Policy{Limit: 3, Period: time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		l.Check("fresh", 0, 1)
		for _, k := range l.redisKeys("fresh") {
			if n, _ := srv.Client().Exists(ctx, k).Result(); n != 0 {
				t.Errorf("%s: a check created %s", name, k)
			}
		}
		l.Allow("used", 0, 1)
		l.Allow("used", 500*time.Millisecond, 3) // refused: the window or bucket holds less
		dump := func() string {
			var b strings.Builder
			for _, k := range l.redisKeys("used") {
				v, _ := srv.Client().Dump(ctx, k).Result()
				b.WriteString(v)
			}
			return b.String()
		}
		before := dump()
		for _, at := range []time.Duration{time.Second, 2 * time.Second, 10 * time.Second} {
			l.Check("used", at, 1)
			l.Check("used", at, 3)
		}
		if dump() != before {
			t.Errorf("%s: checks changed the stored state", name)
		}
	}
}
