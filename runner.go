package main

import (
	"ratelab/sim"
)

// liveRun is a sim.Run plus whatever it holds open (Redis connections).
type liveRun struct {
	*sim.Run
	close func() error
}

func (r *liveRun) Close() error {
	if r.close != nil {
		return r.close()
	}
	return nil
}

// newRun starts cfg; lanes with backend = "redis" need redisURL.
func newRun(cfg *sim.Config, redisURL string) (*liveRun, error) {
	for _, l := range cfg.Lanes {
		if l.Backend == "redis" {
			return nil, usagef("lane %q runs on Redis; the Redis mode is not built yet", l.Name)
		}
	}
	r, err := sim.NewRun(cfg)
	if err != nil {
		return nil, err
	}
	return &liveRun{Run: r}, nil
}
