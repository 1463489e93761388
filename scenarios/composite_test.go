package scenarios

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

// twoLimits is a lane holding requests to two limits, per key and shared, that
// the cases below break one piece at a time.
const twoLimits = `
[[scenario.lane]]
name = "both"
combine = "in-order"
[[scenario.lane.limits]]
name = "user"
algorithm = "token-bucket"
key = "user:{key}"
[[scenario.lane.limits]]
name = "global"
algorithm = "gcra"
limit = 100
key = "global"
cost = 2
`

// Bad input for shards, limits and headers: one message naming the place and the
// fix, never a panic.
func TestBadCompositeInput(t *testing.T) {
	lane := func(extra string) string {
		return minimal + "[[scenario.lane]]\nname = \"l\"\nalgorithm = \"token-bucket\"\n" + extra + "\n"
	}
	limits := func(old, new string) string {
		if !strings.Contains(twoLimits, old) {
			t.Fatalf("test setup: %q not in the lane", old)
		}
		return minimal + strings.Replace(twoLimits, old, new, 1)
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"no shards", lane("shards = 0"), `dir/test.toml:15:10: scenario "s": lane "l": shards must be >= 1 (got 0)`},
		{"more shards than the burst", lane("burst = 4\nshards = 8"), `lane "l": shards = 8 is more than the burst (4) of tier "default": a shard would get less than one unit; use at most 4 shards, or raise the burst`},
		{"more shards than the limit", lane("burst = 20\nshards = 16"), `shards = 16 is more than the limit (10) of tier "default"`},
		{"unknown pick", lane("shards = 2\nshard_pick = \"best\""), `dir/test.toml:16:14: scenario.lane: shard_pick must be one of "random", "two-choices" (got "best")`},
		{"pick without shards", lane("shard_pick = \"two-choices\""), `lane "l": shard_pick applies to a sharded lane; add shards = N (2 or more)`},
		{"two choices of one", lane("shards = 1\nshard_pick = \"two-choices\""), `two choices need two shards or more (shards = 1)`},
		{"shards with strategy", lane("shards = 2\nstrategy = \"multi\""), `shards apply to atomic lanes`},
		{"combine without limits", lane(`combine = "all-or-nothing"`), `lane "l": combine applies to a lane that holds each request to several limits; add [[scenario.lane.limits]] tables, two or more`},
		{"order without limits", lane(`order = { c = ["a"] }`), `order applies to a lane that holds each request to several limits`},
		{"unknown combine", limits(`combine = "in-order"`, `combine = "both"`), `dir/test.toml:15:11: scenario.lane: combine must be one of "in-order", "check-then-consume", "all-or-nothing" (got "both")`},
		{"unknown field", limits(`key = "user:{key}"`, `key = "user:{id}"`), `dir/test.toml:19:7: scenario "s": lane "both": limit "user": key "user:{id}" names an unknown field {id}; the only field is {key}`},
		{"bad cost", limits("cost = 2", `cost = "tokens"`), `limit "global": cost must be a number of units, or "cost" for the request's own (got "tokens")`},
		{"zero cost", limits("cost = 2", "cost = 0"), `limit "global": cost must be a number of units >= 1`},
		{"limit algorithm", limits(`algorithm = "gcra"`, `algorithm = "none"`), `limit "global": the no-limit lane is not a limit`},
		{"duplicate limit", limits(`name = "global"`, `name = "user"`), `limit "user": two limits are named "user"; give each its own name`},
		{"limit policy", limits("limit = 100", "limit = -1"), `limit "global": limit must be > 0 (got -1)`},
		{"order of an unknown client", limits(`combine = "in-order"`, "combine = \"in-order\"\norder = { nobody = [\"global\", \"user\"] }"), `lane "both": order names client "nobody", which this scenario does not have`},
		{"order missing a limit", limits(`combine = "in-order"`, "combine = \"in-order\"\norder = { c = [\"global\"] }"), `order for client "c" must name every limit once ("user", "global"), got "global"`},
		{"shards and limits", limits(`combine = "in-order"`, "combine = \"in-order\"\nshards = 2"), `shards splits one limit; this lane holds each request to several`},
		{"cost above a limit", limits("cost = 2", "cost = 200"), `client "c": a request may cost 200, more than lane "both"'s limit "global"'s burst of 100`},
		{"unknown headers", lane(`headers = "github"`), `dir/test.toml:15:11: scenario.lane: headers must be one of "draft", "legacy", "x-ratelimit", "envoy", "spring", "traefik", "kong" (got "github")`},
	} {
		_, err := parse(t, tc.doc, nil)
		if err == nil {
			t.Errorf("%s: no error, want %q", tc.name, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got: %v\nwant: %s", tc.name, err, tc.want)
		}
	}
	// a request costing more than one shard holds, though not more than the lane
	doc := strings.Replace(lane("shards = 5"), "rate = 5\n", "rate = 5\ncost = 3\n", 1)
	if _, err := parse(t, doc, nil); err == nil || !strings.Contains(err.Error(), `client "c": a request may cost 3, more than lane "l"'s shard 0's (its burst split 5 ways) burst of 2, so it could never be accepted; lower the cost or raise the burst, or use fewer shards`) {
		t.Errorf("cost above a shard's burst: %v", err)
	}
}

