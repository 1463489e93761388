package algorithms

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// guavaOp is one call of Guava's RateLimiterTest on its FakeStopwatch: acquire(k)
// (tryAcquire with an unbounded timeout, then sleep the wait: an "R" event),
// sleepMillis(ms) (a "U" event), or tryAcquire(k, timeout) answering want.
type guavaOp struct {
	acquire int64
	sleep   time.Duration
	try     int64
	timeout time.Duration
	want    bool
}

func acquire(k int64) guavaOp      { return guavaOp{acquire: k} }
func sleepMillis(ms int64) guavaOp { return guavaOp{sleep: time.Duration(ms) * time.Millisecond} }
func tryAcq(k int64, timeout time.Duration, want bool) guavaOp {
	return guavaOp{try: k, timeout: timeout, want: want}
}

// guavaEvent is the FakeStopwatch's event: caption and seconds as
// String.format(Locale.ROOT, "%3.2f", micros / 1e6), which rounds half up.
func guavaEvent(caption string, micros int64) string {
	hundredths := (micros + 5000) / 10000
	return fmt.Sprintf("%s%d.%02d", caption, hundredths/100, hundredths%100)
}

// runGuava plays ops on g, whose one key "k" was created at instant 0 (as
// RateLimiter.create(stopwatch, …) creates it on the test's stopwatch), and
// returns the events.
func runGuava(t *testing.T, g *Guava, ops []guavaOp) []string {
	t.Helper()
	g.add("k", &GuavaState{})
	*g.stateOf("k") = g.fresh(0)
	var instant int64 // µs
	var events []string
	for i, op := range ops {
		switch {
		case op.sleep > 0:
			us := toMicros(op.sleep)
			instant += us
			events = append(events, guavaEvent("U", us))
		case op.acquire > 0:
			d := g.tryAcquire(g.stateOf("k"), "k", instant, op.acquire, 1<<62)
			if !d.Allowed {
				t.Fatalf("op %d: acquire(%d) refused", i, op.acquire)
			}
			wait := toMicros(d.Delay)
			instant += wait
			events = append(events, guavaEvent("R", wait))
		default:
			d := g.tryAcquire(g.stateOf("k"), "k", instant, op.try, max(toMicros(op.timeout), 0))
			if d.Allowed != op.want {
				t.Errorf("op %d: tryAcquire(%d, %v) at %dµs = %v, want %v", i, op.try, op.timeout, instant, d.Allowed, op.want)
			}
			if d.Allowed {
				wait := toMicros(d.Delay)
				instant += wait
				events = append(events, guavaEvent("R", wait))
			}
		}
	}
	return events
}

func events(s ...string) []string {
	var out []string
	for _, e := range s {
		out = append(out, strings.Split(e, ", ")...)
	}
	return out
}

func times(n int, op guavaOp) []guavaOp { return slices.Repeat([]guavaOp{op}, n) }

