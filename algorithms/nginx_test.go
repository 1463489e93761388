package algorithms

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// request2 is one request of a location with several limit_req: at, and its
// key in each zone ("" leaves the zone out, as nginx skips an empty key).
type request2 struct {
	at      time.Duration
	keys    []string
	allowed bool
}

// nginx-tests limit_req2.t: zones fast (1000r/s, on $arg_b) and slow (1r/m, on
// $arg_a), both without a burst, in that order; the same answers with nodelay.
// Each pair is 0.1 s apart: b alone passes twice; a alone is refused the
// second time (slow: e = 0 − ⌊16 × 100 / 1000⌋ + 1000 = 999 > 0); a and b
// together likewise, and fast, looked up but not charged, keeps its node as it
// was (excess 0, last 0).
func TestNginxLimitReq2T(t *testing.T) {
	for _, o := range []Options{{}, {Nodelay: true}} {
		fast := NewNginx(Policy{Limit: 1000, Period: time.Second, Burst: 1}, o)
		slow := NewNginx(Policy{Limit: 1, Period: time.Minute, Burst: 1}, o)
		zones := []*Nginx{fast, slow}
		for i, r := range []request2{
			{0, []string{"1", ""}, true}, {ms(100), []string{"1", ""}, true},
			{0, []string{"", "1"}, true}, {ms(100), []string{"", "1"}, false},
			{0, []string{"2", "2"}, true}, {ms(100), []string{"2", "2"}, false},
		} {
			var limits []NginxLimit
			for z, k := range r.keys {
				if k != "" {
					limits = append(limits, NginxLimit{Zone: zones[z], Key: k, Cost: 1})
				}
			}
			out := make([]Decision, len(limits))
			NginxRequest(limits, r.at, out)
			allowed := !slices.ContainsFunc(out, func(d Decision) bool { return !d.Allowed })
			if allowed != r.allowed {
				t.Errorf("nodelay %v, step %d: ?a=%s&b=%s at %v: allowed %v, want %v (%+v)", o.Nodelay, i, r.keys[1], r.keys[0], r.at, allowed, r.allowed, out)
			}
		}
		if s := fast.stateOf("2"); s.Excess != 0 || s.Last != 0 || s.Boot {
			t.Errorf("nodelay %v: fast's node for b=2 after the refusal = %+v, want excess 0, last 0: looked up, not charged", o.Nodelay, *s)
		}
		if s := slow.stateOf("2"); s.Excess != 0 || s.Last != 0 {
			t.Errorf("nodelay %v: slow's node for a=2 after the refusal = %+v, want unchanged", o.Nodelay, *s)
		}
	}
}

// A request held to several limit_req waits the longest of their delays, and a
// refusal by any charges none, the limits after it not even looked up; an
// earlier limit's new node, held for a request a later one refuses, stays, and
// answers as a new key. Through a Set (a multi-limit lane's all-or-nothing
// group) the decisions are the same.
func TestNginxSeveralLimitsAccountAndRollBack(t *testing.T) {
	newZones := func() (*Nginx, *Nginx) {
		return NewNginx(Policy{Limit: 10, Period: time.Second, Burst: 3}, Options{}),
			NewNginx(Policy{Limit: 1, Period: time.Second, Burst: 3}, Options{})
	}
	a, b := newZones()
	out := make([]Decision, 2)
	var direct [][]Decision
	req := func(at time.Duration) []Decision {
		NginxRequest([]NginxLimit{{a, "k", 1}, {b, "k", 1}}, at, out)
		direct = append(direct, slices.Clone(out))
		return direct[len(direct)-1]
	}
	req(0)
	if d := req(0); !d[0].Allowed || !d[1].Allowed || d[0].Delay != ms(100) || d[1].Delay != time.Second {
		t.Errorf("second request: %+v, want both allowed, delays 100ms and 1s (the request waits 1 s)", d)
	}
	req(0)
	if d := req(0); d[0].Allowed {
		t.Errorf("fourth request: %+v, want the first limit (e = 3000 > 2000) to refuse", d)
	}
	if a.stateOf("k").Excess != 2000 || b.stateOf("k").Excess != 2000 {
		t.Errorf("after a refusal: excess %d and %d, want 2000 and 2000 (nothing charged)", a.stateOf("k").Excess, b.stateOf("k").Excess)
	}
	// a new key in the first zone, refused by the second: the first keeps a node
	// (uncharged, drained), the second is not looked up for a new key
	b.Allow("full", 0, 1)
	b.Allow("full", 0, 1)
	b.Allow("full", 0, 1)
	NginxRequest([]NginxLimit{{a, "full", 1}, {b, "full", 1}}, 0, out)
	if out[1].Allowed || a.stateOf("full") == nil || !a.stateOf("full").Boot {
		t.Errorf("a new key refused by the second limit: %+v; first zone's node %+v, want a held, uncharged node", out, a.stateOf("full"))
	}
	if d := a.Check("full", 0, 1); !d.Allowed || d.Remaining != 2 {
		t.Errorf("the held node answers %+v, want a new key's (allowed, remaining 2)", d)
	}

	// the same through a Set's all-or-nothing group, under key templates
	x, y := newZones()
	set, err := NewSet([]Limiter{WithTemplate(x, mustTemplate("u:{key}")), y})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := set.(*nginxSet); !ok {
		t.Fatalf("NewSet of nginx zones is a %T, want the nginx set", set)
	}
	group := []Call{{Mode: ModeAll, Part: 0, Group: 2, Req: Request{Key: "k", Now: 0, Cost: 1}}, {Mode: ModeAll, Part: 1, Req: Request{Key: "k", Now: 0, Cost: 1}}}
	got := make([]Decision, 2)
	for i, want := range direct {
		set.Do(group, got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("through the set, request %d: %+v, want %+v", i, got, want)
		}
	}
	if x.stateOf("u:k") == nil || x.stateOf("u:k").Excess != 2000 || y.stateOf("k").Excess != 2000 {
		t.Errorf("through the set: nodes %+v and %+v, want excess 2000 each after three passes and a refusal", x.stateOf("u:k"), y.stateOf("k"))
	}
}

