package realserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestNginxHarness starts nginx, sends a little traffic, and checks the log reads
// back: every answered request is logged once with the status its client got,
// in an order nginx's clock never goes back in (where the arrivals are exact),
// each delayed request served no sooner than its delay after its arrival.
func TestNginxHarness(t *testing.T) {
	load := Load{Seed: 1, Senders: 4, Requests: 200, Rate: 60, Keys: []string{"a", "b"}, Deadline: 5 * time.Second}
	var resps []Response
	_, reqs := RunNginx(t, NginxLimit{Rate: 50, Burst: 5, Delay: 2}, func(base string) []int64 {
		var err error
		if resps, err = Drive(context.Background(), base, load); err != nil {
			t.Fatal(err)
		}
		return IDs(resps)
	})
	checkHarness(t, resps, len(reqs), func(i int) (int64, int) { return reqs[i].ID, reqs[i].Status })
	counts := map[string]int{}
	derived := map[Derivation]int{}
	var last *NginxRequest
	for i, r := range reqs {
		counts[r.LimitStatus]++
		derived[r.Derived]++
		if r.Derived == ArrivalEstimated {
			continue
		}
		if last != nil && r.Arrival < last.Arrival {
			t.Errorf("request %d decided at %s after request %d at %s", r.ID, r.Arrival, last.ID, last.Arrival)
		}
		last = &reqs[i]
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
		load := Load{Seed: 2, Senders: 4, Requests: 240, Rate: 60, Keys: []string{"a", "b", "c"}, Weights: []int{1, 2, 6}, Deadline: 5 * time.Second}
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

// TestDeriveNginxArrivals reads a log written by hand: connection 1 starts at
// 1000 ms of nginx's clock, connection 2 at 1005; the wall clock reads the
// monotonic one, or one less (ε = 1). Connection 1's two requests, at wall 1010
// and 1019 for $connection_time 10 and 20, pin its start; a delayed request of
// connection 2, whose first byte came at wall 1011 (1011 or 1012 on nginx's
// clock) and whose 20 ms timer fired at 1031, was decided at 1011.
func TestDeriveNginxArrivals(t *testing.T) {
	limit := NginxLimit{Rate: 50, Burst: 5}
	errLine := func(conn, id int, what, excess string) string {
		return fmt.Sprintf(`2026/11/26 09:01:55 [warn] 7#7: *%d %s, excess: %s, by zone "z", client: 127.0.0.1, server: , request: "GET /f?k=a&id=%d HTTP/1.1", host: "127.0.0.1:1"`, conn, what, excess, id)
	}
	log := strings.Join([]string{
		"nginx: a notice of its own",
		"A 1.010 0.000 0.010 1 1 200 PASSED a 1",
		errLine(2, 3, "delaying request", "1.000"),
		"A 1.015 0.000 0.010 2 1 200 PASSED b 4",
		"A 1.019 0.000 0.020 1 2 200 PASSED b 2",
		"A 1.024 0.000 0.020 2 2 200 PASSED b 5",
		"A 1.031 0.020 0.026 2 3 200 DELAYED a 3",
		"A 1.032 0.000 0.032 1 3 200 PASSED b 6",
	}, "\n")
	reqs, err := ParseNginxLog(log, limit)
	if err != nil {
		t.Fatal(err)
	}
	if err := DeriveNginxArrivals(reqs); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id      int64
		arrival time.Duration
		derived Derivation
	}{
		{1, 1010 * time.Millisecond, ArrivalPinned},
		{3, 1011 * time.Millisecond, ArrivalBounded},
		{4, 1015 * time.Millisecond, ArrivalPinned},
		{2, 1020 * time.Millisecond, ArrivalPinned},
		{5, 1025 * time.Millisecond, ArrivalPinned},
		{6, 1032 * time.Millisecond, ArrivalPinned},
	}
	if len(reqs) != len(want) {
		t.Fatalf("%d requests read, want %d", len(reqs), len(want))
	}
	for i, w := range want {
		r := reqs[i]
		if r.ID != w.id || r.Arrival != w.arrival || r.Derived != w.derived {
			t.Errorf("request %d: id %d at %s (%s), want id %d at %s (%s)", i+1, r.ID, r.Arrival, r.Derived, w.id, w.arrival, w.derived)
		}
	}
	if r := reqs[1]; r.Delay != 20*time.Millisecond || r.Excess != 1000 || !r.ServedKnown || r.Served != 1031*time.Millisecond {
		t.Errorf("the delayed request: delay %s, excess %d, served %s (%v); want 20ms, 1000, 1.031s", r.Delay, r.Excess, r.Served, r.ServedKnown)
	}

	// two requests of one connection whose wall clock and $connection_time
	// disagree by two milliseconds: no start fits
	bad := strings.Replace(log, "A 1.019 0.000 0.020 1 2", "A 1.017 0.000 0.020 1 2", 1)
	reqs, err = ParseNginxLog(bad, limit)
	if err != nil {
		t.Fatal(err)
	}
	if err := DeriveNginxArrivals(reqs); err == nil || !strings.Contains(err.Error(), "connection 1") {
		t.Errorf("DeriveNginxArrivals on clocks two milliseconds apart = %v; want an error naming connection 1", err)
	}

	// a delayed request with no "delaying request" line
	if _, err := ParseNginxLog(strings.Replace(log, errLine(2, 3, "delaying request", "1.000"), "", 1), limit); err == nil {
		t.Error("ParseNginxLog took a DELAYED request limit_req logged nothing for")
	}
}

// TestParseHAProxyLog reads lines written by hand: the arrival is the date's
// millisecond, and two requests of one date are in the order of the rate they
// read.
func TestParseHAProxyLog(t *testing.T) {
	log := strings.Join([]string{
		"[NOTICE] haproxy's own line",
		"H 1000001500 5 200 a 7 1000.001 0",
		"H 1000001500 4 200 a 6 1000.001 0",
		"H 1000000999 3 429 b 5 999.990 9",
	}, "\n")
	reqs, err := ParseHAProxyLog(log)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range reqs {
		got = append(got, fmt.Sprintf("%d@%s/%d/%d", r.ID, r.Arrival, r.Rate, r.Status))
	}
	want := "5@16m40s/3/429 6@16m40.001s/4/200 7@16m40.001s/5/200"
	if strings.Join(got, " ") != want {
		t.Errorf("ParseHAProxyLog = %s, want %s", strings.Join(got, " "), want)
	}
	if _, err := ParseHAProxyLog("H 1 2 200 a"); err == nil {
		t.Error("ParseHAProxyLog took a line of 5 fields")
	}
}
