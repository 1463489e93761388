package sim

import (
	"fmt"
	"testing"
	"time"

	"ratelab/algorithms"
)

// outageRows runs one request every 100 ms (ten a second) against lanes of 5 a
// second (burst 5), with the inputs given, and returns each lane's decisions as
// "time allowed outcome" per row, and the metrics.
func outageRows(t *testing.T, inputs []Input, lanes ...LaneConfig) ([]Metrics, map[string][]string) {
	t.Helper()
	p := algorithms.Policy{Limit: 5, Period: time.Second, Burst: 5}
	cfg := newConfig(p, 2*time.Second, lanes, Client{Name: "c", Pattern: Constant{Rate: 10}})
	cfg.Inputs = inputs
	ms, rows := runRows(t, cfg)
	got := map[string][]string{}
	for _, r := range rows {
		name := cfg.Lanes[r.Lane].Name
		got[name] = append(got[name], fmt.Sprintf("%v %v %s", r.At, r.Allowed, r.Outcome))
	}
	return ms, got
}

// A store down from 0.5 s to 1.5 s: every decision in between is on_error's —
// closed refuses, open allows, each a store error — and the state is as it was
// when the store answers again (nothing written while it was down).
func TestStoreDownAndUp(t *testing.T) {
	closed, open := lane("closed", algorithms.TokenBucketName), lane("open", algorithms.TokenBucketName)
	open.OnError = FailOpen
	ms, rows := outageRows(t, []Input{{At: 500 * time.Millisecond, Kind: InputStore, Store: StoreDown},
		{At: 1500 * time.Millisecond, Kind: InputStore, Store: StoreUp}}, closed, open)
	for _, tc := range []struct {
		lane string
		step int
		want string
	}{
		{"closed", 0, "0s true served"}, // constant: the k-th request at k/rate
		{"closed", 4, "400ms true served"},
		{"closed", 5, "500ms false store_error"}, // down at 500 ms: the change comes first
		{"closed", 14, "1.4s false store_error"},
		{"closed", 15, "1.5s true served"}, // up, the bucket as it was (2 tokens) and refilled since: full
		{"open", 5, "500ms true store_error"},
		{"open", 14, "1.4s true store_error"},
		{"open", 15, "1.5s true served"}, // the 10 it let through spent nothing: all 5 after are served
		{"open", 19, "1.9s true served"},
	} {
		got := rows[tc.lane]
		if tc.step >= len(got) || got[tc.step] != tc.want {
			t.Errorf("%s step %d: %v, want %s", tc.lane, tc.step, got, tc.want)
		}
	}
	for i, m := range ms {
		if m.StoreErrors != 10 {
			t.Errorf("lane %d: %d store errors, want 10 (the decisions from 500 ms to 1.4 s)", i, m.StoreErrors)
		}
	}
	if ms[0].Accepted != 5+5 || ms[1].Accepted != 5+10+5 {
		t.Errorf("accepted %d closed, %d open; want 10 (5 before, 5 after) and 20 (and the 10 of the outage)", ms[0].Accepted, ms[1].Accepted)
	}
}

// A flush at 1 s: the bucket spent at 0.5 s is full again at once, the sliding
// log's second empty.
func TestStoreFlushed(t *testing.T) {
	p := algorithms.Policy{Limit: 1, Period: time.Second, Burst: 5}
	for _, flush := range []bool{false, true} {
		var inputs []Input
		if flush {
			inputs = []Input{{At: time.Second, Kind: InputStore, Store: StoreFlushed}}
		}
		lanes := []LaneConfig{lane("token-bucket", algorithms.TokenBucketName), lane("sliding-log", algorithms.SlidingLogName), lane("fixed-window", algorithms.FixedWindowName)}
		cfg := newConfig(p, 2*time.Second, lanes, Client{Name: "c", Pattern: Bursts{[]Burst{{At: 500 * time.Millisecond, Count: 5}, {At: 1200 * time.Millisecond, Count: 5}}}})
		cfg.Inputs = inputs
		ms, _ := runRows(t, cfg)
		// without it, 0.7 s after the first burst the bucket holds 0.7 token
		// and the log's second is not over (the fixed window's is); with it,
		// both are new again
		want := []int64{5 + 0, 1 + 0, 1 + 1}
		if flush {
			want = []int64{5 + 5, 1 + 1, 1 + 1}
		}
		for i, m := range ms {
			if m.Accepted != want[i] {
				t.Errorf("flush %v: %s accepted %d, want %d", flush, m.Lane, m.Accepted, want[i])
			}
		}
	}
}

