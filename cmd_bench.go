package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/algorithms/redislua"
	"ratelab/internal/bench"
	"ratelab/session"
)

const benchUsage = `
Usage: ratelab bench [--redis URL] [--duration D] [--max-decisions N]
                     [--strategies atomic,multi,watch] [--concurrency 1,16,64,256]
                     [--shards 1,4,16 [--shard-picks random,two-choices]]
                     [--csv PATH|-] [--allow-remote]

A live benchmark on a real Redis, on the wall clock with real goroutines: the atomic
Lua script against the two non-atomic ways (read-compute-write, WATCH/MULTI/EXEC),
for one hot key and a key per goroutine, at each concurrency; then the over-grant
test: 64 goroutines on one bucket of burst 10 at 10/s for 3 s, where at most 40 may
pass. Its keys carry a prefix of their own and are removed at the end, also when
SIGINT, SIGTERM or SIGHUP stops it. It refuses a Redis that is not on this machine
unless --allow-remote is given: every address it would contact is checked before
it connects (the URL's host, each &addr=, and for a cluster every node the
cluster reports), and the report names them.

With --shards it measures one hot global limit instead: on one key, or split into
shards (the shard in the hash tag) picked at random or by two choices, at each
concurrency; decisions per second, script calls per decision, and each node's
share of the script calls (INFO commandstats). Give a Redis Cluster URL
(?cluster=true&addr=…) to see the shards spread over its masters, and one server
as the control.`

