package conformance

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
	"ratelab/algorithms/redislua"
	"ratelab/internal/redistest"
)

// go-redis/redis_rate v10 against its own Lua on the test's redis-server.
//
// redis_rate's script reads the clock with redis.call("TIME"). clockedRedis runs
// the library unchanged (its Go code builds the arguments and reads the reply)
// and its script as it sends it, with that one call replaced by the virtual
// instant of the request, passed as two more arguments in TIME's own form
// (seconds, microseconds). The script sets its key to expire in real seconds
// (SET … EX); the test's clock is virtual, so after each call the key's expiry is
// removed (PERSIST): a tat in the past decides as no tat at all.

// clockedRedis is redis_rate's client: the test's redis-server, with the time
// given by the test.
type clockedRedis struct {
	*redis.Client
	now    time.Time
	loaded map[string]string // the library's script's SHA → the clocked copy's, once loaded
}

// timeCall is how redis_rate's script reads the clock.
const timeCall = `redis.call("TIME")`

func (c *clockedRedis) args(args []any) []any {
	return append(append([]any(nil), args...), c.now.Unix(), c.now.Nanosecond()/1000)
}

// EvalSha runs the clocked copy of the script whose SHA is sha, or answers
// NOSCRIPT, so the library sends the script itself (Eval).
func (c *clockedRedis) EvalSha(ctx context.Context, sha string, keys []string, args ...any) *redis.Cmd {
	clocked, ok := c.loaded[sha]
	if !ok {
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(redis.ErrNoScript)
		return cmd
	}
	cmd := c.Client.EvalSha(ctx, clocked, keys, c.args(args)...)
	c.persist(ctx, keys)
	return cmd
}

// Eval loads the script with its clock replaced and runs it.
func (c *clockedRedis) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	if strings.Count(script, timeCall) != 1 {
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(fmt.Errorf("redis_rate's script no longer reads the clock once with %s; the test cannot give it the virtual time", timeCall))
		return cmd
	}
	clocked := strings.Replace(script, timeCall, "{tonumber(ARGV[#ARGV - 1]), tonumber(ARGV[#ARGV])}", 1)
	sha, err := c.Client.ScriptLoad(ctx, clocked).Result()
	if err != nil {
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(err)
		return cmd
	}
	h := sha1.Sum([]byte(script))
	c.loaded[hex.EncodeToString(h[:])] = sha
	return c.EvalSha(ctx, hex.EncodeToString(h[:]), keys, args...)
}

func (c *clockedRedis) persist(ctx context.Context, keys []string) {
	for _, k := range keys {
		c.Client.Persist(ctx, k)
	}
}

// jan2017 is the epoch redis_rate counts its float seconds from (its script's
// jan_1_2017).
const jan2017 = 1483228800

// scaledTAT converts a tat redis_rate stored (float seconds since jan2017) to
// GCRA's scaled time for credits c (µs from the virtual origin × PerMicro),
// rounded to the nearest.
func scaledTAT(stored string, c algorithms.Credits) (int64, error) {
	f, err := strconv.ParseFloat(stored, 64)
	if err != nil {
		return 0, err
	}
	since := f - float64(origin.Unix()-jan2017) // exact: the two are within a factor of 2
	return int64(math.Round(since * 1e6 * float64(c.PerMicro))), nil
}

// floatTie is how close to a tie, in µs, redis_rate's float seconds may decide
// either way: its times are about 2.8e8 s since 2017, where doubles are 60 ns
// apart, and a decision adds, subtracts and divides a few of them, plus the
// rounding of its stored tat to the nearest scaled unit on the way back.
const floatTie = 0.5