// A limiter's keys with a ttl: the lane's Memory store wraps them (algorithms.WithTTL).
func TestLaneTTL(t *testing.T) {
	p := algorithms.Policy{Limit: 1, Period: time.Minute, Burst: 5}
	plain, short := lane("plain", algorithms.TokenBucketName), lane("ttl", algorithms.TokenBucketName)
	short.TTL = 10 * time.Second
	cfg := newConfig(p, time.Minute, []LaneConfig{plain, short}, Client{Name: "c", Pattern: Bursts{[]Burst{{At: 0, Count: 5}, {At: 20 * time.Second, Count: 5}}}})
	ms, _ := runRows(t, cfg)
	if ms[0].Accepted != 5 || ms[1].Accepted != 10 {
		t.Errorf("accepted %d without a ttl, %d with 10 s; want 5 (a token a minute) and 10 (full again at 20 s)", ms[0].Accepted, ms[1].Accepted)
	}
}

// A WATCH read of a key before a flush fails to commit after it, as on Redis
// (deleting a key touches it), and reads again: two more round trips.
func TestFlushFailsAWatch(t *testing.T) {
	p := algorithms.Policy{Limit: 10, Period: time.Second}
	for _, tc := range []struct {
		flush bool
		calls int64
	}{{false, 4}, {true, 6}} {
		w := lane("watch", algorithms.TokenBucketName)
		w.Strategy, w.RoundTrip = algorithms.Watch, time.Millisecond
		// the key is written at 1 ms; the second request reads it at 10 ms and
		// commits at 11 ms, after a flush at 10.5 ms: a conflict, read again
		cfg := newConfig(p, time.Second, []LaneConfig{w}, Client{Name: "c", Pattern: Bursts{[]Burst{{At: 0, Count: 1}, {At: 10 * time.Millisecond, Count: 1}}}})
		if tc.flush {
			cfg.Inputs = []Input{{At: 10500 * time.Microsecond, Kind: InputStore, Store: StoreFlushed}}
		}
		ms, rows := runRows(t, cfg)
		if ms[0].StoreCalls != tc.calls || ms[0].Accepted != 2 || len(rows) != 2 {
			t.Errorf("flush %v: %d store calls, %d accepted, %d rows; want %d, 2, 2", tc.flush, ms[0].StoreCalls, ms[0].Accepted, len(rows), tc.calls)
		}
	}
}

// Composite lanes in an outage: one store error per decision, whatever the
// limiters it would have called; and a flush empties every part.
func TestOutageOfCompositeLanes(t *testing.T) {
	p := algorithms.Policy{Limit: 8, Period: time.Second, Burst: 8}
	sharded := lane("shards", algorithms.TokenBucketName)
	sharded.Shards, sharded.ShardPick = 4, algorithms.PickTwoChoices
	limits := lane("limits", algorithms.TokenBucketName)
	limits.Combine = algorithms.CheckThenConsume
	limits.RoundTrip = time.Millisecond
	global, _ := algorithms.ParseKeyTemplate("global")
	limits.Limits = []LimitConfig{{Name: "mine", Algorithm: algorithms.TokenBucketName, Policy: p}, {Name: "all", Algorithm: algorithms.GCRAName, Policy: p, Template: global}}
	cfg := newConfig(p, 2*time.Second, []LaneConfig{sharded, limits}, Client{Name: "c", Pattern: Constant{Rate: 20}})
	cfg.Inputs = []Input{{At: 500 * time.Millisecond, Kind: InputStore, Store: StoreDown}, {At: time.Second, Kind: InputStore, Store: StoreUp},
		{At: 1500 * time.Millisecond, Kind: InputStore, Store: StoreFlushed}}
	ms, _ := runRows(t, cfg)
	for _, m := range ms {
		if m.StoreErrors != 10 || m.Denied < 10 {
			t.Errorf("%s: %d store errors, %d denied; want 10 (the decisions from 500 ms to 950 ms), refused", m.Lane, m.StoreErrors, m.Denied)
		}
	}
}
