package present

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

// Every branch of Verdict, each with the words it must and must not say.
func TestVerdictBranches(t *testing.T) {
	p := algorithms.Policy{Limit: 100, Period: time.Second, Burst: 50}
	cfg := func(algorithm algorithms.Name, keys int, backend bool) *sim.Config {
		c := &sim.Config{Tiers: []sim.Tier{{Name: "default", Policy: p}}, Lanes: []sim.LaneConfig{{Name: "L", Algorithm: algorithm}}}
		for i := 0; i < keys; i++ {
			c.Keys = append(c.Keys, sim.Key{Name: "k"})
		}
		if backend {
			c.Backend = &sim.Backend{Concurrency: 20, ServiceTime: 50 * time.Millisecond}
		}
		return c
	}
	base := sim.Metrics{Lane: "L", Offered: 10, Attempts: 10, Accepted: 10}
	with := func(f func(*sim.Metrics)) sim.Metrics { m := base; f(&m); return m }
	for _, tc := range []struct {
		name      string
		cfg       *sim.Config
		m         sim.Metrics
		want, not []string
	}{
		{"no limit with a backend", cfg("none", 1, true), with(func(m *sim.Metrics) { m.PeakAcceptedPerSecond = 700 }),
			[]string{"L: no limiter: up to 700 requests let through in one second, against a backend that serves 400 a second"}, []string{"policy", "contract"}},
		{"no limit alone", cfg("none", 1, false), with(func(m *sim.Metrics) { m.PeakAcceptedPerSecond = 7 }),
			[]string{"no limiter: up to 7 requests let through in one second"}, []string{"backend"}},
		{"nothing sent", cfg("token-bucket", 1, false), with(func(m *sim.Metrics) { m.Offered, m.Attempts, m.Accepted = 0, 0, 0 }),
			[]string{"L: nothing sent yet"}, []string{"accepted", "policy"}},
		{"nothing accepted", cfg("token-bucket", 1, false), with(func(m *sim.Metrics) { m.Accepted = 0 }),
			[]string{"L: accepted nothing"}, []string{"policy", "contract"}},
		{"fixed window at a boundary", cfg("fixed-window", 1, false), with(func(m *sim.Metrics) {
			m.PeakWindowRatio, m.PeakFirst, m.PeakLast, m.WindowPeakRatio = 2, 999*time.Millisecond, 1001*time.Millisecond, 1
		}), []string{"policy exceeded: 2.00× the limit in one 1s window, within 2.0ms from 999.0ms", "contract kept: at most its allowance in each of its own windows, the excess is two windows meeting at a boundary"}, []string{"broken", "for key"}},
		{"fixed window within", cfg("fixed-window", 1, false), with(func(m *sim.Metrics) { m.PeakWindowRatio, m.WindowPeakRatio = 0.5, 0.5 }),
			[]string{"policy held: at most 0.50× the limit in any 1s", "contract kept: at most its allowance in each of its own windows"}, []string{"boundary"}},
		{"fixed window broken", cfg("fixed-window", 1, false), with(func(m *sim.Metrics) { m.PeakWindowRatio, m.WindowPeakRatio = 1.5, 1.25 }),
			[]string{"contract broken: 1.25× its allowance in one of its own windows"}, []string{"kept"}},
		{"sliding log exact", cfg("sliding-log", 1, false), with(func(m *sim.Metrics) { m.PeakWindowRatio = 1 }),
			[]string{"policy held: at most 1.00× the limit", "contract kept: exact in every window"}, nil},
		{"sliding log broken, many keys, at one instant", cfg("sliding-log", 3, false), with(func(m *sim.Metrics) {
			m.PeakWindowRatio, m.PeakFirst, m.PeakLast, m.PeakKey = 1.16, 5*time.Second, 5*time.Second, "k2"
		}), []string{"1.16× the limit in one 1s window, at one instant, 5.000s for key k2", "contract broken: an exact window let 1.16× through"}, []string{"within 0"}},
		{"sliding log under skew", func() *sim.Config {
			c := cfg("sliding-log", 1, false)
			c.Nodes = []sim.Node{{Name: "a", Offset: -300 * time.Millisecond}, {Name: "b"}}
			return c
		}(), with(func(m *sim.Metrics) { m.PeakWindowRatio = 1.16 }),
			[]string{"exact on the timestamps it was given; on the true clock, the nodes' skew let 1.16× through"}, []string{"broken"}},
		{"at one instant, at the start", cfg("token-bucket", 3, false), with(func(m *sim.Metrics) {
			m.PeakWindowRatio, m.PeakFirst, m.PeakLast, m.PeakKey = 2, 0, 0, "k1"
		}), []string{"2.00× the limit in one 1s window, at one instant, 0s for key k1"}, []string{"instant, 0 for"}},
		{"within, from the start", cfg("fixed-window", 1, false), with(func(m *sim.Metrics) {
			m.PeakWindowRatio, m.PeakFirst, m.PeakLast, m.WindowPeakRatio = 2, 0, 2*time.Millisecond, 1
		}), []string{"within 2.0ms from 0s"}, []string{"from 0;", "from 0 "}},
		{"sliding counter off", cfg("sliding-counter", 1, false), with(func(m *sim.Metrics) { m.PeakWindowRatio = 1.04 }),
			[]string{"1.04× the limit", "an estimate by design: it assumes the previous window's requests were spread evenly, and was off here"}, []string{"1.0×"}},
		{"sliding counter within", cfg("sliding-counter", 1, false), with(func(m *sim.Metrics) { m.PeakWindowRatio = 0.9 }),
			[]string{"an estimate by design, within the limit here"}, nil},
		{"bucket over-grant", cfg("token-bucket", 1, false), with(func(m *sim.Metrics) { m.PeakWindowRatio, m.OverGrant, m.ExcessUnits = 2.8, 1.2918, 1355 }),
			[]string{"contract broken (over-grant): 1355 units past burst + rate × T in its worst span, 129.2% of what it allows"}, []string{"kept"}},
		{"bucket over-grant, many keys", cfg("token-bucket", 3, false), with(func(m *sim.Metrics) { m.PeakWindowRatio, m.OverGrant, m.ExcessUnits = 2.8, 0.06, 1864 }),
			[]string{"contract broken (over-grant): 1864 units past burst + rate × T in the keys' worst spans, 6% of what it allows"}, []string{"kept", "its worst span"}},
		{"on credit, by design", cfg("guava", 1, false), with(func(m *sim.Metrics) { m.PeakWindowRatio, m.OverGrant, m.ExcessUnits = 2, 0.091, 9 }),
			[]string{"over-grant on credit: 9 units past burst + rate × T in its worst span, 9.1% of what it allows; it grants a request whatever it costs when it owes nothing, and the requests after it pay"}, []string{"broken", "kept"}},
		{"bucket burst as designed", cfg("gcra", 1, false), with(func(m *sim.Metrics) { m.PeakWindowRatio = 5 }),
			[]string{"its burst on top of the rate: 5.00× the limit in one 1s window, at one instant, 0s;", "contract kept: its burst of 50 on top of the rate, as designed"}, []string{"over-grant", "exceeded", "instant, 0;"}},
		{"bucket over-grant says exceeded", cfg("token-bucket", 1, false), with(func(m *sim.Metrics) { m.PeakWindowRatio, m.OverGrant = 3, 0.5 }),
			[]string{"policy exceeded: 3.00×"}, []string{"its burst on top"}},
		{"bucket within", cfg("leaky-bucket", 1, false), with(func(m *sim.Metrics) { m.PeakWindowRatio = 0.3 }),
			[]string{"contract kept: at most burst + rate × T"}, []string{"+x", "%", "broken"}},
		{"consequences", cfg("token-bucket", 1, true), with(func(m *sim.Metrics) {
			m.StoreErrors, m.Conflicts, m.RetryAmplification, m.Errors, m.Wasted, m.BackendUtilization, m.QueueDelayP99, m.GaveUp =
				3, 4, 2.5, 9, 2, 0.655, 12*time.Millisecond, 5
		}), []string{"3 decisions made without Redis (on_error)", "4 decisions gave up after losing WATCH races", "retries made 2.50 attempts per request",
			"the backend failed 9 requests (busy 66% of the run, 2 served for clients that had left)", "queued work up to 12.0ms (p99)", "5 of 10 requests never succeeded"}, nil},
		{"timeouts in the limiter's queue", cfg("leaky-bucket", 1, true), with(func(m *sim.Metrics) { m.Errors, m.QueueTimeouts, m.BackendUtilization, m.Wasted = 9, 7, 0.5, 1 }),
			[]string{"9 requests failed, 7 of them timing out in the limiter's queue (the backend busy 50% of the run, 1 served for clients that had left)"}, []string{"the backend failed"}},
		{"backend failures without waste", cfg("token-bucket", 1, true), with(func(m *sim.Metrics) { m.Errors, m.BackendUtilization = 9, 0.5 }),
			[]string{"the backend failed 9 requests (busy 50% of the run)"}, []string{"clients that had left"}},
		{"few retries", cfg("token-bucket", 1, false), with(func(m *sim.Metrics) { m.RetryAmplification = 1.4 }),
			nil, []string{"retries"}},
		{"shards, false denials", sharded(cfg("token-bucket", 1, false), algorithms.PickRandom), with(func(m *sim.Metrics) {
			m.Attempts, m.FalseDenials, m.ShardImbalance, m.PeakWindowRatio = 1000, 71, 1.047, 0.99
		}), []string{"policy held", "contract kept", "8 shards, random: 71 false denials (7.1% of decisions): refused by a shard, accepted by one key under the whole limit with the same history; the busiest shard admitted 1.05× the mean"}, nil},
		{"shards, none false", sharded(cfg("gcra", 1, false), algorithms.PickTwoChoices), with(func(m *sim.Metrics) { m.ShardImbalance = 1.017 }),
			[]string{"8 shards, two choices: no false denials; the busiest shard admitted 1.02× the mean"}, []string{"false denials ("}},
		{"instances, uneven", func() *sim.Config {
			c := cfg("token-bucket", 1, false)
			c.Lanes[0].Instances, c.Lanes[0].Balance, c.Lanes[0].Weights = 4, sim.BalanceWeighted, []int{5, 1, 1, 1}
			return c
		}(), with(func(m *sim.Metrics) {
			m.Attempts, m.FalseDenials, m.ShardImbalance, m.PeakWindowRatio = 1000, 300, 2.5, 0.9
		}),
			[]string{"4 instances, weighted: 300 false denials (30% of decisions): refused by an instance", "the busiest instance admitted 2.50× the mean"}, []string{"shard"}},
		{"limits, wasted and starved", limits(cfg("token-bucket", 1, false), algorithms.InOrder), with(func(m *sim.Metrics) {
			m.GrantedUnits, m.WastedUnits, m.Starved, m.PeakWindowRatio = 32024, 11221, 90, 3
		}), []string{"L: 2 limits (requests, tokens), in order: 11221 of the 32024 units they granted were wasted on calls refused anyway (35%); 90 requests gave up having paid"},
			[]string{"policy", "contract"}},
		{"one limit, one key for all", func() *sim.Config {
			c := cfg("token-bucket", 1, false)
			global, _ := algorithms.ParseKeyTemplate("global")
			c.Lanes[0].Limits = []sim.LimitConfig{{Name: "global", Algorithm: "token-bucket", Template: global}}
			return c
		}(), with(func(m *sim.Metrics) { m.GrantedUnits = 10 }),
			[]string{"L: one limit (global), key \"global\""}, []string{"wasted", "1 limits", "in order"}},
		{"limits, nothing wasted", limits(cfg("token-bucket", 1, false), algorithms.AllOrNothing), with(func(m *sim.Metrics) { m.GrantedUnits = 500 }),
			[]string{"2 limits (requests, tokens), all or nothing: nothing they granted was wasted"}, []string{"gave up having paid", "policy"}},
	} {
		v := Verdict(tc.cfg, tc.m)
		for _, w := range tc.want {
			if !strings.Contains(v, w) {
				t.Errorf("%s: %q\n  lacks %q", tc.name, v, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(v, n) {
				t.Errorf("%s: %q\n  says %q", tc.name, v, n)
			}
		}
	}
}

// sharded makes cfg's lane 8 shards picked by pick.
func sharded(c *sim.Config, pick algorithms.ShardPick) *sim.Config {
	c.Lanes[0].Shards, c.Lanes[0].ShardPick = 8, pick
	return c
}

// limits makes cfg's lane hold requests to two limits, combined by combine.
func limits(c *sim.Config, combine algorithms.Combine) *sim.Config {
	c.Lanes[0].Limits = []sim.LimitConfig{{Name: "requests", Algorithm: "token-bucket"}, {Name: "tokens", Algorithm: "token-bucket"}}
	c.Lanes[0].Combine = combine
	return c
}
