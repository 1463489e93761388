package gubernatorcheck

import (
	"math/rand/v2"
	"testing"
	"time"

	guber "github.com/gubernator-io/gubernator/v2"

	"ratelab/algorithms"
	"ratelab/deploy"
)

// syncWait is GlobalSyncWait as cluster.StartWith sets it.
const syncWait = 50 * time.Millisecond

// model is ratelab's GLOBAL over the cluster's peers (their addresses make its
// ring), with the cluster's sync wait and no link delay.
func model(t *testing.T, addrs []string, name string, limit int64, duration time.Duration) *deploy.Deployment {
	t.Helper()
	d, err := deploy.New(deploy.Config{Protocol: deploy.GubernatorGlobal, Instances: len(addrs), SyncWait: syncWait, Name: name, Peers: addrs,
		New: func() (algorithms.Limiter, error) {
			return algorithms.NewGubernator(algorithms.Policy{Limit: limit, Period: duration}), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// step is hits sent to a peer, after a pause.
type step struct {
	pause time.Duration
	peer  int // an index into owner-first order: 0 the owner, 1.. the others
	hits  int64
}

// Where the timing is deterministic — the hits of a phase sent within a few
// milliseconds, phases apart by several sync waits — the real cluster answers
// each request as the model does: status and remaining, step by step (the
// shapes of Gubernator's own functional tests of GLOBAL).
func TestGlobalDecidesAsTheCluster(t *testing.T) {
	const settle = 6 * syncWait
	for _, c := range []struct {
		name  string
		limit int64
		steps []step
	}{
		{"global-rate-limits", 5, []step{{0, 1, 1}, {0, 1, 2}, {settle, 2, 0}, {0, 3, 0}, {0, 3, 2}, {settle, 2, 1}}},
		{"load-balancing", 2, []step{{0, 0, 1}, {0, 1, 1}, {settle, 0, 1}, {0, 1, 1}, {0, 0, 1}}},
		{"peer-over-limit", 2, []step{{0, 1, 1}, {0, 1, 1}, {settle, 1, 1}, {settle, 1, 0}}},
		{"behavior", 1000, []step{{0, 2, 1}, {0, 2, 1}, {0, 2, 1}, {settle, 0, 0}, {0, 1, 0}, {0, 3, 0}, {0, 2, 0}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := model(t, addrs, c.name, c.limit, time.Minute)
			order := ownerFirst(addrs, c.name+"_k")
			var at time.Duration
			for i, s := range c.steps {
				if s.pause > 0 {
					time.Sleep(s.pause)
					at += s.pause
				}
				peer := order[s.peer]
				real := hit(t, clients[peer], c.name, "k", s.hits, c.limit, time.Minute)
				want, _ := d.Decide(peer, "k", at, s.hits)
				under := real.Status == guber.Status_UNDER_LIMIT
				if under != want.Allowed || real.Remaining != int64(want.Remaining) {
					t.Errorf("step %d: %d hits at peer %d: the cluster answers %s remaining %d; the model under=%v remaining %v", i, s.hits, s.peer, real.Status, real.Remaining, want.Allowed, want.Remaining)
				}
			}
		})
	}
}

// ownerFirst is the peers' indexes, the owner of hashKey first.
func ownerFirst(addrs []string, hashKey string) []int {
	owner := deploy.GubernatorOwner(addrs, hashKey)
	out := []int{}
	for i, a := range addrs {
		if a == owner {
			out = append([]int{i}, out...)
		} else {
			out = append(out, i)
		}
	}
	return out
}

// On traffic whose timing is the wall clock's, the model fed the same sends,
// at the same peers and offsets, admits as many as the real cluster, within
// the arrivals of one span of the bound (2w + 6d, d the loopback's one-way
// delay taken as 10 ms, with 20 ms more for the scheduler); and the cluster
// keeps the bound: in each of its windows at most the limit and the arrivals
// of one span.
func TestGlobalAdmitsAsTheModelOnTheCluster(t *testing.T) {
	const (
		limit    = 40
		duration = 2 * time.Second
		rate     = 150.0 // a second, over the peers
		run      = 3 * duration
	)
	span := 2*syncWait + 6*10*time.Millisecond + 20*time.Millisecond
	r := rand.New(rand.NewPCG(1, 2))
	start := time.Now()
	d := model(t, addrs, "bound", limit, duration)
	var sends, real, modelled int
	for next := time.Duration(0); next < run; next += time.Duration(r.ExpFloat64() / rate * float64(time.Second)) {
		if wait := next - time.Since(start); wait > 0 {
			time.Sleep(wait)
		}
		peer := r.IntN(len(clients))
		at := time.Since(start)
		if hit(t, clients[peer], "bound", "k", 1, limit, duration).Status == guber.Status_UNDER_LIMIT {
			real++
		}
		if dec, _ := d.Decide(peer, "k", at, 1); dec.Allowed {
			modelled++
		}
		sends++
	}
	inSpan := int(rate*span.Seconds()) + 1
	windows := int(run/duration) + 1 // windows start at a first hit, so a run may touch one more
	t.Logf("%d sends over %s to %d peers: the cluster admitted %d, the model %d (a span of %s holds about %d arrivals)", sends, run, len(addrs), real, modelled, span, inSpan)
	if diff := real - modelled; diff > inSpan || diff < -inSpan {
		t.Errorf("the cluster admitted %d, the model %d: further apart than one span's arrivals (%d)", real, modelled, inSpan)
	}
	if most := windows * (limit + inSpan); real > most {
		t.Errorf("the cluster admitted %d over %d windows of %d: more than the limit and one span's arrivals in each (%d)", real, windows, limit, most)
	}
}
