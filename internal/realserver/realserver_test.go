package realserver

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestNginxHarness starts nginx, sends a little traffic, and checks the log reads
// back: every answered request is logged once with the status its client got,
// in an order nginx's clock never goes back in, each delayed request served no
// sooner than its delay after its arrival.
func TestNginxHarness(t *testing.T) {
	n := StartNginx(t, NginxLimit{Rate: 50, Burst: 5, Delay: 2})
	load := Load{Seed: 1, Senders: 4, Requests: 200, Rate: 60, Keys: []string{"a", "b"}, Deadline: 5 * time.Second}
	resps, err := Drive(context.Background(), n.Base(), load)
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := n.Requests(IDs(resps))
	if err != nil {
		t.Fatalf("%v\nconfig:\n%s", err, n.Config())
	}
	checkHarness(t, resps, len(reqs), func(i int) (int64, int) { return reqs[i].ID, reqs[i].Status })
	counts := map[string]int{}
	derived := map[Derivation]int{}
	for i, r := range reqs {
		counts[r.LimitStatus]++
		derived[r.Derived]++
		if i > 0 && r.Arrival < reqs[i-1].Arrival {
			t.Errorf("request %d decided at %s after request %d at %s", r.ID, r.Arrival, reqs[i-1].ID, reqs[i-1].Arrival)
		}
		if r.LimitStatus == "DELAYED" && r.ServedKnown && r.Served-r.Arrival < r.Delay {
			t.Errorf("request %d served %s after its arrival, before its delay of %s", r.ID, r.Served-r.Arrival, r.Delay)
		}
	}
	t.Logf("%d requests: %v; arrivals %d pinned, %d bounded, %d estimated", len(reqs), counts, derived[ArrivalPinned], derived[ArrivalBounded], derived[ArrivalEstimated])
	for _, s := range []string{"PASSED", "DELAYED", "REJECTED"} {
		if counts[s] == 0 {
			t.Errorf("no request %s: the load does not exercise the limit", s)
		}
	}
	if derived[ArrivalPinned] == 0 {
		t.Errorf("no arrival pinned")
	}
}

// checkHarness checks the server logged each answered request once, with the
// status its client got.
func checkHarness(t *testing.T, resps []Response, n int, logged func(i int) (id int64, status int)) {
	t.Helper()
	status := map[int64]int{}
	for _, r := range resps {
		status[r.ID] = r.Status
	}
	seen := map[int64]bool{}
	for i := range n {
		id, st := logged(i)
		if seen[id] {
			t.Errorf("request %d logged twice", id)
		}
		seen[id] = true
		if want, ok := status[id]; !ok {
			t.Errorf("request %d logged, never sent", id)
		} else if st != want {
			t.Errorf("request %d logged with status %d; its client got %d", id, st, want)
		}
	}
	if n != len(resps) {
		t.Errorf("%d requests logged, %d answered", n, len(resps))
	}
}

// TestHAProxyHarness starts haproxy, sends a little traffic, and checks the log
// reads back: every answered request logged once with its client's status, a
// denial exactly when the rate read is above the threshold, and lines in the
// order of the date the rules ran at.
func TestHAProxyHarness(t *testing.T) {
	for _, counted := range []bool{true, false} {
		l := HAProxyLimit{Period: time.Second, Threshold: 20, CountDenied: counted, DenyStatus: 429}
		h := StartHAProxy(t, l)
		load := Load{Seed: 2, Senders: 4, Requests: 400, Rate: 50, Keys: []string{"a", "b", "c"}, Weights: []int{1, 2, 6}, Deadline: 5 * time.Second}
		resps, err := Drive(context.Background(), h.Base(), load)
		if err != nil {
			t.Fatal(err)
		}
		reqs, err := h.Requests(IDs(resps))
		if err != nil {
			t.Fatalf("%v\nconfig:\n%s", err, h.Config())
		}
		checkHarness(t, resps, len(reqs), func(i int) (int64, int) { return reqs[i].ID, reqs[i].Status })
		denied, disorder := 0, 0
		for _, r := range reqs {
			if over := r.Rate > l.Threshold || !counted && r.Rate == l.Threshold; (r.Status == 429) != over {
				t.Errorf("request %d: status %d with rate %d, threshold %d", r.ID, r.Status, r.Rate, l.Threshold)
			}
			if r.Status == 429 {
				denied++
			}
		}
		prev := int64(0)
		for _, line := range strings.Split(h.Log(), "\n") {
			if f := strings.Fields(line); len(f) == 8 && f[0] == "H" {
				us, _ := strconv.ParseInt(f[1], 10, 64)
				if us < prev {
					disorder++
				}
				prev = max(prev, us)
			}
		}
		t.Logf("counted=%v: %d requests, %d denied; %d log lines before a date logged earlier", counted, len(reqs), denied, disorder)
		if denied == 0 || denied == len(reqs) {
			t.Errorf("%d of %d denied: the load does not exercise the limit", denied, len(reqs))
		}
		h.Stop()
	}
}
