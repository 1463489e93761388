package tune

import (
	"runtime"

	"ratelab/sim"
)

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// newSimRun runs cfg to its end in the simulator and returns its lanes' metrics.
func newSimRun(cfg *sim.Config) ([]sim.Metrics, error) {
	r, err := sim.NewRun(cfg)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		return nil, err
	}
	return r.Metrics(), nil
}
