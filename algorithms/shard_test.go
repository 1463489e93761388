package algorithms

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestShardPolicies(t *testing.T) {
	p := Policy{Limit: 100, Period: time.Second, Burst: 30, RetryJitter: 0.5}
	shards := ShardPolicies(p, 8)
	var limit, burst int64
	for i, s := range shards {
		wantLimit, wantBurst := int64(12), int64(3)
		if i < 4 {
			wantLimit = 13
		}
		if i < 6 {
			wantBurst = 4
		}
		if s.Limit != wantLimit || s.Burst != wantBurst || s.Period != p.Period || s.RetryJitter != p.RetryJitter {
			t.Errorf("shard %d: %+v, want limit %d burst %d", i, s, wantLimit, wantBurst)
		}
		limit, burst = limit+s.Limit, burst+s.Burst
	}
	if limit != 100 || burst != 30 {
		t.Errorf("the shards add up to limit %d burst %d, want 100 and 30", limit, burst)
	}
	if o := ShardOptions(Options{Rollover: 5, MaxReserved: 9}, 4, 0); o.Rollover != 2 || o.MaxReserved != 3 {
		t.Errorf("shard 0 of 4 options: %+v, want rollover 2 and max_reserved 3", o)
	}
}

// PickShards: two different shards, each uniform over the shards, the pairs
// uniform over ordered pairs; one shard is always shard 0.
func TestPickShards(t *testing.T) {
	if a, b := PickShards(12345, 1); a != 0 || b != 0 {
		t.Errorf("one shard: %d, %d", a, b)
	}
	const n, draws = 8, 80_000
	var first, second [n]int
	pairs := map[[2]int]int{}
	x := uint64(88172645463325252)
	for i := 0; i < draws; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		a, b := PickShards(x, n)
		if a == b || a < 0 || a >= n || b < 0 || b >= n {
			t.Fatalf("draw %d: shards %d and %d", x, a, b)
		}
		first[a]++
		second[b]++
		pairs[[2]int{a, b}]++
	}
	for s := 0; s < n; s++ {
		for _, c := range []int{first[s], second[s]} {
			if math.Abs(float64(c)-draws/n) > 0.05*draws/n {
				t.Errorf("shard %d picked %d times of %d, want about %d", s, c, draws, draws/n)
			}
		}
	}
	if len(pairs) != n*(n-1) {
		t.Errorf("%d distinct pairs, want %d", len(pairs), n*(n-1))
	}
}

func TestKeyTemplate(t *testing.T) {
	for _, tc := range []struct {
		text, key, want string
		perKey          bool
		err             string
	}{
		{"{key}", "alice", "alice", true, ""},
		{"user:{key}", "alice", "user:alice", true, ""},
		{"{key}:tokens", "alice", "alice:tokens", true, ""},
		{"global", "alice", "global", false, ""},
		{"user:{id}", "", "", false, "unknown field {id}"},
		{"{key}{key}", "", "", false, "unknown field {key}"},
		{"a}b", "", "", false, "unknown field }"},
		{"", "", "", false, "must not be empty"},
	} {
		k, err := ParseKeyTemplate(tc.text)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseKeyTemplate(%q): error %v, want one saying %q", tc.text, err, tc.err)
			}
		case err != nil:
			t.Errorf("ParseKeyTemplate(%q): %v", tc.text, err)
		case k.Render(tc.key) != tc.want || k.PerKey() != tc.perKey || k.String() != tc.text:
			t.Errorf("%q: Render(%q) = %q, PerKey %v, String %q; want %q, %v", tc.text, tc.key, k.Render(tc.key), k.PerKey(), k.String(), tc.want, tc.perKey)
		}
	}
	var zero KeyTemplate
	if zero.Render("k") != "k" || !zero.Identity() || !zero.PerKey() {
		t.Error("the zero template is not {key}")
	}
}

// A local set's all-or-nothing group: when one limiter would refuse, nothing is
// spent anywhere and each call says what its limiter would have decided; when all
// would allow, all spend.
func TestSetAllOrNothing(t *testing.T) {
	p := Policy{Limit: 2, Period: time.Second}
	a, b := NewTokenBucket(p, true, 0), NewTokenBucket(p, true, 0)
	set, err := NewSet([]Limiter{a, WithTemplate(b, mustTemplate("global"))})
	if err != nil {
		t.Fatal(err)
	}
	group := func(costA, costB int64) []Decision {
		out := make([]Decision, 2)
		set.Do([]Call{{Mode: ModeAll, Part: 0, Group: 2, Req: Request{Key: "k", Cost: costA}}, {Mode: ModeAll, Part: 1, Req: Request{Key: "k", Cost: costB}}}, out)
		return out
	}
	if d := group(1, 2); !d[0].Allowed || !d[1].Allowed {
		t.Fatalf("both have room: %+v", d)
	}
	d := group(1, 1) // b is empty
	if d[0].Allowed != true || d[1].Allowed || d[1].RetryAfter != 500*time.Millisecond {
		t.Fatalf("b refuses: %+v, want a's check allowed, b refused with 500ms", d)
	}
	if a.Level("k", 0) != 1 || b.Level("global", 0) != 0 {
		t.Errorf("after a refused group: a holds %g (want 1: nothing spent), b %g", a.Level("k", 0), b.Level("global", 0))
	}
	out := make([]Decision, 3)
	set.Do([]Call{{Mode: ModeCheck, Part: 0, Req: Request{Key: "k", Cost: 1}}, {Mode: ModeAllow, Part: 0, Req: Request{Key: "k", Cost: 1}}, {Mode: ModeAllow, Part: 0, Req: Request{Key: "k", Cost: 1}}}, out)
	if !out[0].Allowed || !out[1].Allowed || out[2].Allowed {
		t.Errorf("check, allow, allow on one token: %+v", out)
	}
}

func mustTemplate(s string) KeyTemplate {
	k, err := ParseKeyTemplate(s)
	if err != nil {
		panic(err)
	}
	return k
}
