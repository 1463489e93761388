package algorithms

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// Without a quota the lane decides as token-bucket does on requests of cost 1
// (the same requests, remaining, retry-after); a request of any cost takes one
// token.
func TestAPIGatewayIsTheTokenBucketPerRequest(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		p := randomPolicy(r)
		trace := randomTrace(r, p, 200, 1)
		gw := decide(NewAPIGateway(p, 0, QuotaNone, 0, HeaderOrigin), trace)
		if err := checkSameDecisions(gw, decide(NewTokenBucket(p, true, 0), trace), true); err != nil {
			t.Fatalf("seed %d, %s: %v", seed, p, err)
		}
	}
	lim := NewAPIGateway(Policy{Limit: 1, Period: time.Second, Burst: 2}, 0, QuotaNone, 0, HeaderOrigin)
	runSteps(t, lim, []step{
		{at: 0, cost: 50, allowed: true, remaining: 1},
		{at: 0, cost: 50, allowed: true, remaining: 0},
		{at: 0, cost: 1, allowed: false, retry: time.Second, remaining: 0},
	})
}

// A usage plan's quota: quota_limit requests per UTC period, quota_offset fewer
// in the one the run starts in (2026-01-01, a Thursday); a refusal by the quota
// takes no token, says QUOTA_EXCEEDED and waits for the next period; one by the
// bucket says THROTTLED.
func TestAPIGatewayQuota(t *testing.T) {
	day := 24 * time.Hour
	p := Policy{Limit: 10, Period: time.Second, Burst: 10}
	for _, c := range []struct {
		period QuotaPeriod
		first  time.Duration // when the initial period ends
		second time.Duration // and the next
	}{
		{QuotaDay, day, 2 * day},
		{QuotaWeek, 4 * day, 11 * day},   // Monday 2026-01-05, then the 12th
		{QuotaMonth, 31 * day, 59 * day}, // 2026-02-01, then 2026-03-01
	} {
		t.Run(c.period.String(), func(t *testing.T) {
			lim := NewAPIGateway(p, 3, c.period, 1, HeaderOrigin)
			runSteps(t, lim, []step{
				{at: 0, allowed: true, remaining: 9},
				{at: ms(1), allowed: true, remaining: anyRemaining},
				{at: ms(2), allowed: false, retry: c.first - ms(2), remaining: anyRemaining}, // 3 − 1 in the first period
				{at: c.first - time.Microsecond, allowed: false, retry: time.Microsecond, remaining: 10},
				{at: c.first, allowed: true, remaining: 9},
				{at: c.first, allowed: true, remaining: 8},
				{at: c.first, allowed: true, remaining: 7},
				{at: c.first, allowed: false, retry: c.second - c.first, remaining: 7},
			})
			if code, word := apiGatewayStatus(lim.Check("k", c.first, 1), Options{}); code != 429 || word != "QUOTA_EXCEEDED" {
				t.Errorf("a refusal by the quota is %d %q, want 429 QUOTA_EXCEEDED", code, word)
			}
		})
	}
	lim := NewAPIGateway(Policy{Limit: 1, Period: time.Second, Burst: 1}, 5, QuotaDay, 0, HeaderOrigin)
	lim.Allow("k", 0, 1)
	if code, word := apiGatewayStatus(lim.Allow("k", 0, 1), Options{}); code != 429 || word != "THROTTLED" {
		t.Errorf("a refusal by the bucket is %d %q, want 429 THROTTLED", code, word)
	}
	if code, word := apiGatewayStatus(lim.Allow("k", time.Second, 1), Options{}); code != 200 || word != "" {
		t.Errorf("a request let through is %d %q", code, word)
	}
	// an offset of the whole quota leaves the first period none: a refusal
	// there waits for the second
	none := NewAPIGateway(p, 2, QuotaDay, 2, HeaderOrigin)
	runSteps(t, none, []step{{at: time.Hour, allowed: false, retry: 23 * time.Hour, remaining: 10}, {at: day, allowed: true, remaining: 9}})
	// a clock behind, in an earlier period, counts in the key's
	behind := NewAPIGateway(p, 1, QuotaDay, 0, HeaderOrigin)
	runSteps(t, behind, []step{{at: day, allowed: true, remaining: 9}, {at: day - time.Hour, allowed: false, retry: 25 * time.Hour, remaining: anyRemaining}})
}

func TestCheckAPIGatewayPolicy(t *testing.T) {
	p := Policy{Limit: 10, Period: time.Second}
	if err := CheckAPIGatewayPolicy(p, Options{QuotaLimit: 100, QuotaPeriod: QuotaWeek, QuotaOffset: 100}); err != nil {
		t.Errorf("a weekly quota of 100, offset 100: %v", err)
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{QuotaLimit: 100}, `quota_limit = 100 needs quota_period = "day", "week" or "month"`},
		{Options{QuotaPeriod: QuotaDay}, `quota_period = "day" needs quota_limit`},
		{Options{QuotaLimit: -1, QuotaPeriod: QuotaDay}, "quota_limit must be >= 1"},
		{Options{QuotaLimit: 10, QuotaPeriod: QuotaDay, QuotaOffset: 11}, "quota_offset must be from 0 to quota_limit (10)"},
		{Options{QuotaOffset: 1}, "quota_offset must be from 0 to quota_limit (0)"},
	} {
		if err := CheckAPIGatewayPolicy(p, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want %q", c.o, err, c.want)
		}
	}
}
