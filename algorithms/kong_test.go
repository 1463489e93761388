package algorithms

import (
	"strings"
	"testing"
	"time"
)

// kongLane is the kong lane for p with opts, which must be accepted.
func kongLane(t *testing.T, p Policy, opts Options) *Kong {
	t.Helper()
	lim, err := New(KongName, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return lim.(*Kong)
}

var kongPolicies = []KongPolicy{KongLocal, KongCluster, KongRedis}

// Kong's own spec (spec/03-plugins/23-rate-limiting/04-access_spec.lua at
// 22246ef2, validate_headers, for every policy): minute = 6, hour = 99999, seven
// requests (the spec waits for the increment timer between them): 200 six
// times, then 429; RateLimit-Limit 6 and RateLimit-Remaining 5, 4, 3, 2, 1, 0,
// 0 (the minute's, the window with the least left); RateLimit-Reset at most 60.
func TestKongAccessSpec(t *testing.T) {
	for _, policy := range kongPolicies {
		t.Run(policy.String(), func(t *testing.T) {
			lim := kongLane(t, Policy{Limit: 6, Period: time.Minute}, Options{KongPolicy: policy, KongWindows: KongWindows{KongHour: 99999}})
			for i, want := range []float64{5, 4, 3, 2, 1, 0, 0} {
				at := ms(100 * float64(i))
				d := lim.Allow("127.0.0.1", at, 1)
				if d.Allowed != (i < 6) || d.Remaining != want || d.Limit != 6 || d.ResetAfter > time.Minute || d.ResetAfter < time.Second {
					t.Errorf("request %d: allowed %v, RateLimit-Remaining %g, RateLimit-Limit %d, RateLimit-Reset %v; want %v, %g, 6, 1 s to 60 s", i+1, d.Allowed, d.Remaining, d.Limit, d.ResetAfter, i < 6, want)
				}
			}
		})
	}
	// "expire counter": second = 1: 200 with remaining 0, 429, and 200 a second later
	for _, policy := range kongPolicies {
		runSteps(t, kongLane(t, Policy{Limit: 1, Period: time.Second}, Options{KongPolicy: policy}), []step{
			{at: ms(200), key: "127.0.0.3", allowed: true, remaining: 0},
			{at: ms(300), key: "127.0.0.3", allowed: false, retry: time.Second, remaining: 0},
			{at: ms(1300), key: "127.0.0.3", allowed: true, remaining: 0},
		})
	}
}

// Derived from the code: minute = 2, four requests in one minute. local: 200,
// 200, 429, 429 and the counter at 2; redis (3.4+): the same answers, the
// counter at 4 (every request is an INCR); the next minute starts at 0 for
// both.
func TestKongRefusalsCountOnRedisOnly(t *testing.T) {
	for _, tc := range []struct {
		policy KongPolicy
		count  float64
	}{{KongLocal, 2}, {KongCluster, 2}, {KongRedis, 4}} {
		lim := kongLane(t, Policy{Limit: 2, Period: time.Minute}, Options{KongPolicy: tc.policy})
		runSteps(t, lim, []step{
			{at: 0, allowed: true, remaining: 1},
			{at: time.Second, allowed: true, remaining: 0},
			{at: 2 * time.Second, allowed: false, retry: 58 * time.Second, remaining: 0},
			{at: 3 * time.Second, allowed: false, retry: 57 * time.Second, remaining: 0},
		})
		if got := lim.Level("k", 4*time.Second); got != tc.count {
			t.Errorf("%s: the minute's counter is %g, want %g", tc.policy, got, tc.count)
		}
		runSteps(t, lim, []step{{at: time.Minute, allowed: true, remaining: 1}})
	}
	// with a longer window, the redis refusals use it up: minute = 2, hour = 3;
	// the third request is refused by the minute but counted in the hour, and
	// the next minute's first request is refused by the hour (Retry-After: the
	// hour's reset); local keeps the hour's third request for it
	for _, tc := range []struct {
		policy  KongPolicy
		allowed bool
	}{{KongLocal, true}, {KongRedis, false}} {
		lim := kongLane(t, Policy{Limit: 2, Period: time.Minute}, Options{KongPolicy: tc.policy, KongWindows: KongWindows{KongHour: 3}})
		steps := []step{
			{at: 0, allowed: true, remaining: 1},
			{at: 0, allowed: true, remaining: 0},
			{at: 0, allowed: false, retry: time.Minute, remaining: 0},
			{at: time.Minute, allowed: tc.allowed, remaining: 0},
		}
		if !tc.allowed {
			steps[3].retry = 59 * time.Minute
		}
		runSteps(t, lim, steps)
	}
}

// The increment lands after the decision (ngx.timer.at): with
// kong_increment_delay, requests before it read the count without it, and
// concurrent ones all pass; Redis (an INCR before the decision) does not
// overshoot.
func TestKongIncrementDelayOvershoots(t *testing.T) {
	p := Policy{Limit: 2, Period: time.Minute}
	local := kongLane(t, p, Options{KongIncrementDelay: 10 * time.Millisecond})
	runSteps(t, local, append(repeat(0, 5, 5), []step{
		{at: ms(9.999), allowed: true, remaining: 1}, // the five have not landed yet
		{at: ms(10), allowed: false, remaining: 0},   // they have
	}...))
	if got := local.Level("k", ms(10)); got != 5 {
		t.Errorf("the minute's counter at 10 ms is %g, want 5 (landed)", got)
	}
	if got := local.Level("k", ms(20)); got != 6 {
		t.Errorf("the minute's counter at 20 ms is %g, want 6 (the one at 9.999 ms landed too)", got)
	}
	runSteps(t, kongLane(t, p, Options{KongPolicy: KongRedis}), repeat(0, 5, 2))
}

// Windows are UTC's (the origin is 2026-01-01T00:00:00Z); a month's counter
// lives 30 days (expiration.lua), so in January one made on the 1st is gone on
// the 31st and a second month's allowance starts there: day = 1, month = 1 lets
// a request through on January 1st, 31st and February 1st.
func TestKongCalendarWindows(t *testing.T) {
	day := 24 * time.Hour
	for _, policy := range []KongPolicy{KongLocal, KongRedis} {
		lim := kongLane(t, Policy{Limit: 1, Period: day}, Options{KongPolicy: policy, KongWindows: KongWindows{KongMonth: 1}})
		runSteps(t, lim, []step{
			{at: 0, allowed: true, remaining: 0},
			{at: 29 * day, allowed: false, retry: day, remaining: 0}, // the month's Reset: 30 days − 29
			{at: 30*day - time.Millisecond, allowed: false, remaining: 0},
			{at: 30*day + time.Second, allowed: true, remaining: 0}, // January 31st: the counter has expired
			{at: 31 * day, allowed: true, remaining: 0},             // February 1st
		})
	}
	// the database's row expires too: its ttl is 30 days after the insert,
	// and it is read up to that instant included
	runSteps(t, kongLane(t, Policy{Limit: 1, Period: day}, Options{KongPolicy: KongCluster, KongWindows: KongWindows{KongMonth: 1}}), []step{
		{at: 0, allowed: true, remaining: 0},
		{at: 30 * day, allowed: false, retry: time.Second, remaining: 0}, // Reset max(1, 30 days − 30 days)
		{at: 30*day + time.Second, allowed: true, remaining: 0},
		{at: 31 * day, allowed: true, remaining: 0},
	})
}

// The cluster policy's rows (kong/plugins/rate-limiting/policies/cluster.lua
// at 22246ef2, postgres increment): one a window, keyed by identifier,
// period, period_date (the window's start), service and route, inserted with
// ttl = CURRENT_TIMESTAMP + EXPIRATION[period] (the database's clock when the
// increment runs) and, on conflict, only "value" = value + 1: the ttl is never
// renewed. The select (find, the ratelimiting_metrics DAO with ttl = true;
// kong/db/strategies/postgres/init.lua) reads a row only while ttl >=
// CURRENT_TIMESTAMP. An expired row stays in the table, taking the
// increments unread, until the clean-up (kong/db/strategies/postgres/
// connector.lua, init_worker: every ttl_cleanup_interval, 300 s, DELETE …
// WHERE ttl < now) removes it; the next increment inserts a new row.
//
// The case: day = 3, month = 3, one request on January 1st, 2nd and
// 3rd at 00:00. The month's row, made on the 1st, expires on the 31st at
// 00:00 (30 days), so at 00:00:01 the month reads 0 and Kong lets the request
// through (ratelab refused it: rows never expired).
func TestKongClusterRowsExpire(t *testing.T) {
	day := 24 * time.Hour
	lim := kongLane(t, Policy{Limit: 3, Period: day}, Options{KongPolicy: KongCluster, KongWindows: KongWindows{KongMonth: 3}})
	runSteps(t, lim, []step{
		{at: 0, allowed: true, remaining: 2},
		{at: day, allowed: true, remaining: 1},
		{at: 2 * day, allowed: true, remaining: 0},
		{at: 3 * day, allowed: false, retry: 27 * day, remaining: 0},
		{at: 30*day - time.Second, allowed: false, retry: time.Second, remaining: 0},
		{at: 30 * day, allowed: false, retry: time.Second, remaining: 0}, // ttl >= now: read at its instant
		{at: 30*day + time.Second, allowed: true, remaining: 2},          // the day's 3 less this one; the month reads 0
	})

	// the expired row takes the increments unread until the clean-up at
	// 00:05 (every 300 s from the node's start, the run's origin); then a
	// new row counts from the next: minute = 1, month = 2
	lim = kongLane(t, Policy{Limit: 1, Period: time.Minute}, Options{KongPolicy: KongCluster, KongWindows: KongWindows{KongMonth: 2}})
	steps := []step{
		{at: 0, allowed: true, remaining: 0},
		{at: day, allowed: true, remaining: 0},
		{at: 2 * day, allowed: false, retry: 28 * day, remaining: 0},
		{at: 30 * day, allowed: false, retry: time.Second, remaining: 0},
	}
	for m := range 5 { // 00:00:01 to 00:04:01: read 0, each increment into the expired row
		steps = append(steps, step{at: 30*day + time.Duration(m)*time.Minute + time.Second, allowed: true, remaining: 0})
	}
	steps = append(steps,
		step{at: 30*day + 6*time.Minute, allowed: true, remaining: 0},  // cleaned up: a new row, 1
		step{at: 30*day + 7*time.Minute, allowed: true, remaining: 0},  // 2
		step{at: 30*day + 8*time.Minute, allowed: false, remaining: 0}, // the month's 2 again
		step{at: 31 * day, allowed: true, remaining: 0},                // February
	)
	runSteps(t, lim, steps)

	// a row made later in the month expires later: the ttl counts from its
	// insert, on the database's clock when the increment lands
	lim = kongLane(t, Policy{Limit: 1, Period: time.Hour}, Options{KongPolicy: KongCluster, KongWindows: KongWindows{KongMonth: 1}, KongIncrementDelay: 500 * time.Millisecond})
	runSteps(t, lim, []step{
		{at: 12 * time.Hour, allowed: true, remaining: 0}, // lands at 12:00:00.5
		{at: 30*day + 12*time.Hour + 500*time.Millisecond, allowed: false, retry: time.Second, remaining: 0},
		{at: 30*day + 12*time.Hour + 500*time.Millisecond + time.Microsecond, allowed: true, remaining: 0},
	})
}

// A counter's last millisecond: the shared dict drops a key when its expiry is
// reached, Redis once its clock is past it.
func TestKongExpiryEdge(t *testing.T) {
	for _, tc := range []struct {
		policy  KongPolicy
		allowed bool
	}{{KongLocal, true}, {KongRedis, false}} {
		lim := kongLane(t, Policy{Limit: 1, Period: 24 * time.Hour}, Options{KongPolicy: tc.policy, KongWindows: KongWindows{KongMonth: 1}})
		lim.Allow("k", 0, 1)
		runSteps(t, lim, []step{{at: 30 * 24 * time.Hour, allowed: tc.allowed, remaining: 0}})
	}
}

// Reset and Retry-After count from the whole second: refused at 30.5 s into a
// minute, Retry-After is 30 s (to 1:00.5), though the next minute takes the
// request at 1:00.
func TestKongResetFromTheWholeSecond(t *testing.T) {
	runSteps(t, kongLane(t, Policy{Limit: 1, Period: time.Minute}, Options{}), []step{
		{at: 0, allowed: true, remaining: 0},
		{at: ms(30500), allowed: false, retry: 30 * time.Second, remaining: 0},
		{at: time.Minute, allowed: true, remaining: 0},
	})
}

// What Kong's configuration cannot state is refused, with Kong's words.
func TestKongRefuses(t *testing.T) {
	for _, tc := range []struct {
		p    Policy
		o    Options
		want string
	}{
		{Policy{Limit: 10, Period: 7 * time.Second}, Options{}, `period 7s is not one of Kong's windows`},
		{Policy{Limit: 10, Period: time.Minute}, Options{KongWindows: KongWindows{KongMinute: 5}}, "kong_windows sets minute, which the policy's period (1m0s) already is"},
		{Policy{Limit: 6, Period: time.Minute}, Options{KongWindows: KongWindows{KongHour: 5}}, "the limit for hour(5) cannot be lower than the limit for minute(6)"},
		{Policy{Limit: 6, Period: time.Minute}, Options{KongPolicy: KongRedis, KongIncrementDelay: time.Millisecond}, `kong_increment_delay applies to kong_policy = "local" and "cluster"`},
		{Policy{Limit: 6, Period: time.Minute}, Options{DenyStatus: 399}, "deny_status (config.error_code) must be from 400 to 599"},
		{Policy{Limit: 6, Period: time.Minute}, Options{DenyStatus: 600}, "deny_status (config.error_code) must be from 400 to 599"},
	} {
		if _, err := New(KongName, tc.p, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s, %+v: %v, want an error containing %q", tc.p, tc.o.KongWindows, err, tc.want)
		}
	}
	info := MustLookup(KongName)
	if code, word := info.Status(Decision{}, Options{}); code != 429 || word != "API rate limit exceeded" {
		t.Errorf("refused: %d %q, want the plugin's 429 and error_message", code, word)
	}
	// error_code: kong.response.error takes 400 to 599, both ends included
	for _, status := range []int{400, 503, 599} {
		o := Options{DenyStatus: status}
		if _, err := New(KongName, Policy{Limit: 6, Period: time.Minute}, o); err != nil {
			t.Errorf("deny_status %d: %v, want it taken", status, err)
		}
		if code, word := info.Status(Decision{}, o); code != status || word != "API rate limit exceeded" {
			t.Errorf("refused with deny_status %d: %d %q, want %d and the error_message", status, code, word, status)
		}
		if code, _ := info.Status(Decision{Allowed: true}, o); code != 200 {
			t.Errorf("allowed with deny_status %d: %d, want 200", status, code)
		}
	}
}

// Eviction forgets what no later request reads: past windows, expired
// counters, and keys left with nothing, but not an increment still to land.
func TestKongEviction(t *testing.T) {
	lim := kongLane(t, Policy{Limit: 2, Period: time.Second}, Options{KongIncrementDelay: time.Second, KongWindows: KongWindows{KongMinute: 10}})
	lim.Allow("k", 0, 1)
	if n := lim.Evict(ms(500)); n != 0 {
		t.Errorf("evicted %d keys with an increment still to land", n)
	}
	if n := lim.Evict(ms(1500)); n != 0 || lim.counters != 1 {
		t.Errorf("at 1.5 s: %d keys evicted, %d counters held; want the key kept with its minute's counter (the second's is past)", n, lim.counters)
	}
	if n := lim.Evict(time.Minute); n != 1 || lim.Keys() != 0 || lim.counters != 0 {
		t.Errorf("at 1 min: %d keys evicted, %d left, %d counters; want the key gone", n, lim.Keys(), lim.counters)
	}
	runSteps(t, lim, []step{{at: time.Minute, allowed: true, remaining: 1}})
}

// kongResponse is the headers Kong sends for d, a kong lane's decision: each
// window of the lane a quota (as present.ResponseHeaders builds them).
func kongResponse(lim *Kong, d Decision) []string {
	var quotas []Quota
	for i, q := range MustLookup(KongName).Windows(lim.Policy(), Options{KongWindows: lim.limits.without(lim.Policy())}) {
		q.Decision = d.Windows[i]
		quotas = append(quotas, q)
	}
	var got []string
	for _, h := range MustLookup(KongName).Headers.Render(0, d, quotas) {
		got = append(got, h.Name+": "+h.Value)
	}
	return got
}

// without is w less the policy's own window (the lane's kong_windows).
func (w KongWindows) without(p Policy) KongWindows {
	i, _ := KongWindowOf(p.Period)
	w[i] = 0
	return w
}

// The kong lane's headers, as the plugin sends them (handler.lua at 22246ef2,
// access): X-RateLimit-Limit-<Window> and X-RateLimit-Remaining-<Window> per
// window, then RateLimit-* of the window with the least remaining (ties to the
// longer), Retry-After on a refusal. The spec's validate_headers (minute = 6,
// hour = 99999, seven requests in the minute's first second: Remaining 5, 4, 3,
// 2, 1, 0, 0, the seventh refused, RateLimit-Limit 6, Reset at most 60); then
// an hour that is the tighter (minute = 6, hour = 8: six requests in minute
// 0, then the hour runs out in minute 1 and refuses with the hour's reset);
// and a tie (minute = hour = 6), shown as the hour.
func TestKongHeaders(t *testing.T) {
	spec := kongLane(t, Policy{Limit: 6, Period: time.Minute}, Options{KongWindows: KongWindows{KongHour: 99999}})
	hour := kongLane(t, Policy{Limit: 6, Period: time.Minute}, Options{KongWindows: KongWindows{KongHour: 8}})
	tie := kongLane(t, Policy{Limit: 6, Period: time.Minute}, Options{KongWindows: KongWindows{KongHour: 6}})
	// the minute's remaining, the hour's limit and remaining, RateLimit-*
	h := func(minute, hourLimit, hour, limit, remaining, reset int64) []string {
		return []string{"X-RateLimit-Limit-Minute: 6", "X-RateLimit-Remaining-Minute: " + itoa(minute),
			"X-RateLimit-Limit-Hour: " + itoa(hourLimit), "X-RateLimit-Remaining-Hour: " + itoa(hour),
			"RateLimit-Limit: " + itoa(limit), "RateLimit-Remaining: " + itoa(remaining), "RateLimit-Reset: " + itoa(reset)}
	}
	for _, tc := range []struct {
		name    string
		lim     *Kong
		at      time.Duration
		allowed bool
		want    []string
	}{
		{"spec 1", spec, ms(0), true, h(5, 99999, 99998, 6, 5, 60)},
		{"spec 2", spec, ms(100), true, h(4, 99999, 99997, 6, 4, 60)},
		{"spec 3", spec, ms(200), true, h(3, 99999, 99996, 6, 3, 60)},
		{"spec 4", spec, ms(300), true, h(2, 99999, 99995, 6, 2, 60)},
		{"spec 5", spec, ms(400), true, h(1, 99999, 99994, 6, 1, 60)},
		{"spec 6", spec, ms(500), true, h(0, 99999, 99993, 6, 0, 60)},
		{"spec 7", spec, ms(1500), false, append(h(0, 99999, 99993, 6, 0, 59), "Retry-After: 59")},
		{"hour 1", hour, ms(0), true, h(5, 8, 7, 6, 5, 60)},
		{"hour 2", hour, ms(1), true, h(4, 8, 6, 6, 4, 60)},
		{"hour 3", hour, ms(2), true, h(3, 8, 5, 6, 3, 60)},
		{"hour 4", hour, ms(3), true, h(2, 8, 4, 6, 2, 60)},
		{"hour 5", hour, ms(4), true, h(1, 8, 3, 6, 1, 60)},
		{"hour 6", hour, ms(5), true, h(0, 8, 2, 6, 0, 60)},
		{"hour 7: minute 1, the hour tighter", hour, ms(60000), true, h(5, 8, 1, 8, 1, 3540)},
		{"hour 8: both, the hour at 0", hour, ms(61000), true, h(4, 8, 0, 8, 0, 3539)},
		{"hour 9: the hour refuses", hour, ms(62500), false, append(h(4, 8, 0, 8, 0, 3538), "Retry-After: 3538")},
		{"tie 1: the longer window", tie, ms(0), true, h(5, 6, 5, 6, 5, 3600)},
		{"tie 2", tie, ms(10), true, h(4, 6, 4, 6, 4, 3600)},
	} {
		d := tc.lim.Allow("127.0.0.1", tc.at, 1)
		got := kongResponse(tc.lim, d)
		if d.Allowed != tc.allowed || strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s: Allow(%v) = %v with\n %q\nwant %v with\n %q", tc.name, tc.at, d.Allowed, got, tc.allowed, tc.want)
		}
	}
}