// nginx's expiry runs when a new key gets a node: the least recently looked-up
// nodes go, two at most, while the oldest has been idle 60 s and drained
// (excess − rate × idle ≤ 0, without lookup's + 1000). At 1r/m with no burst, a
// key's request 61.5 s after its first is refused (e = 0 − 984 + 1000 = 16) —
// unless another key arrived after 60 s, which deleted its node: then it is a
// new key and passes.
func TestNginxExpiryIsObservable(t *testing.T) {
	p := Policy{Limit: 1, Period: time.Minute, Burst: 1}
	alone, joined := NewNginx(p, Options{}), NewNginx(p, Options{})
	for _, z := range []*Nginx{alone, joined} {
		z.Allow("a", 0, 1)
	}
	joined.Allow("b", 61*time.Second, 1)
	if d := alone.Allow("a", 61500*time.Millisecond, 1); d.Allowed {
		t.Errorf("a alone at 61.5 s: %+v, want refused (e = 16)", d)
	}
	if d := joined.Allow("a", 61500*time.Millisecond, 1); !d.Allowed {
		t.Errorf("a at 61.5 s after b arrived at 61 s: %+v, want allowed (its node expired)", d)
	}

	// the queue is by lookup, refused lookups too; two nodes at most per new key
	z := NewNginx(p, Options{})
	z.Allow("a", 0, 1)
	z.Allow("b", time.Second, 1)
	z.Allow("d", 2*time.Second, 1)
	if d := z.Allow("a", 30*time.Second, 1); d.Allowed {
		t.Fatalf("a at 30 s: %+v, want refused", d)
	}
	z.Allow("c", 70*time.Second, 1)
	keys := z.stateKeys()
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"a", "c"}) {
		t.Errorf("after c at 70 s the zone holds %v, want [a c]: b and d expired (the oldest looked up), a was looked up at 30 s", keys)
	}
	if n := z.Evict(time.Hour); n != 0 || z.Keys() != 2 {
		t.Errorf("Evict forgot %d, want 0: only nginx's expiry removes nodes", n)
	}
	if z.StateBytes() != 2+2*nginxStateBytes {
		t.Errorf("StateBytes = %d, want the keys' bytes and 16 per node", z.StateBytes())
	}
}

// A refusal's RetryAfter is exact on the millisecond clock: at now +
// RetryAfter the same request passes, a microsecond before it does not; on
// random policies, options and traces.
func TestNginxRetryAfterIsExact(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 20))
		p := randomPolicy(r)
		p.Period = []time.Duration{time.Second, time.Minute}[r.IntN(2)]
		o := Options{Nodelay: r.IntN(2) == 0}
		if !o.Nodelay {
			o.Delay = r.Int64N(p.Burst)
		}
		z := NewNginx(p, o)
		checked := 0
		for i, q := range randomTrace(r, p, 200, min(3, p.Burst)) {
			d := z.Allow(q.key, q.at, q.cost)
			if d.Allowed || d.RetryAfter == Forever {
				continue
			}
			checked++
			if at := q.at + d.RetryAfter; !z.Check(q.key, at, q.cost).Allowed {
				t.Fatalf("seed %d step %d (%s): refused at %v with retry-after %v, but refused again at %v", seed, i, p, q.at, d.RetryAfter, at)
			}
			if at := q.at + d.RetryAfter - time.Microsecond; z.Check(q.key, at, q.cost).Allowed {
				t.Fatalf("seed %d step %d (%s): refused at %v with retry-after %v, but allowed already at %v", seed, i, p, q.at, d.RetryAfter, at)
			}
		}
		if checked == 0 && seed < 20 {
			t.Logf("seed %d: no refusal", seed)
		}
	}
}

