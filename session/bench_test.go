package session

import (
	"bytes"
	"encoding/csv"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

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
	redistest.Need(b, "redis-benchmark")
	sha, err := srv.Client().ScriptLoad(b.Context(), redislua.Script("token_bucket")).Result()
	if err != nil {
		b.Fatal(err)
	}
	out, err := exec.Command("redis-benchmark", "-p", strconv.Itoa(srv.Port), "-n", "300000", "-c", "50", "-P", "16", "-r", "10000", "--csv",
		"EVALSHA", sha, "1", "{ceiling}:k:__rand_int__", "1000", "1", "10", "1", "1000000", "0", "1000001", "1", "3600000", "allow").Output()
	if err != nil {
		b.Fatalf("redis-benchmark: %v", err)
	}
	rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil || len(rows) == 0 || len(rows[len(rows)-1]) < 2 {
		b.Fatalf("redis-benchmark said %q", out)
	}
	rps, err := strconv.ParseFloat(rows[len(rows)-1][1], 64)
	if err != nil {
		b.Fatalf("redis-benchmark said %q", out)
	}
	return rps
}

// BenchmarkRedisReplay replays 100,000 offered requests through the six Redis
// lanes (lookahead batches, concurrent lanes) and reports its decisions per
// second against two ceilings measured on the same server in the same run:
// the same-mix ceiling (samemix_test.go: exactly the calls a replay makes, sent
// again on as many connections as fast as the server takes them) and, for
// comparison with earlier figures, redis-benchmark's token-bucket-only
// EVALSHA. Each iteration measures three rounds, a same-mix ceiling then a
// replay, and reports the medians: %-of-same-mix is the median of the rounds'
// ratios.
func BenchmarkRedisReplay(b *testing.B) {
	srv := redistest.Start(b)
	top := ceiling(b, srv)
	c, err := scenarios.Parse(scenarios.Source{Name: "replay.toml"}, []byte(replayScenario))
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := c.Compile("replay", scenarios.Overrides{Redis: true, Lanes: []string{"fixed-window", "sliding-log", "sliding-counter", "leaky-bucket", "token-bucket", "gcra"}})
	if err != nil {
		b.Fatal(err)
	}
	replay := func(url string) (decisions int64, took time.Duration) {
		start := time.Now()
		r, err := Start(cfg, Options{RedisURL: url, MustReach: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := r.AdvanceTo(cfg.Duration); err != nil {
			b.Fatal(err)
		}
		took = time.Since(start)
		decisions = r.Decisions()
		r.Close()
		return decisions, took
	}
	// the calls a replay makes, recorded once through a tap
	t := startTap(b, srv.Addr())
	recorded, _ := replay(t.URL())
	streams, calls, keys := t.scripts(b)
	// every decision of these lanes is one call; a few more are each lane's
	// first batch sent again after NOSCRIPT, and the watched key's level read
	// at every tick
	if n := int64(sum(calls)); n < recorded || n > recorded+recorded/100 {
		b.Fatalf("the tap saw %d script calls for %d decisions", n, recorded)
	}
	var rates, ceilings, ratios []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for range 3 {
			same := sameMix(b, srv.Addr(), streams, calls)
			if err := srv.Client().Del(b.Context(), keys...).Err(); err != nil { // the replay starts on no state, as the ceiling did
				b.Fatal(err)
			}
			n, took := replay(srv.URL())
			rate := float64(n) / took.Seconds()
			rates, ceilings, ratios = append(rates, rate), append(ceilings, same), append(ratios, rate/same)
		}
	}
	b.ReportMetric(median(rates), "decisions/s")
	b.ReportMetric(median(ceilings), "same-mix-calls/s")
	b.ReportMetric(100*median(ratios), "%-of-same-mix")
	b.ReportMetric(top, "tb-only-evalsha/s")
	b.ReportMetric(100*median(rates)/top, "%-of-tb-only")
}

func sum(xs []int) (n int) {
	for _, x := range xs {
		n += x
	}
	return n
}

// median is the middle of xs (the mean of the two middle ones for an even count).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
