package sim

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

// A client honouring the RateLimit field holds its key once r = 0 until t
// seconds later: 30 requests at once against a token bucket of 10 a second
// (burst 10). Without it, 10 pass and 20 are refused. With it, the 10th
// answer says r=0, t=1 (the bucket full again in a second), so the other 20
// wait until 1 s; there 10 pass and the 10th says r=0, t=1 again; the last
// 10 go at 2 s. None is refused, and the last waits 2 s.
func TestHonouringRateLimitHoldsUntilReset(t *testing.T) {
	p := algorithms.Policy{Limit: 10, Period: time.Second, Burst: 10}
	plain, paced := lane("plain", algorithms.TokenBucketName), lane("paced", algorithms.TokenBucketName)
	paced.Retry = &Retry{Policy: RetryNone, MaxAttempts: 1, HonourRateLimit: true}
	cfg := newConfig(p, 5*time.Second, []LaneConfig{plain, paced}, Client{Name: "c", Pattern: Bursts{[]Burst{{At: 0, Count: 30}}}})
	metrics, rows := runRows(t, cfg)
	if m := metrics[0]; m.Accepted != 10 || m.Denied != 20 {
		t.Errorf("without the field: accepted %d, denied %d; want 10 and 20", m.Accepted, m.Denied)
	}
	if m := metrics[1]; m.Accepted != 30 || m.Denied != 0 || m.LatencyP99 < 2*time.Second {
		t.Errorf("honouring it: accepted %d, denied %d, p99 %v; want 30, 0, 2s", m.Accepted, m.Denied, m.LatencyP99)
	}
	sent := map[time.Duration]int{}
	for _, r := range rows {
		if r.Lane == 1 {
			sent[r.DecidedAt]++
		}
	}
	if sent[0] != 10 || sent[time.Second] != 10 || sent[2*time.Second] != 10 {
		t.Errorf("honouring it, attempts sent by time: %v; want 10 at 0s, 1s and 2s", sent)
	}
}
