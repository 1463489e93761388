package present

import (
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

// newConfig is a minimal configuration: one tier, one node, the given lanes and
// clients, each client with a key of its name.
func newConfig(p algorithms.Policy, duration time.Duration, lanes []sim.LaneConfig, clients ...sim.Client) *sim.Config {
	cfg := &sim.Config{Name: "test", Duration: duration, Tick: 10 * time.Millisecond, Seed: 1,
		Tiers: []sim.Tier{{Name: "default", Policy: p.WithDefaults()}}, Nodes: []sim.Node{{Name: "app"}}, Lanes: lanes}
	for _, c := range clients {
		c.Stop, c.Deliveries, c.Retry.MaxAttempts, c.Cost.Fixed = duration, 1, 1, 1
		cfg.Keys = append(cfg.Keys, sim.Key{Name: c.Name})
		c.Keys = []int{len(cfg.Keys) - 1}
		cfg.Clients = append(cfg.Clients, c)
	}
	return cfg
}

// lane is a lane in memory of the algorithm, called name.
func lane(name string, algorithm algorithms.Name) sim.LaneConfig {
	return sim.LaneConfig{Name: name, Algorithm: algorithm, Backend: sim.InMemory, Options: algorithms.Options{MonotonicTimestamp: true}}
}
