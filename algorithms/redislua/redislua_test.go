package redislua

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/redistest"
)

// ported are the algorithms with a Redis port: the registry's, each checked
// against its limiter in memory below.
var ported = algorithms.Where(func(a algorithms.Info) bool { return a.Redis != nil })

// The registry ports the six limiters it should, and no more: a new port is
// checked by the differential tests through ported, and an algorithm that loses
// its port fails here.
func TestPortedAlgorithms(t *testing.T) {
	want := []algorithms.Name{"fixed-window", "sliding-log", "sliding-counter", "leaky-bucket", "token-bucket", "gcra", "envoy-global", "spring", "traefik-redis"}
	if !slices.Equal(ported, want) {
		t.Errorf("algorithms with a Redis port: %v, want %v", ported, want)
	}
	for _, a := range algorithms.All() {
		if a.Redis == nil {
			continue
		}
		if _, err := scriptFiles.ReadFile("scripts/" + a.Redis.Script + ".lua"); err != nil {
			t.Errorf("%s: its port names script %q, which scripts/ does not hold", a.Name, a.Redis.Script)
		}
	}
}

func open(t testing.TB, url string) *Store {
	t.Helper()
	s, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// options are per-algorithm options that exercise the knobs.
func options(name algorithms.Name, r *rand.Rand, p algorithms.Policy) algorithms.Options {
	o := algorithms.Options{}
	switch name {
	case "fixed-window":
		o.RandomStart = r.IntN(2) == 0
		o.Rollover = r.Int64N(p.Limit + 1)
	case "leaky-bucket":
		o.Mode = algorithms.LeakyMode(r.IntN(2))
	case "token-bucket":
		o.MonotonicTimestamp = r.IntN(2) == 0
		o.MaxReserved = r.Int64N(3) * p.Burst / 2
	case "envoy-global":
		o.ShadowMode = r.IntN(2) == 0
	}
	return o
}

// trace is a random sequence of requests: microsecond times that mostly move
// forward, sometimes stay, sometimes step back (skewed clocks), over three keys.
func trace(r *rand.Rand, p algorithms.Policy, n int) []algorithms.Request {
	p = p.WithDefaults()
	interval := p.Period / time.Duration(p.Limit)
	at := time.Duration(r.Int64N(int64(time.Second)))
	out := make([]algorithms.Request, n)
	for i := range out {
		switch r.IntN(10) {
		case 0, 1, 2: // a burst: same instant
		case 3:
			at -= time.Duration(r.Int64N(int64(interval))) // a clock behind
		default:
			at += time.Duration(r.ExpFloat64() * 2 * float64(interval))
		}
		at = at.Truncate(time.Microsecond)
		out[i] = algorithms.Request{Key: fmt.Sprintf("k%d", r.IntN(3)), Now: at, Cost: 1 + r.Int64N(min(3, p.Burst, p.Limit))}
	}
	return out
}

// differ runs the same requests through the in-memory limiter and the Redis one
// (one call at a time, or in pipelines of random sizes) and reports the first
// decision that differs: allowed, retry-after, reset-after, delay, limit, or
// remaining by more than 1e-6; after each batch, the levels must agree too.
func differ(mem algorithms.Limiter, red *Limiter, reqs []algorithms.Request, r *rand.Rand, batched bool) error {
	got := make([]algorithms.Decision, len(reqs))
	for i := 0; i < len(reqs); {
		n := 1
		if batched {
			n = min(len(reqs)-i, 1+r.IntN(40))
		}
		red.AllowBatch(reqs[i:i+n], got[i:i+n])
		for j := i; j < i+n; j++ {
			q := reqs[j]
			want := mem.Allow(q.Key, q.Now, q.Cost)
			g := got[j]
			if g.Allowed != want.Allowed || g.RetryAfter != want.RetryAfter || g.ResetAfter != want.ResetAfter ||
				g.Delay != want.Delay || g.Limit != want.Limit || g.Shadow != want.Shadow || math.Abs(g.Remaining-want.Remaining) > 1e-6 {
				return fmt.Errorf("request %d (%s at %v, cost %d): redis %+v, memory %+v", j, q.Key, q.Now, q.Cost, g, want)
			}
		}
		last := reqs[i+n-1]
		if a, b := red.Level(last.Key, last.Now), mem.Level(last.Key, last.Now); math.Abs(a-b) > 1e-6 {
			return fmt.Errorf("level of %s at %v after request %d: redis %g, memory %g", last.Key, last.Now, i+n-1, a, b)
		}
		i += n
	}
	if red.Failures() != 0 {
		return fmt.Errorf("%d decisions failed", red.Failures())
	}
	return nil
}

func differential(t *testing.T, s *Store, seeds int) {
	for _, name := range ported {
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			r := rand.New(rand.NewPCG(seed, 7))
			limit := 1 + r.Int64N(20)
			periods := []time.Duration{100 * time.Millisecond, time.Second, 1500 * time.Millisecond, time.Minute}
			p := algorithms.Policy{Limit: limit, Period: periods[r.IntN(len(periods))], Burst: 1 + r.Int64N(2*limit), RetryJitter: float64(r.IntN(2)) * 0.5}
			if name == "envoy-global" { // its periods are the service's units
				p.Period = []time.Duration{time.Second, time.Minute}[r.IntN(2)]
			}
			opts := options(name, r, p)
			mem, err := algorithms.New(name, p, opts)
			if err != nil {
				t.Fatal(err)
			}
			red, err := NewLimiter(s, Config{Lane: fmt.Sprintf("%s-%d", name, seed), Algorithm: name, Policy: p, Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			if err := differ(mem, red, trace(r, p, 120), r, seed%2 == 0); err != nil {
				t.Fatalf("%s, seed %d, %s, %+v: %v", name, seed, p, opts, err)
			}
		}
	}
}

// TestScriptsDecideAsTheGoLimiters: every script makes the decisions of its Go
// limiter, on random policies, options and traces (with bursts and clocks going
// back), one call at a time and pipelined.
func TestScriptsDecideAsTheGoLimiters(t *testing.T) {
	s := open(t, redistest.Start(t).URL())
	differential(t, s, 40)
}

func TestScriptsDecideAsTheGoLimitersOnACluster(t *testing.T) {
	if testing.Short() {
		t.Skip("a three-node cluster takes a few seconds to form")
	}
	c := redistest.StartCluster(t)
	s := open(t, c.URL())
	differential(t, s, 8)
	// the lanes' keys went to more than one master: the hash tags spread lanes
	// over slots, and kept each lane's keys together
	used := 0
	for _, n := range c.Nodes {
		if size, _ := n.Client().DBSize(context.Background()).Result(); size > 0 {
			used++
		}
	}
	if used < 2 {
		t.Errorf("all lanes landed on %d node(s) of 3", used)
	}
}

// SCRIPT FLUSH mid-run: EVALSHA answers NOSCRIPT, the script is loaded again, and
// no decision fails.
func TestScriptFlushIsRecovered(t *testing.T) {
	srv := redistest.Start(t)
	s := open(t, srv.URL())
	p := algorithms.Policy{Limit: 10, Period: time.Second}
	red, _ := NewLimiter(s, Config{Lane: "l", Algorithm: "token-bucket", Policy: p, Options: algorithms.Options{MonotonicTimestamp: true}})
	mem := algorithms.NewTokenBucket(p, true, 0)
	r := rand.New(rand.NewPCG(1, 1))
	reqs := trace(r, p, 200)
	for i := 0; i < 200; i += 50 {
		if err := srv.Client().ScriptFlush(context.Background()).Err(); err != nil {
			t.Fatal(err)
		}
		if err := differ(mem, red, reqs[i:i+50], r, true); err != nil {
			t.Fatal(err)
		}
	}
}

// The server dies mid-run: decisions follow on_error and are counted, and the lane
// recovers when a server is back on the port (empty: its scripts are loaded again).
func TestServerKilledAndBack(t *testing.T) {
	srv := redistest.Start(t)
	s := open(t, srv.URL())
	p := algorithms.Policy{Limit: 1, Period: time.Hour}
	for _, open := range []bool{false, true} {
		red, _ := NewLimiter(s, Config{Lane: fmt.Sprint(open), Algorithm: "gcra", Policy: p, FailOpen: open})
		if !red.Allow("k", 0, 1).Allowed || red.Allow("k", 0, 1).Allowed {
			t.Fatal("a burst of 1 should allow one request, then deny")
		}
		srv.Stop()
		d := red.Allow("k", time.Second, 1)
		if d.Allowed != open || red.Failures() != 1 || !red.Unavailable() {
			t.Errorf("on_error open=%v with Redis down: allowed %v, %d failures, unavailable %v", open, d.Allowed, red.Failures(), red.Unavailable())
		}
		srv.Restart()
		if d := red.Allow("k", 2*time.Second, 1); !d.Allowed || red.Unavailable() || red.Failures() != 1 {
			t.Errorf("after restart (empty server): %+v, unavailable %v, %d failures; want allowed, recovered", d, red.Unavailable(), red.Failures())
		}
	}
}

// A run's keys carry its prefix; Cleanup removes them and nothing else.
func TestKeysStayUnderThePrefix(t *testing.T) {
	srv := redistest.Start(t)
	other := srv.Client()
	ctx := context.Background()
	other.Set(ctx, "someone-else", "keep", 0)
	other.Set(ctx, "{ratelab:other-run:0.0}:k", "keep", 0)
	s := open(t, srv.URL())
	for _, name := range ported {
		red, _ := NewLimiter(s, Config{Lane: string(name), Algorithm: name, Policy: algorithms.Policy{Limit: 5, Period: time.Second}})
		for i := 0; i < 10; i++ {
			red.Allow(fmt.Sprintf("user-%d", i%3), time.Duration(i)*time.Millisecond, 1)
		}
		red.Evict(0)
		if red.Keys() == 0 || red.StateBytes() == 0 {
			t.Errorf("%s: measured %d keys, %d bytes", name, red.Keys(), red.StateBytes())
		}
	}
	keys, _ := other.Keys(ctx, "*").Result()
	for _, k := range keys {
		if k != "someone-else" && !strings.HasPrefix(k, "{ratelab:") {
			t.Errorf("key %q outside any ratelab prefix", k)
		}
		if ttl, _ := other.PTTL(ctx, k).Result(); strings.HasPrefix(k, "{"+s.Prefix) && ttl <= 0 {
			t.Errorf("key %q has no expiry", k)
		}
	}
	n, err := s.Cleanup(ctx)
	if err != nil || n < 18 {
		t.Errorf("cleanup removed %d keys (%v)", n, err)
	}
	if left, _ := other.Keys(ctx, "*").Result(); len(left) != 2 {
		t.Errorf("after cleanup: %v; want only the two keys that were not ours", left)
	}
}

// The non-atomic steps on Redis: two reads before a write both see the full
// bucket (multi over-grants); with WATCH the second commit is refused.
func TestNonAtomicSteps(t *testing.T) {
	s := open(t, redistest.Start(t).URL())
	p := algorithms.Policy{Limit: 1, Period: time.Hour}
	for _, name := range []algorithms.Name{"token-bucket", "gcra"} {
		red, _ := NewLimiter(s, Config{Lane: string(name), Algorithm: name, Policy: p})
		a := red.ReadState(0, "k", 0, false)
		b := red.ReadState(1, "k", 0, false)
		if !red.DecideOn(a, "k", 0, 1).Allowed || !red.DecideOn(b, "k", 0, 1).Allowed {
			t.Errorf("%s multi: two reads of a full bucket of 1 should both allow", name)
		}
		red.WriteState(a, 0, "k")
		red.WriteState(b, 1, "k")
		if red.Allow("k", 0, 1).Allowed {
			t.Errorf("%s: the written state should be an empty bucket", name)
		}

		w1 := red.ReadState(0, "w", 0, true)
		w2 := red.ReadState(0, "w", 0, true)
		red.DecideOn(w1, "w", 0, 1)
		red.DecideOn(w2, "w", 0, 1)
		if !red.CommitState(w1, "w") || red.CommitState(w2, "w") {
			t.Errorf("%s watch: the first commit should succeed and the second be refused", name)
		}
		if red.Failures() != 0 {
			t.Errorf("%s: %d failures", name, red.Failures())
		}
	}
}

func TestOpenErrorsNeverShowThePassword(t *testing.T) {
	for _, url := range []string{"redis://user:s3cret@127.0.0.1:1", "http://user:s3cret@host", "redis://user:s3cret@[::1:bad"} {
		_, err := Open(context.Background(), url)
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: %v", url, err)
		}
	}
	if _, err := Open(context.Background(), "redis://user:s3cret@127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "cannot reach Redis at 127.0.0.1:1") || !strings.Contains(err.Error(), "start a redis-server there") {
		t.Errorf("an unreachable server: %v", err)
	}
}

// On a Cluster, a run's keys sit in a slot per lane, so one UNLINK of keys of
// several lanes is refused (CROSSSLOT); Close removes them one key per command,
// on every master, and none is left. The old cleanup sent them together and
// dropped the error: every run with two lanes or more left keys behind.
func TestCloseRemovesEveryKeyOnACluster(t *testing.T) {
	if testing.Short() {
		t.Skip("a three-node cluster takes a few seconds to form")
	}
	c := redistest.StartCluster(t)
	s, err := Open(context.Background(), c.URL())
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range ported {
		red, _ := NewLimiter(s, Config{Lane: fmt.Sprint(i), Algorithm: name, Policy: algorithms.Policy{Limit: 5, Period: time.Second}})
		for k := 0; k < 20; k++ {
			red.Allow(fmt.Sprintf("user-%d", k), time.Duration(k)*time.Millisecond, 1)
		}
	}
	if n := len(c.Keys("{" + s.Prefix + ":*")); n < 20*len(ported) {
		t.Fatalf("the lanes wrote %d keys; want at least %d", n, 20*len(ported))
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if left := c.Keys("{" + s.Prefix + ":*"); len(left) != 0 {
		t.Errorf("Close left %d keys on the cluster, such as %q", len(left), left[0])
	}
}

// When the store's context is done, a call waiting on a Redis that answers
// nothing (SIGSTOP) ends at once, and so do the calls after; Close then gives up
// on the keys within its bound and says they expire. Once Redis answers again,
// an interrupted store's Close removes its keys on a connection of its own.
func TestInterruptEndsCallsOnAFrozenRedis(t *testing.T) {
	srv := redistest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Open(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	p := algorithms.Policy{Limit: 5, Period: time.Second}
	red, _ := NewLimiter(s, Config{Lane: "l", Algorithm: "gcra", Policy: p})
	red.Allow("before", 0, 1)
	srv.Pause()
	answered := make(chan algorithms.Decision)
	go func() { answered <- red.Allow("k", time.Millisecond, 1) }()
	time.Sleep(100 * time.Millisecond)
	cancel()
	start := time.Now()
	select {
	case d := <-answered:
		if d.Allowed || red.Failures() != 1 {
			t.Errorf("the interrupted call decided %+v with %d failures; want a denial by on_error", d, red.Failures())
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("the call ended %v after the interrupt; callTimeout is %v", took, callTimeout)
		}
	case <-time.After(2 * callTimeout):
		t.Fatal("the call did not end after the interrupt")
	}
	// at once: not a call to Redis that waits for its callTimeout (a bound well
	// under it, and far over what a busy machine takes to return)
	start = time.Now()
	if d := red.Allow("k", 2*time.Millisecond, 1); d.Allowed || time.Since(start) > callTimeout/3 {
		t.Errorf("a call after the interrupt: %+v after %v; want a denial at once, not after a call (callTimeout %v)", d, time.Since(start), callTimeout)
	}
	start = time.Now()
	err = s.Close()
	if err == nil || !strings.Contains(err.Error(), "could not be removed from Redis at "+srv.Addr()) || !strings.Contains(err.Error(), "expire within 24 hours") {
		t.Errorf("Close with Redis frozen: %v", err)
	}
	if took := time.Since(start); took > cleanupTimeout+time.Second {
		t.Errorf("Close with Redis frozen took %v; cleanupTimeout is %v", took, cleanupTimeout)
	}
	srv.Resume()
	// what was written before, and the call Redis had read before it froze, are
	// left, each with its expiry as the safety net
	left := srv.Keys("{" + s.Prefix + ":*")
	if len(left) == 0 {
		t.Error("no key left while Redis was frozen; the test did not freeze it")
	}
	for _, k := range left {
		if ttl, _ := srv.Client().PTTL(context.Background(), k).Result(); ttl <= 0 || ttl > 24*time.Hour {
			t.Errorf("key %s left with expiry %v; want within 24 hours", k, ttl)
		}
	}

	// interrupted while Redis answers: Close removes the keys all the same
	ctx, cancel = context.WithCancel(context.Background())
	s, _ = Open(ctx, srv.URL())
	red, _ = NewLimiter(s, Config{Lane: "l", Algorithm: "sliding-log", Policy: p})
	red.Allow("k", 0, 1)
	cancel()
	if err := s.Close(); err != nil {
		t.Errorf("Close after an interrupt: %v", err)
	}
	if left := srv.Keys("{" + s.Prefix + ":*"); len(left) != 0 {
		t.Errorf("Close after an interrupt left %v", left)
	}
}
