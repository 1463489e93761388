package sim

// The helpers of the package's own tests, for the tests of package sim_test
// (which see the engine through its output: the CSV of package present).
var (
	NewConfig        = newConfig
	NewLane          = lane
	BurstConfig      = burstConfig
	RetryStormConfig = retryStormConfig
	StopAfter        = stopAfter
)
