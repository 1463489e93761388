package session

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/redistest"
	"ratelab/scenarios"
	"ratelab/sim"
)

// compositeScenario has, for every algorithm with a Redis port, a lane of 4 shards
// picked at random and one picked by two choices, and a lane of three limits of
// different algorithms (a key per request key, one a shared key) for each way of
// combining them; Poisson traffic near the limit over three keys, with retries, a
// round trip of 1ms. clusterSafe gives the shared limit a key per request key too,
// so all or nothing can run on a cluster.
func compositeScenario(t *testing.T, clusterSafe bool) *sim.Config {
	t.Helper()
	var b strings.Builder
	b.WriteString(`[[scenario]]
name = "composite"
duration = "4s"
tick = "100ms"
[scenario.policy]
limit = 40
`)
	for _, a := range algorithms.All() {
		if a.Redis == nil || a.CountsRequests {
			continue // a product that counts requests takes none of these costs (traefik-redis: redislua's own tests)
		}
		for _, pick := range algorithms.ShardPicks {
			fmt.Fprintf(&b, "[[scenario.lane]]\nname = \"%s %s\"\nalgorithm = %q\nshards = 4\nshard_pick = %q\n", a.Name, pick, a.Name, pick)
		}
	}
	shared := `"global"`
	if clusterSafe {
		shared = `"global:{key}"`
	}
	for _, combine := range algorithms.Combines {
		fmt.Fprintf(&b, `[[scenario.lane]]
name = "limits %[1]s"
combine = %[1]q
order = { b = ["tokens", "window", "requests"] }
[[scenario.lane.limits]]
name = "requests"
algorithm = "gcra"
limit = 30
key = "r:{key}"
cost = 1
[[scenario.lane.limits]]
name = "tokens"
algorithm = "token-bucket"
limit = 200
burst = 60
key = "t:{key}"
[[scenario.lane.limits]]
name = "window"
algorithm = "sliding-log"
limit = 90
key = %[2]s
`, combine, shared)
	}
	b.WriteString(`[[scenario.client]]
name = "a"
pattern = "poisson"
rate = 25
keys = 3
cost_distribution = { distribution = "uniform", min = 1, max = 6 }
retry = { policy = "retry-after", max_attempts = 3 }
[[scenario.client]]
name = "b"
pattern = "poisson"
rate = 20
keys = 3
cost_distribution = { distribution = "uniform", min = 2, max = 9 }
retry = { policy = "retry-after", max_attempts = 3, jitter = "full" }
`)
	c, err := scenarios.Parse(scenarios.Source{Name: "composite.toml"}, []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("composite", scenarios.Overrides{Redis: true})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Shards of every ported algorithm (both picks) and several limits of mixed
// algorithms (each way of combining them) decide on Redis as in memory, row for
// row, with the lookahead and without, and measure the same.
func TestCompositeLanesOnRedisDecideAsInMemory(t *testing.T) {
	srv := redistest.Start(t)
	cfg := compositeScenario(t, false)
	rows, series, ms := replay(t, cfg, srv.URL(), cfg.Duration)
	memRows, memSeries, memMs := replay(t, inMemory(cfg), "", cfg.Duration)
	if rows != memRows || series != memSeries {
		t.Fatalf("on Redis the composite lanes differ from memory:\n%s", firstDifference(rows, memRows))
	}
	oneAtATime := *cfg
	oneAtATime.NoLookahead = true
	if slow, _, _ := replay(t, &oneAtATime, srv.URL(), cfg.Duration); slow != rows {
		t.Fatalf("the lookahead changed a decision:\n%s", firstDifference(rows, slow))
	}
	for i, m := range ms {
		if m.StoreErrors != 0 {
			t.Errorf("lane %s: %d store errors", m.Lane, m.StoreErrors)
		}
		if m.FalseDenials != memMs[i].FalseDenials || m.WastedUnits != memMs[i].WastedUnits || m.Starved != memMs[i].Starved {
			t.Errorf("lane %s: metrics differ from memory: %+v vs %+v", m.Lane, m, memMs[i])
		}
		if m.Denied == 0 {
			t.Errorf("lane %s denied nothing: the test says little", m.Lane)
		}
	}
}

// The same on a three-master cluster (the shared limit keyed per request key, so
// all or nothing finds its keys in one slot).
func TestCompositeLanesOnAClusterDecideAsInMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("a cluster takes seconds to form")
	}
	cl := redistest.StartCluster(t)
	cfg := compositeScenario(t, true)
	rows, series, _ := replay(t, cfg, cl.URL(), cfg.Duration)
	memRows, memSeries, _ := replay(t, inMemory(cfg), "", cfg.Duration)
	if rows != memRows || series != memSeries {
		t.Fatalf("on the cluster the composite lanes differ from memory:\n%s", firstDifference(rows, memRows))
	}
	if _, err := Start(compositeScenario(t, false), Options{RedisURL: cl.URL(), MustReach: true}); err == nil || !strings.Contains(err.Error(), `lane "limits all-or-nothing" cannot run on a Redis Cluster`) {
		t.Errorf("all or nothing over two slots on a cluster: %v", err)
	}
}

