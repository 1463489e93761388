package sim_test

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/deploy"
	"ratelab/sim"
)

// BenchmarkReplayDeployed replays 1,000,000 offered requests over 1,000 keys
// through a token bucket in one lane and through the same bucket deployed on
// 64 instances (each protocol ratelab has for any algorithm), both in every
// iteration, and reports each one's decisions per CPU-second and the deployed
// lane's cost per decision over the single lane's (cost-ratio): the deployment
// and its ideal, scored on every decision, against one limiter.
func BenchmarkReplayDeployed(b *testing.B) {
	for _, proto := range []deploy.Protocol{deploy.Local, deploy.Share, deploy.Central} {
		b.Run(proto.String()+"/instances=64", func(b *testing.B) {
			one := func() *sim.Config { return deployedConfig(nil) }
			many := func() *sim.Config {
				return deployedConfig(&sim.DeployConfig{On: true, Sync: proto, Most: 64, Latency: time.Millisecond})
			}
			var oneCPU, manyCPU time.Duration
			var oneN, manyN int64
			for i := 0; i < b.N; i++ {
				n, cpu := replayOnce(b, one())
				oneN, oneCPU = oneN+n, oneCPU+cpu
				n, cpu = replayOnce(b, many())
				manyN, manyCPU = manyN+n, manyCPU+cpu
			}
			b.ReportMetric(float64(oneN)/oneCPU.Seconds(), "one-decisions/cpu-s")
			b.ReportMetric(float64(manyN)/manyCPU.Seconds(), "deployed-decisions/cpu-s")
			b.ReportMetric((manyCPU.Seconds()/float64(manyN))/(oneCPU.Seconds()/float64(oneN)), "cost-ratio")
		})
	}
}

// deployedConfig is replayConfig's traffic (1,000,000 requests, 1,000 keys)
// through one token-bucket lane, deployed as d says when d is not nil.
func deployedConfig(d *sim.DeployConfig) *sim.Config {
	cfg := replayConfig(1_000_000, 1000)
	lane := sim.NewLane("token-bucket", algorithms.TokenBucketName)
	if d != nil {
		lane.Instances, lane.Deploy = d.Most, *d
	}
	cfg.Lanes = []sim.LaneConfig{lane}
	return cfg
}

// replayOnce runs cfg to its end and returns its decisions and the CPU time
// the run took.
func replayOnce(b *testing.B, cfg *sim.Config) (int64, time.Duration) {
	b.Helper()
	cpu0 := cpuTime()
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		b.Fatal(err)
	}
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		b.Fatal(err)
	}
	n := r.Decisions()
	r.Close()
	return n, cpuTime() - cpu0
}
