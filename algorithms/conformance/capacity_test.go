package conformance

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// One rule for the largest cost: algorithms.Capacity says it, every limiter on
// every backend accepts it from an idle key and refuses one more for ever
// (reservations or not), and the scenario compiler refuses a client whose cost
// could pass it.
func TestCapacityIsTheOneRule(t *testing.T) {
	p := algorithms.Policy{Limit: 10, Period: time.Second, Burst: 4}
	for _, b := range backends(t) {
		for _, l := range propertyLanes() {
			if info, _ := algorithms.Lookup(l.algorithm); b.name == "redis" && info.Redis == nil {
				continue
			}
			if _, ok := waivers[l.label]["capacity"]; ok {
				continue // the product has no largest cost (TestWaiversAreNeeded)
			}
			if l.opts.MaxReserved > 0 {
				l.opts.MaxReserved = 1000
			}
			c := algorithms.Capacity(l.algorithm, p, l.opts)
			t.Run(b.name+"/"+l.label, func(t *testing.T) {
				ap := admitted(&l, p)
				lim, _ := b.build(t, l, ap)
				runSteps(t, lim, []step{
					{at: time.Hour, key: "a", cost: c + 1, allowed: false, retry: algorithms.Forever},
					{at: time.Hour, key: "b", cost: c, allowed: true},
					{at: time.Hour, key: "b", cost: c + 1, allowed: false, retry: algorithms.Forever},
				})
			})
		}
	}
}

func TestTheCompilerRefusesACostAboveTheBurstWithReservations(t *testing.T) {
	doc := func(cost int) string {
		return `[[scenario]]
name = "s"
duration = "2s"

[scenario.policy]
limit = 10
burst = 2

[[scenario.lane]]
name = "reserving"
algorithm = "token-bucket"
max_reserved = 1000

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 5
cost = ` + fmt.Sprint(cost) + "\n"
	}
	parse := func(cost int) error {
		fsys := fstest.MapFS{"s.toml": {Data: []byte(doc(cost))}}
		_, err := scenarios.Parse(scenarios.FSSource(fsys, "s.toml"), []byte(doc(cost)))
		return err
	}
	if err := parse(2); err != nil {
		t.Errorf("a cost of the burst (2) with max_reserved = 1000: %v", err)
	}
	want := `client "c": a request may cost 3, more than lane "reserving"'s burst of 2, so it could never be accepted`
	if err := parse(3); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a cost of 3 over a burst of 2 with max_reserved = 1000: error %v, want one containing %q", err, want)
	}
}
