package sim

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

// A leaky queue of 10 at 10 a second, clients that wait 500 ms, 20 requests at
// 1 s and 20 more at 1.6 s. Kept (nginx's way), the five accepted at 1 s that
// would wait 500 ms or more time out in the queue but keep their places: at
// 1.6 s the queue still holds four units for them, so six are accepted and only
// the one with a 400 ms wait is served: 5 + 1. Left, they leave at 1.5 s and
// take their units with them: at 1.6 s the queue is empty, ten are accepted
// and the five with waits under 500 ms are served: 5 + 5.
func TestAbandonedRequestsKeepOrLeaveTheQueue(t *testing.T) {
	p := algorithms.Policy{Limit: 10, Period: time.Second, Burst: 10}
	keep, leave := lane("keep", algorithms.LeakyBucketName), lane("leave", algorithms.LeakyBucketName)
	leave.Options.LeaveAbandoned = true
	cfg := newConfig(p, 4*time.Second, []LaneConfig{keep, leave},
		Client{Name: "page", Pattern: Bursts{[]Burst{{At: time.Second, Count: 20}, {At: 1600 * time.Millisecond, Count: 20}}}})
	cfg.Backend = &Backend{Concurrency: 100, ServiceTime: 10 * time.Millisecond, Queue: 100, Timeout: 500 * time.Millisecond}
	metrics, rows := runRows(t, cfg)
	for i, want := range []struct {
		accepted, succeeded, timeouts int64
	}{{16, 6, 10}, {20, 10, 10}} {
		m := metrics[i]
		if m.Accepted != want.accepted || m.Succeeded != want.succeeded || m.QueueTimeouts != want.timeouts {
			t.Errorf("%s: accepted %d, served %d, timed out in the queue %d; want %d, %d, %d",
				cfg.Lanes[i].Name, m.Accepted, m.Succeeded, m.QueueTimeouts, want.accepted, want.succeeded, want.timeouts)
		}
	}
	// left: a request goes ahead at its turn, or leaves at its deadline
	for _, row := range rows {
		if row.Lane != 1 || !row.Allowed {
			continue
		}
		switch row.Outcome {
		case OutcomeServed:
			if row.QueueDelay >= 500*time.Millisecond || row.AdmittedAt != row.DecidedAt+row.QueueDelay {
				t.Errorf("served after waiting %v (admitted %v, decided %v)", row.QueueDelay, row.AdmittedAt, row.DecidedAt)
			}
		case OutcomeTimedOut, OutcomeGaveUp:
			if row.QueueDelay != 500*time.Millisecond || row.AdmittedAt != NotAdmitted {
				t.Errorf("left the queue after %v (admitted %v), want at its client's 500 ms, never admitted", row.QueueDelay, row.AdmittedAt)
			}
		}
	}
}

// Those behind a request that leaves go ahead sooner, by its cost over the
// rate: a queue of 10 at 10 a second, four requests at once (waits 0, 100,
// 200 and 300 ms) from clients that wait 260 ms, and a fifth 50 ms later.
// The fifth finds 3.5 units queued: a wait of 350 ms, past its client's
// patience. Kept, it times out at 310 ms. Left, the fourth leaves at 260 ms
// and the fifth's turn comes 100 ms sooner, at 300 ms: it is served, after
// 250 ms.
func TestThoseBehindALeaverGoSooner(t *testing.T) {
	p := algorithms.Policy{Limit: 10, Period: time.Second, Burst: 10}
	keep, leave := lane("keep", algorithms.LeakyBucketName), lane("leave", algorithms.LeakyBucketName)
	leave.Options.LeaveAbandoned = true
	cfg := newConfig(p, 2*time.Second, []LaneConfig{keep, leave},
		Client{Name: "a", Pattern: Bursts{[]Burst{{At: 0, Count: 4}}}},
		Client{Name: "b", Pattern: Bursts{[]Burst{{At: 50 * time.Millisecond, Count: 1}}}})
	cfg.Keys = []Key{{Name: "shared"}}
	cfg.Clients[0].Keys, cfg.Clients[1].Keys = []int{0}, []int{0}
	cfg.Backend = &Backend{Concurrency: 10, ServiceTime: time.Millisecond, Queue: 10, Timeout: 260 * time.Millisecond}
	_, rows := runRows(t, cfg)
	type fate struct {
		wait    time.Duration
		outcome Outcome
	}
	got := map[int]fate{}
	for _, row := range rows {
		if row.Client == 1 {
			got[row.Lane] = fate{row.QueueDelay, row.Outcome}
		}
	}
	if got[0].wait != 350*time.Millisecond || got[0].outcome == OutcomeServed {
		t.Errorf("kept: the fifth %+v; want a wait of 350ms, not served", got[0])
	}
	if got[1].wait != 250*time.Millisecond || got[1].outcome != OutcomeServed {
		t.Errorf("left: the fifth %+v; want served after 250ms", got[1])
	}
}
