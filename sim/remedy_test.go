package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

// gRPC's retry throttling stops retries once failures exceed TokenRatio / (1 +
// TokenRatio) of the calls (gRFC A6): 9.1% at token_ratio 0.1. Below it every
// failure is retried once the tokens settle, above it none is.
func TestRetryThrottleStopsAboveItsFailureShare(t *testing.T) {
	retry := Retry{Policy: RetryImmediate, MaxAttempts: 3, OnDeny: true, OnError: true, Throttle: &RetryThrottle{MaxTokens: 10, TokenRatio: 0.1}}
	for _, tc := range []struct {
		failPerMille int
		retriedLo    float64 // share of the failures retried in the run's second half
		retriedHi    float64
	}{
		{80, 1, 1},  // 8% < 9.1%: the tokens stay full
		{90, 1, 1},  // 9% < 9.1%
		{95, 0, 0},  // 9.5% > 9.1%: they drain to half and stay there
		{200, 0, 0}, // 20%
	} {
		var s remedyState
		const n = 200_000
		retried, failed := 0, 0
		for i := range n {
			now := time.Duration(i) * time.Millisecond
			if i*7919%1000 < tc.failPerMille { // failures spread evenly over the calls
				ok := s.mayRetry(retry, true, true, now)
				if i >= n/2 {
					failed++
					if ok {
						retried++
					}
				}
				continue
			}
			s.succeeded(retry, now)
		}
		share := float64(retried) / float64(failed)
		if share < tc.retriedLo || share > tc.retriedHi {
			t.Errorf("%.1f%% of calls failing: %.3f of the failures retried in the second half, want %g to %g", float64(tc.failPerMille)/10, share, tc.retriedLo, tc.retriedHi)
		}
	}
}

// Finagle's default budget (ttl 10 s, 10 a second, 20%) lets about 20% of the
// requests be retried plus 10 a second: 30 a second for 100 requests a second
// that all fail, once the first ttl has passed.
func TestRetryBudgetIsAShareOfRequestsPlusAReserve(t *testing.T) {
	retry := Retry{Policy: RetryImmediate, MaxAttempts: 100, OnDeny: true, OnError: true, Budget: &RetryBudget{TTL: 10 * time.Second, MinPerSecond: 10, Percent: 0.2}}
	var s remedyState
	perSecond := map[int]int{}
	for i := range 100 * 60 { // 100 requests a second for a minute, 10 ms apart
		now := time.Duration(i) * 10 * time.Millisecond
		s.deposit(retry, now)
		for s.mayRetry(retry, true, true, now) { // each retries as long as the budget allows
			perSecond[int(now/time.Second)]++
		}
	}
	total := 0
	for sec := 20; sec < 60; sec++ {
		total += perSecond[sec]
	}
	if rate := float64(total) / 40; rate < 28 || rate > 32 {
		t.Errorf("retries from 20 s to 60 s: %.1f a second, want about 30 (20%% of 100 plus 10)", rate)
	}
}

// The SRE book's adaptive throttling at K = 2: a client wanting 1,000 a second
// of a service that accepts 100 a second sends it about 200 a second.
func TestAdaptiveThrottleSendsKTimesTheAccepts(t *testing.T) {
	retry := Retry{Policy: RetryNone, MaxAttempts: 1, Adaptive: &AdaptiveThrottle{K: 2, Window: 2 * time.Minute}}
	var s remedyState
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func() *rand.Rand { return rng }
	sent := 0
	served := map[int]int{} // the service accepts the first 100 of each second
	for i := range 1000 * 600 {
		now := time.Duration(i) * time.Millisecond
		if !s.sends(retry, now, draw) {
			continue
		}
		sec := int(now / time.Second)
		if sec >= 300 {
			sent++
		}
		if served[sec] < 100 {
			served[sec]++
			s.succeeded(retry, now)
		}
	}
	if rate := float64(sent) / 300; rate < 190 || rate > 215 {
		t.Errorf("from 5 to 10 minutes the client sent %.1f a second; want about K × 100 = 200", rate)
	}
}

// twitter/util's WindowedAdder: a slice ends when its span has passed since the
// last one did; slices skipped meanwhile are cleared; the sum forgets what is
// older than the range.
func TestWindowedAdderForgetsAfterItsRange(t *testing.T) {
	w := newWindowedAdder(10*time.Second, 10, 0)
	w.add(0, 5)
	w.add(3500*time.Millisecond, 7)
	if got := w.sum(9 * time.Second); got != 12 {
		t.Errorf("sum at 9 s = %d, want 12", got)
	}
	if got := w.sum(11 * time.Second); got != 7 {
		t.Errorf("sum at 11 s = %d, want 7 (the first add expired)", got)
	}
	if got := w.sum(25 * time.Second); got != 0 {
		t.Errorf("sum at 25 s = %d, want 0", got)
	}
}

// Envoy's retry budget, as its documentation puts it: with 100 requests
// active and budget_percent 25, 25 retries may be outstanding; a 26th
// overflows. With few requests active, min_retry_concurrency still lets 3.
// A retry answered frees its place; the share is cut to a whole number.
func TestEnvoyBudgetIsAShareOfTheActiveRequests(t *testing.T) {
	retry := Retry{Policy: RetryImmediate, MaxAttempts: 5, OnDeny: true, OnError: true, Envoy: &EnvoyRetryBudget{BudgetPercent: 25, MinRetryConcurrency: 3}}
	var s remedyState
	for range 100 {
		s.sent(retry)
	}
	granted := 0
	for s.mayRetry(retry, true, true, 0) {
		granted++
		if granted > 1000 {
			break
		}
	}
	if granted != 25 {
		t.Errorf("100 requests active at 25%%: %d retries outstanding, want 25", granted)
	}
	s.answered(retry, true) // a retry answered: 24 outstanding, 99 active
	if s.mayRetry(retry, true, true, 0) {
		t.Errorf("24 outstanding with 99 active: 25%% of 99 is 24.75, cut to 24, so no retry; one was made")
	}
	s.sent(retry) // 100 active again: 25
	if !s.mayRetry(retry, true, true, 0) {
		t.Errorf("24 outstanding with 100 active: want the 25th retry")
	}
	var few remedyState
	for range 4 {
		few.sent(retry)
	}
	granted = 0
	for few.mayRetry(retry, true, true, 0) && granted < 100 {
		granted++
	}
	if granted != 3 {
		t.Errorf("4 requests active at 25%% (1): %d retries outstanding, want min_retry_concurrency's 3", granted)
	}
	if few.mayRetry(retry, true, false, 0) {
		t.Error("a failure the policy would not retry was retried")
	}
}