// Level (the requests in the bucket) and the level the engine reads off a
// decision (Limit − Remaining) agree to within a request, as the leaky
// bucket's do.
func TestNginxLevelAgreesWithDecisions(t *testing.T) {
	z := NewNginx(Policy{Limit: 7, Period: time.Minute, Burst: 5}, Options{})
	for i := range 40 {
		at := time.Duration(i) * 1700 * time.Millisecond
		d := z.Allow("k", at, 1)
		if !d.Allowed {
			continue
		}
		if lv, fromD := z.Level("k", at), float64(d.Limit)-d.Remaining; lv > fromD || fromD-lv >= 1 {
			t.Fatalf("at %v: Level %g, Limit − Remaining %g", at, lv, fromD)
		}
	}
}

// A period nginx cannot write, or a delay past the burst, is refused with the
// fix; New refuses them too.
func TestNginxPolicyChecks(t *testing.T) {
	for _, c := range []struct {
		p    Policy
		o    Options
		want string
		key  string
	}{
		{Policy{Limit: 5, Period: 10 * time.Second}, Options{}, `write limit = 30, period = "1m"`, ""},
		{Policy{Limit: 3, Period: 7 * time.Second}, Options{}, `write period = "1s" (rate=Nr/s) or "1m"`, ""},
		{Policy{Limit: 1, Period: 500 * time.Millisecond}, Options{}, `write limit = 2, period = "1s"`, ""},
		{Policy{Limit: 10, Period: time.Second, Burst: 5}, Options{Delay: 5}, "delay = 5 is more than nginx's burst, 4", "delay"},
	} {
		err := CheckNginxPolicy(c.p, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with %+v: %v, want %q", c.p, c.o, err, c.want)
		}
		if oe, ok := errors.AsType[*OptionError](err); c.key != "" && (!ok || oe.Key != c.key) {
			t.Errorf("%s with %+v: %v is not an option error at %q", c.p, c.o, err, c.key)
		}
		if _, err := New(NginxName, c.p, c.o); err == nil {
			t.Errorf("New(nginx, %s, %+v) accepted it", c.p, c.o)
		}
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Delay: 2, Nodelay: true}, "contradict"},
		{Options{Delay: -1}, "delay must be"},
		{Options{DenyStatus: 200}, "from 400 to 599"},
	} {
		if err := c.o.Check(NginxName); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	if err := CheckNginxPolicy(Policy{Limit: 10, Period: time.Minute, Burst: 5}, Options{Delay: 4}); err != nil {
		t.Errorf("delay = nginx's burst: %v", err)
	}
}

// TestNginxForgottenNodeLeavesTheQueue: a node forgotten (a store flushed)
// leaves the zone's queue, so that expiring the oldest node later does not
// delete the key's next node in its place. One request a second, no burst:
// a's node after its request at 95 s refuses a request 200 ms later, and a new
// key's node made between them (which expires the oldest nodes) must not
// change that.
func TestNginxForgottenNodeLeavesTheQueue(t *testing.T) {
	p := Policy{Limit: 1, Period: time.Second, Burst: 1}
	for _, forget := range []struct {
		name string
		do   func(z *Nginx)
	}{{"ForgetAll", func(z *Nginx) { z.ForgetAll() }}, {"Forget", func(z *Nginx) { z.Forget("a") }}} {
		z := NewNginx(p, Options{})
		z.Allow("a", 0, 1)
		forget.do(z)
		for _, at := range []time.Duration{time.Second, 95 * time.Second} {
			if d := z.Allow("a", at, 1); !d.Allowed {
				t.Fatalf("%s: a at %v refused, want allowed (drained)", forget.name, at)
			}
		}
		z.Allow("b", 95100*time.Millisecond, 1) // a new node: the oldest ones are expired first
		if d := z.Allow("a", 95200*time.Millisecond, 1); d.Allowed {
			t.Errorf("%s: a at 95.2 s allowed, want refused: its node from 95 s holds 800 of excess (the forgotten node was expired in its place)", forget.name)
		}
		if z.Keys() != 2 {
			t.Errorf("%s: the zone holds %d keys, want 2 (a, b)", forget.name, z.Keys())
		}
	}
}
