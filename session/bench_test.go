package session

import (
	"bytes"
	"encoding/csv"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"ratelab/algorithms/redislua"
	"ratelab/internal/redistest"
	"ratelab/scenarios"
)

// replayScenario offers 20,000 requests a second over 1,000 keys (10 per second per
// key, burst 20) for 5 s, to every algorithm with a Redis port.
const replayScenario = `[[scenario]]
name = "replay"
duration = "5s"
tick = "100ms"
[scenario.policy]
limit = 10
burst = 20
[[scenario.client]]
name = "users"
pattern = "poisson"
rate = 20000
keys = 1000
`

// ceiling measures what this Redis does with the token-bucket script alone:
// redis-benchmark sending EVALSHA from 50 clients, pipelined 16 deep.
func ceiling(b *testing.B, srv *redistest.Server) float64 {
	sha, err := srv.Client().ScriptLoad(b.Context(), redislua.Script("token_bucket")).Result()
	if err != nil {
		b.Fatal(err)
	}
	out, err := exec.Command("redis-benchmark", "-p", strconv.Itoa(srv.Port), "-n", "300000", "-c", "50", "-P", "16", "-r", "10000", "--csv",
		"EVALSHA", sha, "1", "{ceiling}:k:__rand_int__", "1000", "1", "10", "1", "1000000", "0", "1000001", "1", "3600000", "allow").Output()
	if err != nil {
		b.Fatalf("redis-benchmark: %v", err)
	}
	rows, _ := csv.NewReader(bytes.NewReader(out)).ReadAll()
	rps, err := strconv.ParseFloat(rows[len(rows)-1][1], 64)
	if err != nil {
		b.Fatalf("redis-benchmark said %q", out)
	}
	return rps
}

// BenchmarkRedisReplay replays 100,000 offered requests through the six Redis
// lanes (lookahead batches, concurrent lanes) and reports decisions per second
// against the ceiling redis-benchmark measures on the same server in the same run.
func BenchmarkRedisReplay(b *testing.B) {
	srv := redistest.Start(b)
	top := ceiling(b, srv)
	c, err := scenarios.Parse(scenarios.Source{Name: "replay.toml"}, []byte(replayScenario))
	if err != nil {
		b.Fatal(err)
	}
	cfg, _ := c.Compile("replay", scenarios.Overrides{Redis: true, Lanes: []string{"fixed-window", "sliding-log", "sliding-counter", "leaky-bucket", "token-bucket", "gcra"}})
	var decisions int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Start(cfg, Options{RedisURL: srv.URL(), MustReach: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := r.AdvanceTo(cfg.Duration); err != nil {
			b.Fatal(err)
		}
		decisions += r.Decisions()
		b.StopTimer()
		r.Close()
		b.StartTimer()
	}
	rate := float64(decisions) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "decisions/s")
	b.ReportMetric(top, "ceiling-evalsha/s")
	b.ReportMetric(100*rate/top, "%-of-ceiling")
	if !strings.Contains(srv.Addr(), "127.0.0.1") {
		b.Fatal("benchmarks talk to loopback only")
	}
}