// Guava's own RateLimiterTest (guava-tests/test/com/google/common/util/concurrent/
// RateLimiterTest.java), each sequence step by step on the FakeStopwatch.
func TestGuavaRateLimiterTest(t *testing.T) {
	perSecond := func(n int64) Policy { return Policy{Limit: n, Period: time.Second} }
	ops := func(parts ...[]guavaOp) []guavaOp { return slices.Concat(parts...) }
	warm := slices.Concat(times(8, acquire(1)))
	for _, tc := range []struct {
		name string
		g    *Guava
		ops  []guavaOp
		want []string
	}{
		{"testSimple", NewGuava(perSecond(5), 0, 0), times(3, acquire(1)),
			events("R0.00, R0.20, R0.20")},
		{"testSimpleWithWait", NewGuava(perSecond(5), 0, 0),
			[]guavaOp{acquire(1), sleepMillis(200), acquire(1), acquire(1)},
			events("R0.00, U0.20, R0.00, R0.20")},
		{"testSimpleAcquireEarliestAvailableIsInPast", NewGuava(perSecond(5), 0, 0),
			[]guavaOp{acquire(1), sleepMillis(400), acquire(1), acquire(1), acquire(1)},
			events("R0.00, U0.40, R0.00, R0.00, R0.20")},
		{"testOneSecondBurst", NewGuava(perSecond(5), 0, 0),
			[]guavaOp{sleepMillis(1000), sleepMillis(1000), acquire(1), acquire(1), acquire(3), acquire(1), acquire(1)},
			events("U1.00, U1.00, R0.00, R0.00, R0.00, R0.00, R0.20")},
		{"testSimpleWeights", NewGuava(perSecond(1), 0, 0),
			[]guavaOp{acquire(1), acquire(1), acquire(2), acquire(4), acquire(8), acquire(1)},
			events("R0.00, R1.00, R1.00, R2.00, R4.00, R8.00")},
		{"testWarmUp", NewGuava(perSecond(2), 4*time.Second, 0),
			ops(warm, []guavaOp{sleepMillis(500), sleepMillis(4000)}, warm, []guavaOp{sleepMillis(500), sleepMillis(2000)}, warm),
			events("R0.00, R1.38, R1.13, R0.88, R0.63, R0.50, R0.50, R0.50", "U0.50", "U4.00",
				"R0.00, R1.38, R1.13, R0.88, R0.63, R0.50, R0.50, R0.50", "U0.50", "U2.00",
				"R0.00, R0.50, R0.50, R0.50, R0.50, R0.50, R0.50, R0.50")},
		{"testWarmUpWithColdFactor", newGuava(perSecond(5), 4*time.Second, 0, 10),
			ops(warm, []guavaOp{sleepMillis(200), sleepMillis(4000)}, warm, []guavaOp{sleepMillis(200), sleepMillis(1000)}, warm),
			events("R0.00, R1.75, R1.26, R0.76, R0.30, R0.20, R0.20, R0.20", "U0.20", "U4.00",
				"R0.00, R1.75, R1.26, R0.76, R0.30, R0.20, R0.20, R0.20", "U0.20", "U1.00",
				"R0.00, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20")},
		{"testWarmUpWithColdFactor1", newGuava(perSecond(5), 4*time.Second, 0, 1),
			ops(warm, []guavaOp{sleepMillis(340)}, warm),
			events("R0.00, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20", "U0.34",
				"R0.00, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20")},
		{"testTryAcquire_noWaitAllowed", NewGuava(perSecond(5), 0, 0),
			[]guavaOp{tryAcq(1, 0, true), tryAcq(1, 0, false), tryAcq(1, 0, false), sleepMillis(100), tryAcq(1, 0, false)},
			events("R0.00, U0.10")},
		{"testTryAcquire_someWaitAllowed", NewGuava(perSecond(5), 0, 0),
			[]guavaOp{tryAcq(1, 0, true), tryAcq(1, 200*time.Millisecond, true), tryAcq(1, 100*time.Millisecond, false),
				sleepMillis(100), tryAcq(1, 100*time.Millisecond, true)},
			events("R0.00, R0.20, U0.10, R0.10")},
		{"testTryAcquire_negative", NewGuava(perSecond(5), 0, 0),
			[]guavaOp{tryAcq(5, 0, true), sleepMillis(900), tryAcq(1, -time.Hour, false), sleepMillis(100), tryAcq(1, -time.Second, true)},
			events("R0.00, U0.90, U0.10, R0.00")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := runGuava(t, tc.g, tc.ops); !slices.Equal(got, tc.want) {
				t.Errorf("events\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// The lane's own decisions: tryAcquire(cost) with the lane's timeout, the next
// request paying for this one.
func TestGuavaSteps(t *testing.T) {
	p := Policy{Limit: 5, Period: time.Second}
	t.Run("tryAcquire", func(t *testing.T) {
		runSteps(t, NewGuava(p, 0, 0), []step{
			// a new key's limiter is created at its first request: no stored permits
			{at: 0, allowed: true, remaining: 0},
			{at: 0, allowed: false, retry: ms(200), remaining: 0},
			{at: ms(199.999), allowed: false, retry: time.Microsecond, remaining: 0},
			// tryAcquire(1000) succeeds when the ticket is free, and pushes it 200 s away
			{at: ms(200), cost: 1000, allowed: true, remaining: 0},
			{at: 100 * time.Second, allowed: false, retry: 100*time.Second + ms(200), remaining: 0},
			// idle long after the ticket: 5 stored permits (one second's), free
			{at: 210 * time.Second, cost: 3, allowed: true, remaining: 2},
			{at: 210 * time.Second, cost: 2, allowed: true, remaining: 0},
			{at: 210 * time.Second, allowed: true, remaining: 0}, // the ticket is still now
			{at: 210 * time.Second, allowed: false, retry: ms(200), remaining: 0},
		})
	})
	t.Run("acquire_timeout", func(t *testing.T) {
		runSteps(t, NewGuava(p, 0, ms(500)), []step{
			{at: 0, allowed: true, remaining: 0},
			{at: 0, allowed: true, remaining: 0, delay: ms(200)},
			{at: 0, allowed: true, remaining: 0, delay: ms(400)},
			{at: 0, allowed: false, retry: ms(100), remaining: 0}, // ticket at 600 ms, 500 ms allowed
			{at: ms(100), allowed: true, remaining: 0, delay: ms(500)},
		})
	})
	t.Run("warm-up starts cold", func(t *testing.T) {
		// 2/s over 4 s: the second request waits 1.375 s, not 0.5 s
		runSteps(t, NewGuava(Policy{Limit: 2, Period: time.Second}, 4*time.Second, 0), []step{
			{at: 0, allowed: true, remaining: 7},
			{at: 0, allowed: false, retry: 1375 * time.Millisecond, remaining: 7},
			{at: 1375 * time.Millisecond, allowed: true, remaining: 6},
		})
	})
}

// Eviction forgets only what a new limiter would be: a cold warming-up limiter;
// never a bursty one, whose store a new one would not have.
func TestGuavaEviction(t *testing.T) {
	bursty := NewGuava(Policy{Limit: 5, Period: time.Second}, 0, 0)
	bursty.Allow("k", 0, 1)
	if n := bursty.Evict(time.Hour); n != 0 {
		t.Errorf("a bursty limiter forgot %d keys; a new one has no stored permits, so none may go", n)
	}
	warm := NewGuava(Policy{Limit: 2, Period: time.Second}, 4*time.Second, 0)
	warm.Allow("k", 0, 1)
	if n := warm.Evict(time.Second); n != 0 {
		t.Errorf("a warm limiter forgot %d keys at 1 s; it is not cold yet", n)
	}
	if n := warm.Evict(time.Hour); n != 1 {
		t.Errorf("a warming-up limiter idle for an hour is cold again and forgotten; Evict = %d", n)
	}
}
