package scenarios

import (
	"strings"
	"testing"

	"ratelab/deploy"
	"ratelab/sim"
)

// A deployment's keys are refused where they do not apply, naming the fix;
// a product's lane takes its product's own protocols only.
func TestDeploymentKeysRefusedWhereTheyDoNotApply(t *testing.T) {
	lane := func(keys string) string { return minimal + "[[scenario.lane]]\n" + keys }
	for _, tc := range []struct{ name, doc, want string }{
		{"sync without instances", lane("algorithm = \"gcra\"\nsync = \"local\"\n"), `a deployment needs instances = N`},
		{"link latency without sync", lane("algorithm = \"gcra\"\ninstances = 2\nlink_latency = \"1ms\"\n"), `link_latency applies to a deployment; add sync = "local"`},
		{"hash without sync", lane("algorithm = \"gcra\"\ninstances = 2\nbalance = \"hash\"\n"), `balance = "hash" applies to a deployment`},
		{"kong-sync without a wait", lane("algorithm = \"kong\"\nkong_policy = \"redis\"\nperiod = \"1m\"\ninstances = 2\nsync = \"kong-sync\"\n"), `sync = "kong-sync" sends what each instance counted every sync_wait, which is missing`},
		{"kong-sync on kong's local policy", lane("algorithm = \"kong\"\nperiod = \"1m\"\ninstances = 2\nsync = \"kong-sync\"\nsync_wait = \"1s\"\n"), `sync = "kong-sync" is not how kong's lane, with these options, shares a limit across instances: use "local"`},
		{"gubernator on a token bucket", lane("algorithm = \"token-bucket\"\ninstances = 2\nsync = \"gubernator-global\"\nsync_wait = \"100ms\"\n"), `is not how a lane of token-bucket, which is no product's, shares a limit across instances: use "local" or "share" or "central"`},
		{"gubernator on a fixed window", lane("algorithm = \"fixed-window\"\ninstances = 2\nsync = \"gubernator-global\"\nsync_wait = \"100ms\"\n"), `use "local" or "share" or "central" or "replica-reads"`},
		{"a partition of an instance added later", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"local\"\n") + "[[scenario.change]]\nat = \"1s\"\nlane = \"gcra\"\npartition = [3]\n[[scenario.change]]\nat = \"1.5s\"\nlane = \"gcra\"\ninstances = 3\n", `which runs 2 instances then (an instance added later joins the side not cut off)`},
		{"a restart of the membership the same change makes", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"local\"\n") + "[[scenario.change]]\nat = \"1s\"\nlane = \"gcra\"\ninstances = 1\nrestart = [2]\n", `replaces instance 2 of lane "gcra", which runs 1 instance then`},
		{"too many servers with a table each", lane("algorithm = \"haproxy\"\ninstances = 101\nsync = \"haproxy-peers-sum\"\n"), `use at most 100 instances`},
		{"a jitter without a deployment", lane("algorithm = \"gcra\"\nlink_jitter = \"1ms\"\n"), `add sync = "haproxy-peers", "haproxy-peers-sum" or "gubernator-global"`},
		{"sync wait on central", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"central\"\nsync_wait = \"1s\"\n"), `sync = "central" sends nothing periodically; remove sync_wait`},
		{"per_instance on a deployment", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"local\"\nper_instance = \"share\"\n"), `a deployment's protocol says what each instance holds`},
		{"weighted deployment scaled", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"local\"\nbalance = \"weighted\"\nweights = [1, 2]\n") + "[[scenario.change]]\nat = \"1s\"\nlane = \"gcra\"\ninstances = 3\n", `is balanced by weights, one per instance: its membership cannot change`},
		{"weighted deployment without its weights", lane("algorithm = \"gcra\"\ninstances = 3\nsync = \"local\"\nbalance = \"weighted\"\nweights = [1, 2]\n"), `needs weights, one number per instance (3; got 2)`},
		{"deployment on redis", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"local\"\nbackend = \"redis\"\n"), `a deployment is modelled in memory`},
		{"misspelt sync", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"centrall\"\n"), `did you mean "central"?`},
		{"scale a lane that is no deployment", lane("algorithm = \"gcra\"\n") + "[[scenario.change]]\nat = \"1s\"\nlane = \"gcra\"\ninstances = 3\n", `lane "gcra" is not a deployment`},
		{"kong-sync with a link latency", lane("algorithm = \"kong\"\nkong_policy = \"redis\"\nperiod = \"1m\"\ninstances = 2\nsync = \"kong-sync\"\nsync_wait = \"1s\"\nlink_latency = \"1ms\"\n"), `two delays in one lane ratelab does not model yet; remove link_latency`},
		{"a sync wait under a millisecond", lane("algorithm = \"gubernator\"\ninstances = 2\nsync = \"gubernator-global\"\nsync_wait = \"1ns\"\n"), `give one from 1ms`},
		{"a deployment among tiers", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"local\"\n") + "[[scenario.tier]]\nname = \"t\"\nlimit = 5\n", `a deployment is scored against one ideal of one policy; this scenario has 2 tiers`},
		{"too many copies", strings.Replace(lane("algorithm = \"gubernator\"\ninstances = 1000\nsync = \"gubernator-global\"\nsync_wait = \"100ms\"\n"), "rate = 5", "rate = 5\nkeys = 3000", 1), `(1000 copies a key on 1000 instances): × 3000 keys is 3000000 copies`},
		{"a deployment's figure on a plain lane", lane("algorithm = \"gcra\"\n") + "[[scenario.claim]]\nid = \"x\"\nsays = \"s\"\nlane = \"gcra\"\nmetric = \"overshoot_window_units\"\nop = \"==\"\nvalue = 0\n", `overshoot_window_units is a deployment's figure against its ideal; lane "gcra" is not a deployment`},
		{"replica reads without a lag", lane("algorithm = \"fixed-window\"\ninstances = 2\nsync = \"replica-reads\"\n"), `add replica_lag, how late the replica applies a write`},
		{"replica reads of a bucket", lane("algorithm = \"token-bucket\"\ninstances = 2\nsync = \"replica-reads\"\nreplica_lag = \"10ms\"\n"), `token-bucket keeps no count a write can add to; use fixed-window or sliding-counter`},
		{"replica reads with rollover", lane("algorithm = \"fixed-window\"\nrollover = 5\ninstances = 2\nsync = \"replica-reads\"\nreplica_lag = \"10ms\"\n"), `counts past the limit, which a rollover would carry`},
		{"a replica for local instances", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"local\"\nreplica_lag = \"10ms\"\n"), `replica_lag is the store's replica's lag; sync = "local" has no store replica`},
		{"a replica without a deployment", lane("algorithm = \"gcra\"\nreplica_lag = \"10ms\"\n"), `replica_lag applies to a deployment`},
		{"a negative lag", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"central\"\nreplica_lag = \"-1s\"\n"), `replica_lag must be from 0`},
		{"a partition of a plain lane", lane("algorithm = \"gcra\"\n") + "[[scenario.change]]\nat = \"1s\"\nlane = \"gcra\"\npartition = [1]\n", `lane "gcra" is not a deployment; give it sync = "local" (or another protocol) to change its membership or partition it`},
		{"a partition of instance 0", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"local\"\n") + "[[scenario.change]]\nat = \"1s\"\nlane = \"gcra\"\npartition = [0]\n", `numbered from 1`},
		{"a partition beyond the lane", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"local\"\n") + "[[scenario.change]]\nat = \"1s\"\nlane = \"gcra\"\npartition = [3]\n", `cuts off instance 3 of lane "gcra", which runs 2 instances then`},
		{"a partition twice the same", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"local\"\n") + "[[scenario.change]]\nat = \"1s\"\nlane = \"gcra\"\npartition = [1, 1]\n", `partition lists instance 1 twice; list each once`},
		{"jitter on a store's calls", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"central\"\nlink_jitter = \"1ms\"\n"), `link_jitter delays the messages between instances; sync = "central" sends none`},
		{"jitter without a deployment", lane("algorithm = \"gcra\"\nlink_jitter = \"1ms\"\n"), `link_jitter applies to a deployment`},
		{"a change of a lane with nothing to change", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"local\"\n") + "[[scenario.change]]\nat = \"1s\"\nlane = \"gcra\"\n", `needs both lane = "…" (a deployed lane) and instances = N, partition = [instances cut off, from 1] or restart`},
		{"a restart beyond the membership then", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"local\"\n") + "[[scenario.change]]\nat = \"1s\"\nlane = \"gcra\"\nrestart = [3]\n[[scenario.change]]\nat = \"1.5s\"\nlane = \"gcra\"\ninstances = 3\n", `the restart at 1s replaces instance 3 of lane "gcra", which runs 2 instances then`},
		{"an empty restart", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"local\"\n") + "[[scenario.change]]\nat = \"1s\"\nlane = \"gcra\"\nrestart = []\n", `restart lists the instances replaced; it is empty`},
		{"scale to none", lane("algorithm = \"gcra\"\ninstances = 2\nsync = \"local\"\n") + "[[scenario.change]]\nat = \"1s\"\nlane = \"gcra\"\ninstances = 0\n", `instances must be from 1 to 1000 (got 0)`},
	} {
		_, err := parse(t, tc.doc, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got: %v\nwant: %s", tc.name, err, tc.want)
		}
	}
}