// GCRA decides as redis_rate, on Redis, but for what float seconds do:
//
//   - in lockstep (GCRA deciding on the tat redis_rate has stored, read before
//     each call): the same decisions, except within floatTie µs of a tie;
//     retry-after and reset-after within floatTie µs of GCRA's unrounded ones
//     (GCRA rounds up to the µs, redis_rate truncates to the ns); remaining
//     GCRA's rounded down, or one less when GCRA's is within floatTie µs of a
//     refill above a whole number (redis_rate truncates a float quotient: case 4
//     of issue 18 in redis_rate); 0 on every refusal (redis_rate says 0);
//     nothing stored by a refusal; and, as redis_rate has no "never", a cost
//     above the burst gets a finite retry-after where GCRA says Forever;
//   - on its own (ratelab's gcra.lua on the same server, fed the same trace): the
//     same decisions, except where redis_rate's float tat has drifted from the
//     exact one by rounding along a run of acceptances and the decision was
//     within that drift of a tie; then gcra.lua's key is set to redis_rate's tat
//     and the trace goes on.
func TestGCRADecidesAsRedisRate(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), DisableIdentity: true})
	defer client.Close()
	store, err := redislua.Open(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	clocked := &clockedRedis{Client: client, loaded: map[string]string{}}
	peer := redis_rate.NewLimiter(clocked)
	seen := tally{}
	defer seen.log(t)
	var maxDrift float64
	for seed := uint64(1); seed <= 60; seed++ {
		p, trace := peerTrace(seed, 7)
		limit := redis_rate.Limit{Rate: int(p.Limit), Burst: int(p.Burst), Period: p.Period}
		c := algorithms.CreditsOf(p, 0)
		g := algorithms.NewGCRA(p) // its Decide, on redis_rate's state
		laneName := fmt.Sprintf("gcra-%d", seed)
		lane, err := redislua.NewLimiter(store, redislua.Config{Lane: laneName, Algorithm: algorithms.GCRAName, Policy: p})
		if err != nil {
			t.Fatal(err)
		}
		prefix := fmt.Sprintf("ratelab-conformance:%d:", seed)
		for i, q := range trace {
			peerKey := "rate:" + prefix + q.Key
			stored, err := client.Get(ctx, peerKey).Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				t.Fatal(err)
			}
			had := err == nil
			state := g.Read(q.Key, q.Now)
			if had {
				if state.TAT, err = scaledTAT(stored, c); err != nil {
					t.Fatal(err)
				}
			}
			clocked.now = wall(q.Now)
			res, err := peer.AllowN(ctx, prefix+q.Key, limit, int(q.Cost))
			if err != nil {
				t.Fatal(err)
			}
			d, _ := g.Decide(state, q.Key, q.Now, q.Cost)
			ownTAT := g.Read(q.Key, q.Now).TAT // gcra.lua's tat before the request (idle: now)
			if v, err := client.Get(ctx, store.Key(laneName, q.Key)).Result(); err == nil {
				ownTAT, _ = strconv.ParseInt(v, 10, 64)
			}
			own := lane.Allow(q.Key, q.Now, q.Cost)
			after, afterErr := client.Get(ctx, peerKey).Result()

			nowS := algorithms.Micros(q.Now) * c.PerMicro
			margin := float64(nowS-(max(state.TAT, nowS)+q.Cost*c.Unit-c.Capacity)) / float64(c.PerMicro) // µs past the instant it is allowed
			fail := func(format string, args ...any) {
				t.Fatalf("seed %d, %s: request %d (%s at %v, cost %d; %.3fµs from a tie): redis_rate %+v, GCRA on its tat %+v, gcra.lua %+v: %s",
					seed, p, i, q.Key, q.Now, q.Cost, margin, res, d, own, fmt.Sprintf(format, args...))
			}
			seen["decisions"]++
			if (res.Allowed > 0) != d.Allowed {
				if math.Abs(margin) > floatTie {
					fail("they decide otherwise, not at a tie")
				}
				seen["ties decided otherwise"]++
			} else {
				compareToRedisRate(res, d, state, q, p, c, margin, stored, after, had, afterErr == nil, seen, fail)
			}

			// gcra.lua on its own state
			drift := math.Abs(float64(max(ownTAT, nowS)-max(state.TAT, nowS))) / float64(c.PerMicro)
			maxDrift = max(maxDrift, drift)
			if own.Allowed != (res.Allowed > 0) {
				ownMargin := float64(nowS-(max(ownTAT, nowS)+q.Cost*c.Unit-c.Capacity)) / float64(c.PerMicro)
				if math.Abs(ownMargin) > drift+floatTie {
					fail("gcra.lua decides otherwise, %gµs from a tie with its tat %gµs from redis_rate's", ownMargin, drift)
				}
				seen["gcra.lua otherwise: float drift"]++
				if afterErr == nil {
					tat, err := scaledTAT(after, c)
					if err != nil {
						t.Fatal(err)
					}
					client.Set(ctx, store.Key(laneName, q.Key), tat, 0)
				} else {
					client.Del(ctx, store.Key(laneName, q.Key))
				}
			}
		}
	}
	t.Logf("the largest drift of redis_rate's float tat from gcra.lua's exact one: %gµs", maxDrift)
	if maxDrift >= 1 {
		t.Errorf("redis_rate's float tat drifted %gµs from the exact one; docs/peers.md says under a microsecond", maxDrift)
	}
}

