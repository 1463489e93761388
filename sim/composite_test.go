package sim_test

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

// limitsLane is a lane holding requests to limits x and y (token buckets that
// never refill within the test: 1 per hour, bursts bx and by), combined by
// combine, a round trip of 1ms, client 1 taking them in the order y, x.
func limitsLane(combine algorithms.Combine, bx, by int64) sim.LaneConfig {
	l := sim.NewLane(combine.String(), "token-bucket")
	l.RoundTrip = time.Millisecond
	l.Combine = combine
	hour := func(burst int64) algorithms.Policy {
		return algorithms.Policy{Limit: 1, Period: time.Hour, Burst: burst}
	}
	l.Limits = []sim.LimitConfig{
		{Name: "x", Algorithm: "token-bucket", Options: algorithms.Options{MonotonicTimestamp: true}, Policy: hour(bx)},
		{Name: "y", Algorithm: "token-bucket", Options: algorithms.Options{MonotonicTimestamp: true}, Policy: hour(by)},
	}
	l.Orders = [][]int{nil, {1, 0}}
	return l
}

// Two requests at the same instant, a taking x then y, b taking y then x, one
// round trip apart per step: the decisions, when each lands, and what was wasted.
func TestCombineStepsOnTheVirtualClock(t *testing.T) {
	at0 := sim.Bursts{Bursts: []sim.Burst{{At: 0, Count: 1}}}
	for _, tc := range []struct {
		combine            algorithms.Combine
		bx, by             int64
		rows               []string // time_ms,client,allowed
		granted, wasted    int64
		starved, allocated int64
	}{
		// a takes x, b takes y at 0; at 1ms a is refused by y and b by x: both
		// spent one unit for nothing, and both gave up having paid
		{algorithms.InOrder, 1, 1, []string{"1.000,a,false", "1.000,b,false"}, 2, 2, 2, 0},
		// both check at 0 and see room; at 1ms a consumes x and y, b is refused by
		// y but x (burst 2) grants it one: wasted
		{algorithms.CheckThenConsume, 2, 1, []string{"1.000,a,true", "1.000,b,false"}, 3, 1, 1, 0},
		// one step: a takes both at 0, b is refused at 0 and spends nothing
		{algorithms.AllOrNothing, 1, 1, []string{"0.000,a,true", "0.000,b,false"}, 2, 0, 0, 0},
	} {
		cfg := sim.NewConfig(algorithms.Policy{Limit: 1, Period: time.Hour}, time.Second,
			[]sim.LaneConfig{limitsLane(tc.combine, tc.bx, tc.by)}, sim.Client{Name: "a", Pattern: at0}, sim.Client{Name: "b", Pattern: at0})
		cfg.Keys = []sim.Key{{Name: "k"}}
		cfg.Clients[0].Keys, cfg.Clients[1].Keys = []int{0}, []int{0}
		ms, rows, _ := runToEnd(t, cfg)
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(rows), "\n")[1:] {
			f := strings.Split(line, ",")
			got = append(got, f[0]+","+f[4]+","+f[10])
		}
		if strings.Join(got, " ") != strings.Join(tc.rows, " ") {
			t.Errorf("%s: rows %v, want %v", tc.combine, got, tc.rows)
		}
		m := ms[0]
		if m.GrantedUnits != tc.granted || m.WastedUnits != tc.wasted || m.Starved != tc.starved {
			t.Errorf("%s: granted %d wasted %d starved %d, want %d %d %d", tc.combine, m.GrantedUnits, m.WastedUnits, m.Starved, tc.granted, tc.wasted, tc.starved)
		}
		if m.PeakWindowRatio != 0 || m.OverGrant != 0 {
			t.Errorf("%s: peak %g, over-grant %g measured for a lane of several limits", tc.combine, m.PeakWindowRatio, m.OverGrant)
		}
	}
}

// Two shards of one token each, two requests at one instant: two choices always
// find the shard with room; a random pick sometimes sends both to one shard, and
// the second is refused while the other shard had room — a false denial, counted.
func TestTwoChoicesFindTheRoomRandomMisses(t *testing.T) {
	twice := sim.Bursts{Bursts: []sim.Burst{{At: 0, Count: 2}}}
	falseSeen := false
	for seed := uint64(1); seed <= 24; seed++ {
		random, two := sim.NewLane("random", "token-bucket"), sim.NewLane("two", "token-bucket")
		random.Shards, two.Shards, two.ShardPick = 2, 2, algorithms.PickTwoChoices
		cfg := sim.NewConfig(algorithms.Policy{Limit: 2, Period: time.Hour, Burst: 2}, time.Second, []sim.LaneConfig{random, two}, sim.Client{Name: "c", Pattern: twice})
		cfg.Seed = seed
		ms, _, _ := runToEnd(t, cfg)
		if ms[1].Accepted != 2 || ms[1].FalseDenials != 0 || ms[1].ShardImbalance != 1 {
			t.Errorf("seed %d: two choices accepted %d, false denials %d, imbalance %g; want 2, 0, 1", seed, ms[1].Accepted, ms[1].FalseDenials, ms[1].ShardImbalance)
		}
		switch ms[0].Accepted {
		case 2:
		case 1:
			falseSeen = true
			if ms[0].FalseDenials != 1 || ms[0].ShardImbalance != 2 {
				t.Errorf("seed %d: random refused one while the other shard had room: false denials %d (want 1), imbalance %g (want 2)", seed, ms[0].FalseDenials, ms[0].ShardImbalance)
			}
		default:
			t.Errorf("seed %d: random accepted %d", seed, ms[0].Accepted)
		}
	}
	if !falseSeen {
		t.Error("in 24 seeds a random pick never sent both requests to one shard")
	}
}

// Neither of the two shards looked at has room: refused at once, with the earlier
// of their retry times; when the shard not looked at still had room, that is a
// false denial.
func TestTwoChoicesRefuseWithTheEarlierRetry(t *testing.T) {
	// 5 per 10s, burst 3, in 3 shards: limits 2, 2 and 1, a token each, so any two
	// shards include one that refills in 5s
	l := sim.NewLane("two", "token-bucket")
	l.Shards, l.ShardPick = 3, algorithms.PickTwoChoices
	p := algorithms.Policy{Limit: 5, Period: 10 * time.Second, Burst: 3}
	seen := map[int64]bool{}
	for seed := uint64(1); seed <= 16; seed++ {
		cfg := sim.NewConfig(p, time.Second, []sim.LaneConfig{l}, sim.Client{Name: "c", Pattern: sim.Bursts{Bursts: []sim.Burst{{At: 0, Count: 4}}}})
		cfg.Seed = seed
		ms, rows, _ := runToEnd(t, cfg)
		var accepted, falseDenials int64
		for _, line := range strings.Split(strings.TrimSpace(rows), "\n")[1:] {
			switch {
			case strings.Contains(line, ",true,"):
				accepted++
			case !strings.HasSuffix(contractCells(line), ",false,0,5000.000"):
				t.Errorf("seed %d: a refusal not told the earlier retry, 5s: %s", seed, line)
			case accepted < 3:
				falseDenials++ // a shard not looked at still had its token
			}
		}
		if ms[0].FalseDenials != falseDenials || ms[0].Accepted != accepted {
			t.Errorf("seed %d: %d false denials and %d accepted, want %d and %d\n%s", seed, ms[0].FalseDenials, ms[0].Accepted, falseDenials, accepted, rows)
		}
		seen[accepted] = true
	}
	if !seen[3] || !seen[2] {
		t.Errorf("16 seeds filled the three shards %v times: want both all three and a miss", seen)
	}
}
