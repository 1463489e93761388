package redislua

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/redistest"
)

// traefikStep is one request to a source and what Traefik answers in its Redis
// mode (traefik-redis) and in memory (traefik), where they differ.
type traefikStep struct {
	at                   time.Duration
	allowed, memAllowed  bool
	delay, memDelay      time.Duration
	remaining, memRemain float64
}

// Traefik's Redis mode (AllowTokenBucketRaw and evaluateScript's reading of
// it), the same table on the lane in memory and on a real Redis; and the
// in-memory middleware on the same requests, where the two modes part:
//
//   - average 3, burst 1: maxDelay is 166,666,666 ns, 166,666 whole µs for
//     the script. 166,667 µs after a request the wait is 166,666.33 µs: the
//     script gives the token back (above 166,666 µs) and Go serves it (below
//     166,666,666 ns), so a second request at that instant is served too; in
//     memory the first is charged and the second refused.
//   - average 10, burst 50: a source drained at 0.9 s and idle 1.2 s keeps its
//     hash (EXPIRE 2 s) and has 12 tokens; the TTL map, counting whole Unix
//     seconds, finds its bucket expired at second 2 and makes a full one. Idle
//     2.1 s, both start full.
func TestTraefikRedisSteps(t *testing.T) {
	s := open(t, redistest.Start(t).URL())
	type table struct {
		name  string
		p     algorithms.Policy
		steps []traefikStep
	}
	drain := func(at time.Duration, n int) []traefikStep {
		var out []traefikStep
		for i := range n {
			left := float64(50 - 1 - i)
			out = append(out, traefikStep{at: at, allowed: true, memAllowed: true, remaining: left, memRemain: left})
		}
		return out
	}
	wait := 166666333 * time.Nanosecond
	for ti, tc := range []table{
		{"3 a second, burst 1", algorithms.Policy{Limit: 3, Period: time.Second, Burst: 1}, []traefikStep{
			{at: time.Second, allowed: true, memAllowed: true},
			{at: time.Second + 166667*time.Microsecond, allowed: true, delay: wait, remaining: 0.500001, memAllowed: true, memDelay: wait, memRemain: -0.499999},
			{at: time.Second + 166667*time.Microsecond, allowed: true, delay: wait, remaining: 0.500001, memAllowed: false, memDelay: 499999666 * time.Nanosecond, memRemain: -0.499999},
		}},
		{"10 a second, burst 50", algorithms.Policy{Limit: 10, Period: time.Second, Burst: 50}, append(drain(900*time.Millisecond, 50),
			traefikStep{at: 2100 * time.Millisecond, allowed: true, remaining: 11, memAllowed: true, memRemain: 49},
			traefikStep{at: 4200 * time.Millisecond, allowed: true, remaining: 49, memAllowed: true, memRemain: 49},
		)},
	} {
		mem, _ := algorithms.New(algorithms.TraefikRedisName, tc.p, algorithms.Options{})
		red, err := NewLimiter(s, Config{Lane: fmt.Sprintf("traefik-steps-%d", ti), Algorithm: algorithms.TraefikRedisName, Policy: tc.p})
		if err != nil {
			t.Fatal(err)
		}
		inMemory, _ := algorithms.New(algorithms.TraefikName, tc.p, algorithms.Options{})
		for i, st := range tc.steps {
			for _, lane := range []struct {
				name    string
				lim     algorithms.Limiter
				allowed bool
				delay   time.Duration
				left    float64
			}{
				{"traefik-redis in memory", mem, st.allowed, st.delay, st.remaining},
				{"traefik-redis on Redis", red, st.allowed, st.delay, st.remaining},
				{"traefik (the in-memory middleware)", inMemory, st.memAllowed, st.memDelay, st.memRemain},
			} {
				d := lane.lim.Allow("src", st.at, 1)
				delay := d.Delay
				if !d.Allowed {
					delay = d.RetryAfter
				}
				if d.Allowed != lane.allowed || delay != lane.delay || math.Abs(d.Remaining-lane.left) > 1e-9 {
					t.Errorf("%s, %s: step %d: Allow(%v) = %v, delay %v, remaining %.9g; want %v, %v, %.9g",
						tc.name, lane.name, i+1, st.at, d.Allowed, delay, d.Remaining, lane.allowed, lane.delay, lane.left)
				}
			}
		}
	}
}

// The Redis mode in memory and on Redis decide alike, exactly (the tokens
// cross as a double's mantissa and exponent), on random traffic that presses
// on the modes' edges: rates whose maxDelay is not whole µs, bursts at one
// instant, idle spells around the ttl, clocks going back.
func TestTraefikRedisDecidesAsInMemory(t *testing.T) {
	s := open(t, redistest.Start(t).URL())
	for seed := uint64(1); seed <= 30; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		p := algorithms.Policy{Limit: []int64{1, 3, 7, 10, 100}[r.IntN(5)], Period: []time.Duration{time.Second, 10 * time.Second, time.Minute}[r.IntN(3)], Burst: 1 + r.Int64N(20)}
		mem, err := algorithms.New(algorithms.TraefikRedisName, p, algorithms.Options{})
		if err != nil {
			t.Fatal(err)
		}
		red, err := NewLimiter(s, Config{Lane: fmt.Sprintf("traefik-prop-%d", seed), Algorithm: algorithms.TraefikRedisName, Policy: p})
		if err != nil {
			t.Fatal(err)
		}
		ttl := mem.(*algorithms.TraefikRedis).Config().TTL
		at := time.Duration(r.Int64N(int64(time.Second)))
		for i := range 300 {
			switch r.IntN(12) {
			case 0, 1, 2: // the same instant
			case 3:
				at -= time.Duration(r.Int64N(int64(p.Period))) // a clock behind
			case 4:
				at += time.Duration(ttl)*time.Second + time.Duration(r.Int64N(3)-1)*time.Millisecond // about the ttl
			default:
				at += time.Duration(r.ExpFloat64() * float64(p.Period) / float64(p.Limit))
			}
			at = at.Truncate(time.Microsecond)
			key := fmt.Sprintf("s%d", r.IntN(2))
			want := mem.Allow(key, at, 1)
			got := red.Allow(key, at, 1)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, %s: request %d (%s at %v): redis %+v, memory %+v", seed, p, i, key, at, got, want)
			}
			if a, b := red.Level(key, at), mem.Level(key, at); a != b {
				t.Fatalf("seed %d: level of %s at %v: redis %v, memory %v", seed, key, at, a, b)
			}
		}
	}
}