// compareToRedisRate checks redis_rate's answer res against GCRA's d on the same
// state, when both accepted or both refused (see TestGCRADecidesAsRedisRate).
func compareToRedisRate(res *redis_rate.Result, d algorithms.Decision, state algorithms.GCRAState, q stamped, p algorithms.Policy, c algorithms.Credits,
	margin float64, stored, after string, had, has bool, seen tally, fail func(string, ...any)) {
	nowS := algorithms.Micros(q.Now) * c.PerMicro
	exactRetry := time.Duration(-margin * float64(time.Microsecond))
	switch {
	case d.Allowed:
		if res.Allowed != int(q.Cost) || res.RetryAfter != -1 {
			fail("an acceptance: want allowed = the cost and retry-after −1")
		}
		// GCRA's remaining rounded down, or the whole number on the other side
		// when it is within floatTie µs of refill of one
		whole := int(math.Floor(d.Remaining))
		delta := floatTie * float64(time.Microsecond) * float64(p.Limit) / float64(p.Period) // floatTie µs in tokens
		if lo, hi := int(math.Floor(d.Remaining-delta)), int(math.Floor(d.Remaining+delta)); res.Remaining < lo || res.Remaining > hi {
			fail("remaining: want GCRA's rounded down, %d", whole)
		}
		if res.Remaining != whole {
			seen["remaining across a whole number by float rounding"]++
		}
	default:
		seen["refusals"]++
		if res.Remaining != 0 {
			fail("redis_rate's remaining on a refusal is not 0")
		}
		if stored != after || had != has {
			fail("redis_rate stored something on a refusal")
		}
		if d.RetryAfter == algorithms.Forever {
			seen["costs above the burst: a finite retry-after"]++
			if q.Cost <= p.Burst || res.RetryAfter <= 0 {
				fail("want a cost above the burst, and redis_rate's finite retry-after")
			}
		}
		if diff := res.RetryAfter - exactRetry; math.Abs(float64(diff)) > floatTie*float64(time.Microsecond) {
			fail("retry-after is not within %gµs of GCRA's unrounded %v", floatTie, exactRetry)
		}
		if d.RetryAfter != algorithms.Forever && d.RetryAfter != ceilMicro(exactRetry) {
			fail("GCRA's retry-after is not its unrounded one rounded up")
		}
	}
	exactReset := time.Duration(float64(max(state.TAT, nowS)-nowS+boolInt(d.Allowed)*q.Cost*c.Unit) / float64(c.PerMicro) * float64(time.Microsecond))
	if diff := res.ResetAfter - exactReset; math.Abs(float64(diff)) > floatTie*float64(time.Microsecond) {
		fail("reset-after is not within %gµs of GCRA's unrounded %v", floatTie, exactReset)
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
