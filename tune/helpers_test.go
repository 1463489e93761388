package tune

import (
	"syscall"
	"time"

	"ratelab/sim"
)

// newSimRun runs cfg to its end in the simulator and returns its lanes' metrics.
func newSimRun(cfg *sim.Config) ([]sim.Metrics, error) {
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		return nil, err
	}
	return r.Metrics(), nil
}

// cpuTime is the CPU time (user and system) the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
