package conformance

import (
	"fmt"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/realserver"
)

// haproxyCase is one stick-table limit and the traffic sent to it.
type haproxyCase struct {
	name  string
	limit realserver.HAProxyLimit
	load  realserver.Load
	// lockedOut is a key the case sends faster than the limit, which must end
	// locked out (counted: every request of its last second denied) or not
	// (not counted: it keeps getting some through).
	lockedOut string
}

var haproxyCases = []haproxyCase{
	{
		// key a at ~50/s and b at ~25/s, over 20 a second: denials counted,
		// they never get through again; c, d, e under it
		name:  "1s, denied counted",
		limit: realserver.HAProxyLimit{Period: time.Second, Threshold: 20, CountDenied: true, DenyStatus: 429},
		load: realserver.Load{Seed: 21, Senders: 6, Requests: 1200, Rate: 20, Deadline: 8 * time.Second,
			Keys: []string{"a", "b", "c", "d", "e"}, Weights: []int{8, 4, 2, 1, 1}},
		lockedOut: "a",
	},
	{
		name:  "1s, denied not counted",
		limit: realserver.HAProxyLimit{Period: time.Second, Threshold: 20, DenyStatus: 429},
		load: realserver.Load{Seed: 22, Senders: 6, Requests: 1200, Rate: 20, Deadline: 8 * time.Second,
			Keys: []string{"a", "b", "c", "d", "e"}, Weights: []int{8, 4, 2, 1, 1}},
		lockedOut: "a",
	},
	{
		// a 10 s period over 12 s: one rotation, the previous period weighed
		// over the next; keys c and d are sparse enough that their entries
		// expire (2 s) between requests and start again from nothing
		name:  "10s, denied counted, expire 2s",
		limit: realserver.HAProxyLimit{Period: 10 * time.Second, Threshold: 60, CountDenied: true, Expire: 2 * time.Second, DenyStatus: 429},
		load: realserver.Load{Seed: 23, Senders: 4, Requests: 1000, Rate: 12, Deadline: 12 * time.Second,
			Keys: []string{"a", "b", "c", "d"}, Weights: []int{60, 30, 1, 1}},
		lockedOut: "a",
	},
}

// haproxyLane is the haproxy lane configured as l is: Limit is N of "gt N" (or,
// denials not counted, of "ge N"), over http_req_rate's period.
func haproxyLane(t *testing.T, l realserver.HAProxyLimit) (algorithms.Limiter, algorithms.Options) {
	t.Helper()
	p := algorithms.Policy{Limit: l.Threshold, Period: l.Period}
	o := algorithms.Options{Expire: l.Expire, DenyStatus: l.DenyStatus, HAProxyVersion: "2.6.12", TrackSC: algorithms.TrackBeforeDeny}
	if !l.CountDenied {
		o.TrackSC = algorithms.TrackAfterDeny
	}
	if o.Expire == 0 {
		o.Expire = 30 * time.Second // what realserver writes when none is given
	}
	if err := p.Validate(1); err != nil {
		t.Fatal(err)
	}
	lane, err := algorithms.New(algorithms.HAProxyName, p, o)
	if err != nil {
		t.Fatal(err)
	}
	return lane, o
}

// TestHAProxyLaneAgainstHAProxy runs each case on the real HAProxy and replays
// what it decided through the haproxy lane: every request's status, and the
// rate the deny read, as the lane's Remaining (the limit less the rate after
// the request) says it.
func TestHAProxyLaneAgainstHAProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("sends traffic to a real HAProxy for about 30 s; run without -short")
	}
	realserver.Need(t, "haproxy")
	for _, c := range haproxyCases {
		t.Run(c.name, func(t *testing.T) {
			h := realserver.StartHAProxy(t, c.limit)
			resps := drive(t, h.Base(), c.load)
			reqs, err := h.Requests(realserver.IDs(resps))
			if err != nil {
				t.Fatalf("reading haproxy's log: %v\nhaproxy.cfg:\n%s", err, h.Config())
			}
			h.Stop()
			lane, opts := haproxyLane(t, c.limit)
			info := algorithms.MustLookup(algorithms.HAProxyName)

			// the origin on an even millisecond of haproxy's clock: a period's
			// start is rounded down to even (curr_tick's lock bit)
			origin := reqs[0].Arrival - reqs[0].Arrival%(2*time.Millisecond)
			list := make([]served, len(reqs))
			words := make([]string, len(reqs))
			for i, r := range reqs {
				words[i] = fmt.Sprint(r.Status)
				// the rate after the request: the deny read it after counting
				// it, or (not counted) before, and a request let through adds
				// one within its millisecond
				after := r.Rate
				if !c.limit.CountDenied && r.Status != c.limit.DenyStatus {
					after++
				}
				remaining := float64(max(0, c.limit.Threshold-after))
				list[i] = served{id: r.ID, key: r.Key, at: r.Arrival - origin,
					did: fmt.Sprintf("answered %d, the deny reading a rate of %d", r.Status, r.Rate),
					agrees: func(d algorithms.Decision) (bool, string) {
						code, _ := info.Status(d, opts)
						return code == r.Status && d.Remaining == remaining, fmt.Sprintf("says %d with %g remaining (want %g)", code, d.Remaining, remaining)
					}}
			}
			out := replayServed(lane, list)
			out.report(t, fmt.Sprintf("%s (http_req_rate(%s), threshold %d)", c.name, c.limit.Period, c.limit.Threshold))
			t.Logf("haproxy: %s", countWords(words))
			logAcceptDates(t, reqs)
			checkLockOut(t, c, reqs)
		})
	}
}

// checkLockOut checks the key sent faster than the limit is locked out in the
// last second of the case when denials are counted, and is not when they are
// not (HAProxy lets it through as the rate falls below the limit).
func checkLockOut(t *testing.T, c haproxyCase, reqs []realserver.HAProxyRequest) {
	t.Helper()
	end := reqs[len(reqs)-1].Arrival
	sent, through := 0, 0
	for _, r := range reqs {
		if r.Key == c.lockedOut && end-r.Arrival < time.Second {
			sent++
			if r.Status != c.limit.DenyStatus {
				through++
			}
		}
	}
	t.Logf("key %s in the last second: %d of %d let through", c.lockedOut, through, sent)
	switch {
	case sent == 0:
		t.Errorf("key %s sent nothing in the last second", c.lockedOut)
	case c.limit.CountDenied && through > 0:
		t.Errorf("key %s got %d of %d through in the last second; denials counted, it should be locked out", c.lockedOut, through, sent)
	case !c.limit.CountDenied && through == 0:
		t.Errorf("key %s got nothing through in the last second; denials not counted, it should get some", c.lockedOut)
	}
}

// logAcceptDates logs how far the log's accept date (%Ts.%ms) is from the date
// the rules ran at: on a keep-alive connection it is when the previous request
// ended (h1_detach resets it), so it is no arrival to replay.
func logAcceptDates(t *testing.T, reqs []realserver.HAProxyRequest) {
	t.Helper()
	off, most := 0, time.Duration(0)
	for _, r := range reqs {
		if d := r.Arrival - time.Duration(r.AcceptMillis)*time.Millisecond; d != 0 {
			off++
			most = max(most, d)
		}
	}
	t.Logf("the accept date (%%ms) is not the millisecond the rules ran at for %d of %d requests (up to %s before)", off, len(reqs), most)
}