// Redis dies under composite lanes and comes back: their calls fail closed and are
// counted, nothing breaks, and they decide again once a server is back.
func TestCompositeLanesWhenRedisDies(t *testing.T) {
	srv := redistest.Start(t)
	cfg := compositeScenario(t, false)
	r, err := Start(cfg, Options{RedisURL: srv.URL(), MustReach: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.AdvanceTo(time.Second)
	before := r.Metrics()
	srv.Stop()
	r.AdvanceTo(2 * time.Second)
	down := r.Metrics()
	srv.Restart()
	r.AdvanceTo(4 * time.Second)
	up := r.Metrics()
	for i := range up {
		if down[i].StoreErrors == 0 || down[i].Accepted != before[i].Accepted {
			t.Errorf("lane %s with Redis down: %d store errors, accepted %d → %d; want errors and nothing accepted (on_error closed)", up[i].Lane, down[i].StoreErrors, before[i].Accepted, down[i].Accepted)
		}
		if up[i].Accepted <= down[i].Accepted || r.Lanes[i].Unavailable() {
			t.Errorf("lane %s after the restart: accepted %d → %d, unavailable %v; want it deciding again", up[i].Lane, down[i].Accepted, up[i].Accepted, r.Lanes[i].Unavailable())
		}
	}
}

// All or nothing over a key per request key and one shared key cannot run on a
// Redis Cluster (one script, two slots): the Redis store refuses it when it
// opens, before it connects, as a usage error naming the lane, the limits and the
// fix; with every limit keyed per request key it is not refused (here it then
// finds nothing listening).
func TestAllOrNothingAcrossSlots(t *testing.T) {
	cluster := "redis://127.0.0.1:1/?cluster=true" // nothing listens on port 1
	_, err := Start(compositeScenario(t, false), Options{RedisURL: cluster, MustReach: true})
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), `scenario "composite": lane "limits all-or-nothing" cannot run on a Redis Cluster: combine = "all-or-nothing" runs one script over every limit's keys, which a Redis Cluster allows only within one slot; but limit "requests" (key "r:{key}") has a key per request key, each in a slot of its own, and limit "window" (key "global") is one key for all, in another: give every limit a key that names {key}`) {
		t.Errorf("all or nothing over two slots on a cluster: %v", err)
	}
	_, err = Start(compositeScenario(t, true), Options{RedisURL: cluster, MustReach: true})
	if err == nil || errors.Is(err, ErrUsage) || strings.Contains(err.Error(), "cannot run on a Redis Cluster") {
		t.Errorf("every limit per key, on a cluster that is not there: %v; want a failure to connect", err)
	}
	if _, err := Start(compositeScenario(t, false), Options{RedisURL: strings.TrimSuffix(cluster, "?cluster=true"), MustReach: true}); errors.Is(err, ErrUsage) {
		t.Errorf("on one server the lane is not refused: %v", err)
	}
}