func runBench(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("bench", benchUsage, stderr)
	redisURL := fs.String("redis", "", "the Redis to benchmark, at `URL` (default REDIS_URL, else redis://127.0.0.1:6379)")
	duration := fs.Duration("duration", 500*time.Millisecond, "how long each cell runs, a `DURATION`")
	maxDecisions := fs.Int64("max-decisions", 1_000_000, "stop a cell after `N` decisions")
	strategies := fs.String("strategies", strings.Join(algorithms.Strategies, ","), "the `STRATEGIES` to compare, comma-separated: "+strings.Join(algorithms.Strategies, ", "))
	concurrency := fs.String("concurrency", "1,16,64,256", "the numbers of goroutines, `N,N,…`")
	csvPath := fs.String("csv", "", "also write the results as CSV to `PATH` (- for standard output)")
	allowRemote := fs.Bool("allow-remote", false, "allow a Redis that is not on a loopback address")
	shardsFlag := fs.String("shards", "", "measure one hot limit split into these numbers of shards instead, `N,N,…` (1 is one key), e.g. 1,4,16")
	picksFlag := fs.String("shard-picks", strings.Join(algorithms.ShardPicks, ","), "with --shards: how a request's shard is chosen, `PICKS`, comma-separated: "+strings.Join(algorithms.ShardPicks, ", "))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o := bench.Options{Duration: *duration, MaxDecisions: *maxDecisions, OverGrantFor: 3 * time.Second}
	for _, s := range strings.Split(*strategies, ",") {
		st, ok := algorithms.ParseStrategy(strings.TrimSpace(s))
		if !ok {
			return usagef("bench: --strategies: unknown strategy %q; use %s", s, strings.Join(algorithms.Strategies, ", "))
		}
		o.Strategies = append(o.Strategies, st)
	}
	for _, c := range strings.Split(*concurrency, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 || n > 4096 {
			return usagef("bench: --concurrency: %q is not a number of goroutines from 1 to 4096", c)
		}
		o.Concurrency = append(o.Concurrency, n)
	}
	var so bench.ShardOptions
	if *shardsFlag != "" {
		for _, v := range strings.Split(*shardsFlag, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 1 || n > 1024 {
				return usagef("bench: --shards: %q is not a number of shards from 1 to 1024", v)
			}
			so.Shards = append(so.Shards, n)
		}
		for _, v := range strings.Split(*picksFlag, ",") {
			pick, ok := algorithms.ParseShardPick(strings.TrimSpace(v))
			if !ok {
				return usagef("bench: --shard-picks: unknown pick %q; use %s", v, strings.Join(algorithms.ShardPicks, ", "))
			}
			so.Picks = append(so.Picks, pick)
		}
		so.Concurrency, so.Duration, so.MaxDecisions = o.Concurrency, *duration, *maxDecisions
	}
	switch {
	case *duration <= 0 || *duration > time.Minute:
		return usagef("bench: --duration must be from 1ms to 1m (got %s)", *duration)
	case *maxDecisions < 1:
		return usagef("bench: --max-decisions must be >= 1 (got %d)", *maxDecisions)
	}
	if err := notEmpty(fs, "redis", "csv", "strategies", "concurrency"); err != nil {
		return err
	}
	addr := session.RedisURL(*redisURL)
	if addr == "" {
		addr = "redis://127.0.0.1:6379"
	}
	seeds, cluster, err := redisSeeds(addr)
	if err != nil {
		return err
	}
	if !*allowRemote {
		if err := loopbackOnly(seeds, "a seed address of the --redis URL"); err != nil {
			return err
		}
	}
	ctx, stop := interrupts()
	defer stop()
	startWork() // every call to Redis answers to ctx
	var out *output
	if *csvPath != "" {
		if out, err = openOutput("csv", *csvPath, stdout); err != nil {
			return err
		}
		defer out.Abort()
	}
	nodes := seeds
	if cluster {
		// the cluster's own view of its nodes, asked of a seed: every node the
		// load will go to, checked before any is contacted
		if nodes, err = redislua.ClusterNodes(ctx, addr); err != nil {
			return fmt.Errorf("cannot read the cluster's nodes: %v", err)
		}
		if !*allowRemote {
			if err := loopbackOnly(nodes, "a node the cluster reports in CLUSTER SLOTS"); err != nil {
				return err
			}
		}
	}
	store, err := redislua.Open(ctx, addr)
	if err == redislua.ErrURL {
		return usageError{fmt.Errorf("--redis: %w", err)}
	}
	if err != nil {
		return err
	}
	defer func() {
		if cerr := store.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	report := stdout
	if *csvPath == "-" {
		report = stderr
	}
	where := "Redis at " + nodes[0]
	if cluster {
		where = "the Redis Cluster at " + strings.Join(nodes, ", ")
	}
	fmt.Fprintf(report, "ratelab bench on %s, %s a cell\n\n", where, *duration)
	o.Progress = func(s string) { fmt.Fprintf(stderr, "  %s…\n", s) }
	if so.Shards != nil {
		so.Progress = o.Progress
		cells, err := bench.RunShards(ctx, store, so)
		if cause := context.Cause(ctx); cause != nil {
			return fmt.Errorf("%v; the benchmark stopped and wrote nothing", cause)
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(report)
		if err := bench.WriteShardTable(report, cells); err != nil {
			return err
		}
		if out != nil {
			if err := bench.WriteShardCSV(out.w, cells); err != nil {
				return err
			}
			return out.Commit()
		}
		return nil
	}
	cells, over, err := bench.Run(ctx, store, o)
	if cause := context.Cause(ctx); cause != nil {
		return fmt.Errorf("%v; the benchmark stopped and wrote nothing", cause)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(report)
	if err := bench.WriteTable(report, cells, over, o.OverGrantFor); err != nil {
		return err
	}
	if out != nil {
		if err := bench.WriteCSV(out.w, cells, over); err != nil {
			return err
		}
		return out.Commit()
	}
	return nil
}

// redisSeeds are the addresses a Redis URL makes a client contact first: its
// host and port, and for a cluster (?cluster=true) every &addr= too.
func redisSeeds(raw string) (seeds []string, cluster bool, err error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, false, usageError{fmt.Errorf("--redis: %w", redislua.ErrURL)}
	}
	seeds = []string{u.Host}
	if u.Query().Get("cluster") == "true" {
		cluster = true
		seeds = append(seeds, u.Query()["addr"]...)
	}
	return seeds, cluster, nil
}

// loopbackOnly refuses any address whose host is not a loopback address (every
// address a name resolves to is checked): the benchmark sends tens of thousands
// of commands a second. what says where the address came from.
func loopbackOnly(addrs []string, what string) error {
	for _, addr := range addrs {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		ips, err := net.LookupIP(host)
		if err != nil {
			return usagef("bench: cannot resolve %s (%s): %v", host, what, err)
		}
		for _, ip := range ips {
			if !ip.IsLoopback() {
				return usagef("bench: %s (%s) is not on this machine (%s); the benchmark sends a heavy load, so give --allow-remote to run it against a remote Redis", addr, what, ip)
			}
		}
	}
	return nil
}
