package session

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"ratelab/internal/redistest"
	"ratelab/present"
	"ratelab/scenarios"
	"ratelab/sim"
)

// catalogue is the shipped catalogue, read from the repository.
func catalogue(t testing.TB) *scenarios.Catalogue {
	t.Helper()
	c, err := scenarios.LoadFS(os.DirFS(".."), "scenarios.toml")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// scenarioOnRedis compiles a shipped scenario with its lanes on Redis (x-time-rate stays in
// memory), keeping only the named lanes when given.
func scenarioOnRedis(t *testing.T, name string, lanes ...string) *sim.Config {
	t.Helper()
	cfg, err := catalogue(t).Compile(name, scenarios.Overrides{Redis: true, Lanes: lanes})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// inMemory is cfg with every lane in memory and nothing else changed (the same
// round trips): the twin a Redis run must match.
func inMemory(cfg *sim.Config) *sim.Config {
	twin := *cfg
	twin.Lanes = append([]sim.LaneConfig(nil), cfg.Lanes...)
	for i := range twin.Lanes {
		twin.Lanes[i].Backend = sim.InMemory
	}
	return &twin
}

// replay runs cfg to upTo (on the Redis at url for Redis lanes) and returns its
// request CSV, with the backend column written as memory, and its series CSV.
func replay(t *testing.T, cfg *sim.Config, url string, upTo time.Duration) (string, string, []sim.Metrics) {
	t.Helper()
	rows, series, ms, _ := replayJudged(t, cfg, url, upTo)
	return rows, series, ms
}

// replayJudged is replay, with the lesson's claims judged on the run.
func replayJudged(t *testing.T, cfg *sim.Config, url string, upTo time.Duration) (string, string, []sim.Metrics, []sim.ClaimResult) {
	t.Helper()
	r, err := Start(cfg, Options{RedisURL: url, MustReach: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows, series bytes.Buffer
	w, _ := present.NewRequestWriter(&rows, cfg)
	r.OnRows(w.Write)
	if err := r.AdvanceTo(upTo); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	present.WriteSeries(&series, r.Run)
	return strings.ReplaceAll(rows.String(), ",redis,", ",memory,"), series.String(), r.Metrics(), r.Claims()
}

// horizon bounds how much of each scenario the differential replays on Redis
// (three times, once a call at a time), so the test stays short under -race: the
// busy ones are compared over a first part that still holds their lesson (the
// storms' glitch starts at 10 s, the herds come at 6 s and 7 s; the WATCH lane of
// the race is a round trip per step; a sharded lane checks every shard each round
// trip).
var horizon = map[string]time.Duration{
	"sandbox": 3 * time.Second,
	"tiers":   2 * time.Second, "non-atomic-race": 200 * time.Millisecond, "thundering-herd": 8 * time.Second,
	"retry-storm": 12 * time.Second, "retry-storm-backoff": 12 * time.Second,
	"hot-key-shards": 5 * time.Second, "failover": 17 * time.Second,
}

// TestEveryScenarioOnRedisDecidesAsInMemory: every shipped scenario, its lanes on
// a real Redis, makes the decisions of the same lanes in memory — rows and series
// byte for byte — and the lookahead (decisions batched a round trip at a time)
// makes exactly the decisions of one call each.
func TestEveryScenarioOnRedisDecidesAsInMemory(t *testing.T) {
	srv := redistest.Start(t)
	for _, name := range catalogue(t).Names() {
		if testing.Short() && name != "boundary-burst" {
			continue // -short: one scenario, every algorithm on Redis; the sweep is the full run's
		}
		t.Run(name, func(t *testing.T) {
			cfg := withHandInputs(scenarioOnRedis(t, name))
			upTo := cfg.Duration
			if h, ok := horizon[name]; ok {
				upTo = h
			}
			rows, series, ms := replay(t, cfg, srv.URL(), upTo)
			memRows, memSeries, memMs := replay(t, inMemory(cfg), "", upTo)
			if rows != memRows || series != memSeries {
				t.Fatalf("on Redis, %s differs from memory up to %v:\n%s", name, upTo, firstDifference(rows, memRows))
			}
			oneAtATime := *cfg
			oneAtATime.NoLookahead = true
			slowRows, _, _ := replay(t, &oneAtATime, srv.URL(), upTo)
			if slowRows != rows {
				t.Fatalf("%s: the lookahead changed a decision:\n%s", name, firstDifference(rows, slowRows))
			}
			for i, m := range ms {
				if m.StoreErrors != memMs[i].StoreErrors { // an outage of the scenario's makes some, alike
					t.Errorf("%s: lane %s had %d store errors, in memory %d", name, m.Lane, m.StoreErrors, memMs[i].StoreErrors)
				}
			}
			if n := strings.Count(rows, "\n"); n < 10 {
				t.Errorf("%s: only %d rows compared", name, n)
			}
		})
	}
	if keys, _ := srv.Client().DBSize(t.Context()).Result(); keys != 0 {
		t.Errorf("%d keys left on the server after the runs", keys)
	}
}

// withHandInputs gives a scenario whose clients send by hand what a student would
// send in its lesson: 100 requests at 0.999 s for the first key and one at 1.000 s,
// then ten for the next key at 1.5 s (the same for memory and Redis).
func withHandInputs(cfg *sim.Config) *sim.Config {
	for i, cl := range cfg.Clients {
		if _, ok := cl.Pattern.(sim.Hand); ok {
			with := *cfg
			with.Inputs = append(append([]sim.Input(nil), cfg.Inputs...),
				sim.Input{At: 999 * time.Millisecond, Kind: sim.InputSend, Client: i, Count: 100, Cost: 1},
				sim.Input{At: time.Second, Kind: sim.InputSend, Client: i, Count: 1, Cost: 1},
				sim.Input{At: 1500 * time.Millisecond, Kind: sim.InputSend, Client: i, Key: 1 % len(cl.Keys), Count: 10, Cost: 1})
			return &with
		}
	}
	return cfg
}

// firstDifference shows the first line where two CSVs differ.
func firstDifference(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < min(len(la), len(lb)); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("one has %d lines, the other %d", len(la), len(lb))
}

// The lessons hold on a real Redis: skewed clocks over-grant with the timestamp fix
// off and not with it on; 64 read-compute-write deciders over-grant while the Lua
// script holds at the 40 the policy allows.
func TestLessonsHoldOnRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: seconds of three lessons on Redis, a round trip at a time; the full run has them (bench's TestOverGrant races multi on Redis under -short)")
	}
	srv := redistest.Start(t)
	_, _, skew := replay(t, scenarioOnRedis(t, "clock-skew", "token-bucket (fix off)", "token-bucket (fix on)"), srv.URL(), 20*time.Second)
	if skew[0].OverGrant < 1 || skew[1].OverGrant > 0.005 {
		t.Errorf("clock skew on Redis: over-grant %.1f%% with the fix off (want over 100%%), %.2f%% with it on (want the clock's lead, under 0.5%%)", 100*skew[0].OverGrant, 100*skew[1].OverGrant)
	}
	_, _, race := replay(t, scenarioOnRedis(t, "non-atomic-race", "token-bucket (atomic)", "token-bucket (multi)"), srv.URL(), 3*time.Second)
	if race[0].Accepted > 40 || race[1].Accepted < 400 {
		t.Errorf("64 deciders on Redis: Lua accepted %d (at most 40), multi %d (want hundreds)", race[0].Accepted, race[1].Accepted)
	}
	_, _, watch := replay(t, scenarioOnRedis(t, "non-atomic-race", "token-bucket (watch)"), srv.URL(), 300*time.Millisecond)
	if watch[0].Accepted > 13 || watch[0].Conflicts == 0 {
		t.Errorf("WATCH on Redis over 0.3 s: accepted %d (at most 10 + 3), conflicts %d (want some)", watch[0].Accepted, watch[0].Conflicts)
	}
}

// faultScenario is a steady client against two token-bucket lanes on Redis, one
// failing closed and one open.
const faultScenario = `[[scenario]]
name = "faults"
duration = "6s"
[scenario.policy]
limit = 100
[[scenario.lane]]
name = "closed"
algorithm = "token-bucket"
backend = "redis"
on_error = "closed"
[[scenario.lane]]
name = "open"
algorithm = "token-bucket"
backend = "redis"
on_error = "open"
[[scenario.client]]
name = "c"
pattern = "constant"
rate = 50
`

func faultConfig(t *testing.T) *sim.Config {
	t.Helper()
	c, err := scenarios.Parse(scenarios.Source{Name: "faults.toml"}, []byte(faultScenario))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := c.Compile("faults", scenarios.Overrides{})
	return cfg
}

// The server is killed mid-run: decisions follow each lane's on_error and are
// counted and shown; when a server is back on the port, the lanes recover.
func TestRedisKilledMidRun(t *testing.T) {
	srv := redistest.Start(t)
	r, err := Start(faultConfig(t), Options{RedisURL: srv.URL(), MustReach: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows, series strings.Builder
	rw, _ := present.NewRequestWriter(&rows, r.Config)
	r.OnRows(rw.Write)
	sw, _ := present.NewSeriesWriter(&series, r.Config)
	r.OnSeries(sw.Write)
	r.AdvanceTo(2 * time.Second)
	srv.Stop()
	r.AdvanceTo(4 * time.Second) // 100 decisions a lane with no server
	down := r.Metrics()
	if down[0].StoreErrors < 90 || down[1].StoreErrors < 90 || !r.Lanes[0].Unavailable() {
		t.Fatalf("with Redis down: store errors %d and %d, unavailable %v", down[0].StoreErrors, down[1].StoreErrors, r.Lanes[0].Unavailable())
	}
	if down[0].Accepted >= down[1].Accepted {
		t.Errorf("closed accepted %d, open %d: failing open should accept what failing closed denies", down[0].Accepted, down[1].Accepted)
	}
	if v := present.Verdict(r.Config, down[0]); !strings.Contains(v, "decisions made without Redis (on_error)") {
		t.Errorf("the verdict does not show the failures: %s", v)
	}
	srv.Restart()
	r.AdvanceTo(6 * time.Second)
	up := r.Metrics()
	if up[0].StoreErrors > down[0].StoreErrors+5 || r.Lanes[0].Unavailable() || up[0].Accepted-down[0].Accepted < 90 {
		t.Errorf("after restart: store errors %d → %d, unavailable %v, accepted %d → %d; want recovered", down[0].StoreErrors, up[0].StoreErrors, r.Lanes[0].Unavailable(), down[0].Accepted, up[0].Accepted)
	}
	// the CSVs show them: a row store_error per decision of on_error (allowed
	// as the lane's on_error says), the series' store_errors add up
	rw.Flush()
	sw.Flush()
	inRows := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(rows.String()), "\n")[1:] {
		if cells := strings.Split(line, ","); cells[16] == "store_error" {
			inRows[cells[1]+" allowed="+cells[10]]++
		}
	}
	inSeries := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(series.String()), "\n")[1:] {
		cells := strings.Split(line, ",")
		n, _ := strconv.ParseInt(cells[9], 10, 64)
		inSeries[cells[1]] += n
	}
	if inRows["closed allowed=false"] != up[0].StoreErrors || inRows["open allowed=true"] != up[1].StoreErrors || len(inRows) != 2 {
		t.Errorf("store_error rows %v; want %d closed and denied, %d open and allowed", inRows, up[0].StoreErrors, up[1].StoreErrors)
	}
	if inSeries["closed"] != up[0].StoreErrors || inSeries["open"] != up[1].StoreErrors {
		t.Errorf("the series' store_errors add up to %v; want %d and %d", inSeries, up[0].StoreErrors, up[1].StoreErrors)
	}
}

// flushScenario: every algorithm with a Redis port, a multi-limit lane (one
// limit per key, one for all) and a sharded one, spent by a burst, then flushed:
// the burst after the flush finds every key new.
const flushScenario = `[[scenario]]
name = "flush"
duration = "3s"
[scenario.policy]
limit = 5
burst = 5
[[scenario.lane]]
algorithm = "fixed-window"
[[scenario.lane]]
algorithm = "sliding-log"
[[scenario.lane]]
algorithm = "sliding-counter"
[[scenario.lane]]
algorithm = "leaky-bucket"
[[scenario.lane]]
algorithm = "token-bucket"
[[scenario.lane]]
algorithm = "gcra"
[[scenario.lane]]
name = "limits"
combine = "all-or-nothing"
[[scenario.lane.limits]]
name = "mine"
algorithm = "token-bucket"
[[scenario.lane.limits]]
name = "all"
algorithm = "gcra"
key = "global"
limit = 20
[[scenario.lane]]
name = "shards"
algorithm = "token-bucket"
shards = 5
[[scenario.client]]
name = "c"
keys = 3
pattern = "bursts"
bursts = [{ at = "100ms", count = 30 }, { at = "1200ms", count = 30 }, { at = "2300ms", count = 30 }, { at = "2500ms", count = 30 }]
[[scenario.change]]
at = "1100ms"
store = "down"
[[scenario.change]]
at = "1300ms"
store = "up"
[[scenario.change]]
at = "2400ms"
store = "flushed"
`

// A store staged down, up and flushed decides on Redis as in memory: the flush
// deletes the lane's keys (SCAN on its own prefix, UNLINK) and nothing else —
// another run's keys and the user's own stay.
func TestStagedOutageAndFlushOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	ctx := t.Context()
	srv.Client().Set(ctx, "user:1", "mine", 0)
	srv.Client().HSet(ctx, "{ratelab:000000000000:0.0}:c-0", "c", "1")
	c, err := scenarios.Parse(scenarios.Source{Name: "flush.toml"}, []byte(flushScenario))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("flush", scenarios.Overrides{Redis: true})
	if err != nil {
		t.Fatal(err)
	}
	rows, series, ms := replay(t, cfg, srv.URL(), cfg.Duration)
	memRows, memSeries, memMs := replay(t, inMemory(cfg), "", cfg.Duration)
	if rows != memRows || series != memSeries {
		t.Fatalf("on Redis the staged outage and flush differ from memory:\n%s", firstDifference(rows, memRows))
	}
	for i, m := range ms {
		if m.StoreErrors != memMs[i].StoreErrors || m.StoreErrors == 0 {
			t.Errorf("lane %s: %d store errors on Redis, %d in memory; want the outage's, alike", m.Lane, m.StoreErrors, memMs[i].StoreErrors)
		}
	}
	// 5 a key at 0.1 s, none in the outage, 5 at 2.3 s, and 5 again at 2.5 s:
	// the flush at 2.4 s made every key new (else a bucket has refilled one
	// token, a window has no room)
	for _, m := range ms[:6] {
		if m.Accepted != 3*(5+0+5+5) {
			t.Errorf("lane %s accepted %d, want 45: the burst after the flush finds every key new", m.Lane, m.Accepted)
		}
	}
	if v, _ := srv.Client().Get(ctx, "user:1").Result(); v != "mine" {
		t.Errorf("a key outside the run's prefix was touched: user:1 = %q", v)
	}
	if n, _ := srv.Client().Exists(ctx, "{ratelab:000000000000:0.0}:c-0").Result(); n != 1 {
		t.Error("another run's key was deleted by the flush")
	}
}

// SCRIPT FLUSH mid-run: the scripts are loaded again and no decision fails or
// changes.
func TestScriptFlushMidRun(t *testing.T) {
	srv := redistest.Start(t)
	cfg := scenarioOnRedis(t, "thundering-herd")
	want, _, _ := replay(t, cfg, srv.URL(), cfg.Duration)
	r, err := Start(cfg, Options{RedisURL: srv.URL(), MustReach: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows bytes.Buffer
	w, _ := present.NewRequestWriter(&rows, cfg)
	r.OnRows(w.Write)
	for at := time.Second; at <= cfg.Duration; at += time.Second {
		srv.Client().ScriptFlush(t.Context())
		r.AdvanceTo(at)
	}
	w.Flush()
	for _, m := range r.Metrics() {
		if m.StoreErrors != 0 {
			t.Errorf("lane %s: %d failed decisions after SCRIPT FLUSH", m.Lane, m.StoreErrors)
		}
	}
	if got := strings.ReplaceAll(rows.String(), ",redis,", ",memory,"); got != want {
		t.Errorf("SCRIPT FLUSH changed the run:\n%s", firstDifference(got, want))
	}
}

// A three-master Redis Cluster: the lanes spread over the masters by their hash
// tags, and decide as in memory; the claims of the lessons about shards and
// several limits hold there, and a sharded lane's keys spread over the masters.
func TestClusterDecidesAsInMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("a cluster takes seconds to form")
	}
	cl := redistest.StartCluster(t)
	for _, name := range []string{"boundary-burst", "thundering-herd", "clock-skew", "llm-cost", "trace-replay", "hot-key-shards", "multi-limit"} {
		cfg := scenarioOnRedis(t, name)
		rows, series, _, claims := replayJudged(t, cfg, cl.URL(), cfg.Duration)
		memRows, memSeries, _ := replay(t, inMemory(cfg), "", cfg.Duration)
		if rows != memRows || series != memSeries {
			t.Errorf("%s on the cluster differs from memory:\n%s", name, firstDifference(rows, memRows))
		}
		if name == "hot-key-shards" || name == "multi-limit" {
			for _, res := range claims {
				if !res.Holds {
					t.Errorf("on the cluster, claim %s does not hold: %s", res.ID, present.ClaimLine(cfg, res))
				}
			}
		}
	}
	// a flush deletes the lane's keys on every master (the multi-limit lane of
	// flushScenario meets a per-key and a global key in one script: not on a cluster)
	c, err := scenarios.Parse(scenarios.Source{Name: "flush.toml"}, []byte(flushScenario))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("flush", scenarios.Overrides{Redis: true})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Lanes = slices.DeleteFunc(cfg.Lanes, func(l sim.LaneConfig) bool { return l.MultiLimit() })
	rows, _, _ := replay(t, cfg, cl.URL(), cfg.Duration)
	if memRows, _, _ := replay(t, inMemory(cfg), "", cfg.Duration); rows != memRows {
		t.Errorf("a staged outage and flush on the cluster differ from memory:\n%s", firstDifference(rows, memRows))
	}
	shardsSpread(t, cl)
}

// shardsSpread: a lane of 8 shards on the cluster keeps its keys on more than one
// master (the shard is in the hash tag), where one key lives on one.
func shardsSpread(t *testing.T, cl *redistest.Cluster) {
	cfg := scenarioOnRedis(t, "hot-key-shards", "8 shards (random)")
	r, err := Start(cfg, Options{RedisURL: cl.URL(), MustReach: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.AdvanceTo(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	holding := 0
	for _, n := range cl.Nodes {
		keys, err := n.Client().Keys(t.Context(), "{"+r.redis.store.Prefix+":*").Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) > 0 {
			holding++
		}
	}
	if holding < 2 {
		t.Errorf("the 8 shards' keys are on %d master(s) of 3", holding)
	}
}

// Every claim of every shipped lesson holds on Redis too (the lanes a round trip
// away, as --redis runs them): the whole of each scenario.
func TestEveryClaimHoldsOnRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the whole of every scenario on Redis takes minutes; the full run has it")
	}
	srv := redistest.Start(t)
	for _, name := range catalogue(t).Names() {
		t.Run(name, func(t *testing.T) {
			cfg := scenarioOnRedis(t, name)
			r, err := Start(cfg, Options{RedisURL: srv.URL(), MustReach: true})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			upTo := cfg.Duration
			if name == "sandbox" {
				upTo = 10 * time.Second // nothing happens until someone sends: no need for ten minutes of it
			}
			if err := r.AdvanceTo(upTo); err != nil {
				t.Fatal(err)
			}
			for i, l := range r.Lanes {
				if m := l.Metrics(); m.StoreErrors > 0 && !stagesAnOutage(cfg) {
					t.Errorf("on Redis, lane %s made %d decisions without Redis (store errors): the run is not the one in memory", cfg.Lanes[i].Name, m.StoreErrors)
				}
			}
			for _, res := range r.Claims() {
				if !res.Holds {
					t.Errorf("on Redis, claim %s does not hold: %s", res.ID, present.ClaimLine(cfg, res))
				}
			}
		})
	}
}

// stagesAnOutage says the scenario takes its store down (a store = "down"
// change), so its lanes make store errors by design, on Redis as in memory
// (TestEveryScenarioOnRedisDecidesAsInMemory compares them).
func stagesAnOutage(cfg *sim.Config) bool {
	return slices.ContainsFunc(cfg.Inputs, func(in sim.Input) bool { return in.Kind == sim.InputStore && in.Store == sim.StoreDown })
}