// --lanes that leaves out a lane a change scales leaves the change out too.
func TestLanesLeaveOutTheirScaleChanges(t *testing.T) {
	doc := minimal + "[[scenario.lane]]\nname = \"d\"\nalgorithm = \"gcra\"\ninstances = 2\nsync = \"local\"\n[[scenario.lane]]\nalgorithm = \"token-bucket\"\n" +
		"[[scenario.change]]\nat = \"1s\"\nlane = \"d\"\ninstances = 3\n"
	c, err := parse(t, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("s", Overrides{Lanes: []string{"token-bucket"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Lanes) != 1 || len(cfg.Inputs) != 0 {
		t.Errorf("%d lanes and inputs %+v, want the token bucket alone and no change", len(cfg.Lanes), cfg.Inputs)
	}
}

// A deployment compiles with its protocol, links and membership; a change of
// membership raises the most instances it holds.
func TestDeploymentCompiles(t *testing.T) {
	doc := minimal + "[[scenario.lane]]\nname = \"d\"\nalgorithm = \"gcra\"\ninstances = 2\nsync = \"share\"\nlink_latency = \"2ms\"\nmembership_delay = \"500ms\"\nbalance = \"hash\"\n" +
		"[[scenario.change]]\nat = \"1s\"\nlane = \"d\"\ninstances = 5\n"
	c, err := parse(t, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("s", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.Lanes[0]
	want := sim.DeployConfig{On: true, Sync: deploy.Share, Most: 5, Latency: 2e6, SeenAfter: 5e8}
	if l.Deploy != want || l.Instances != 2 || l.Balance != sim.BalanceHash {
		t.Errorf("lane: %+v, %d instances, balance %s; want %+v, 2, hash", l.Deploy, l.Instances, l.Balance, want)
	}
	if n := len(cfg.Inputs); n != 1 || cfg.Inputs[0].Kind != sim.InputScale || cfg.Inputs[0].Instances != 5 {
		t.Errorf("inputs %+v, want one scale to 5", cfg.Inputs)
	}
}