// All or nothing over a key per request key and one shared key compiles, in
// memory and on Redis: whether a Redis Cluster can run it (one script, two
// slots) is the Redis store's to say (package session's TestAllOrNothingAcrossSlots).
func TestAllOrNothingAcrossSlots(t *testing.T) {
	doc := minimal + strings.Replace(twoLimits, `combine = "in-order"`, `combine = "all-or-nothing"`, 1)
	c, err := parse(t, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Overrides{{}, {Redis: true}} {
		if _, err := c.Compile("s", o); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// What a lane of several limits and a sharded lane compile to.
func TestCompositeLanesCompile(t *testing.T) {
	doc := minimal + strings.Replace(twoLimits, `combine = "in-order"`, "combine = \"in-order\"\norder = { c = [\"global\", \"user\"] }\nheaders = \"x-ratelimit\"", 1) + `
[[scenario.lane]]
algorithm = "sliding-counter"
shards = 3
shard_pick = "two-choices"
`
	c, err := parse(t, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("s", Overrides{Redis: true})
	if err != nil {
		t.Fatal(err)
	}
	both, sharded := cfg.Lanes[0], cfg.Lanes[1]
	want := []sim.LimitConfig{
		{Name: "user", Algorithm: "token-bucket", Options: algorithms.Options{MonotonicTimestamp: true}, Policy: algorithms.Policy{Limit: 10, Period: time.Second, Burst: 10}},
		{Name: "global", Algorithm: "gcra", Policy: algorithms.Policy{Limit: 100, Period: time.Second, Burst: 100}, Cost: 2},
	}
	for i, w := range want {
		got := both.Limits[i]
		if got.Name != w.Name || got.Algorithm != w.Algorithm || got.Options != w.Options || got.Policy != w.Policy || got.Cost != w.Cost {
			t.Errorf("limit %d: %+v, want %+v", i, got, w)
		}
	}
	if both.Limits[0].Template.Render("k") != "user:k" || both.Limits[1].Template.Render("k") != "global" {
		t.Errorf("templates: %s, %s", both.Limits[0].Template, both.Limits[1].Template)
	}
	if both.Algorithm != "token-bucket" || both.Combine != algorithms.InOrder || both.Headers != algorithms.HeadersX || both.Backend != sim.OnRedis {
		t.Errorf("lane: %+v", both)
	}
	if len(both.Orders) != 1 || len(both.Orders[0]) != 2 || both.Orders[0][0] != 1 {
		t.Errorf("order: %v, want client c taking global first", both.Orders)
	}
	if sharded.Name != "sliding-counter" || sharded.Shards != 3 || sharded.ShardPick != algorithms.PickTwoChoices || sharded.Headers != algorithms.HeadersDraft {
		t.Errorf("sharded lane: %+v", sharded)
	}
	if parts := sharded.Parts(cfg, 0); len(parts) != 3 || parts[0].Policy.Limit != 4 || parts[2].Policy.Limit != 3 || parts[2].Shard != 2 {
		t.Errorf("shards: %+v", parts)
	}
}

// The lane keys of the algorithms' own options are exactly those the registry's
// algorithms declare, in its order: a new algorithm's option is in the schema,
// and the schema has no option no algorithm takes.
func TestOptionKeysAreTheRegistrys(t *testing.T) {
	got := keysOf(reflect.TypeFor[OptionsSpec]())
	if want := algorithms.OptionKeys(); !slices.Equal(got, want) {
		t.Errorf("the lane's option keys are %v; the algorithms declare %v", got, want)
	}
	for _, key := range got {
		if !slices.Contains(keysOf(reflect.TypeFor[LaneSpec]()), key) {
			t.Errorf("%s is not a key of a lane's table", key)
		}
	}
}
