package sim

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

// newConfig is a minimal configuration: one tier, one node, the given lanes and
// clients, clients' keys named after them.
func newConfig(p algorithms.Policy, duration time.Duration, lanes []LaneConfig, clients ...Client) *Config {
	cfg := &Config{Name: "test", Duration: duration, Tick: 10 * time.Millisecond, Seed: 1,
		Tiers: []Tier{{Name: "default", Policy: p.WithDefaults()}}, Nodes: []Node{{Name: "app"}}, Lanes: lanes}
	for _, c := range clients {
		if c.Stop == 0 {
			c.Stop = duration
		}
		if c.Deliveries == 0 {
			c.Deliveries = 1
		}
		if c.Retry.MaxAttempts == 0 {
			c.Retry.MaxAttempts = 1
		}
		if c.Cost.Fixed == 0 && c.Cost.Dist == CostFixed {
			c.Cost.Fixed = 1
		}
		if len(c.Keys) == 0 {
			cfg.Keys = append(cfg.Keys, Key{Name: c.Name})
			c.Keys = []int{len(cfg.Keys) - 1}
		}
		cfg.Clients = append(cfg.Clients, c)
	}
	return cfg
}

func lane(name string, algorithm algorithms.Name) LaneConfig {
	return LaneConfig{Name: name, Algorithm: algorithm, Backend: InMemory, WatchRetries: 20,
		Options: algorithms.Options{MonotonicTimestamp: true}}
}

// runRows runs cfg to its end and returns its metrics and every decision's row,
// in the order the row sink had them.
func runRows(t *testing.T, cfg *Config) ([]Metrics, []Row) {
	t.Helper()
	r, err := NewRun(cfg, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows []Row
	r.OnRows(func(rs []Row) error { rows = append(rows, rs...); return nil })
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	return r.Metrics(), rows
}
