package sim

// measureHeld measures the state the lane holds now, at a tick's end, into
// Metrics.PeakStateBytes and PeakKeys: its limiters' (algorithms.Limiter's
// StateBytes and Keys: a key's name and the numbers kept for it, what a Redis
// port would store), or a deployed lane's deployment's, every instance's and
// its store's together (deploy.State: a key three instances hold counts three
// times, as three copies take three times the memory; a deployment evicts only
// past a budget, deployment.evict, so below it the idle keys a lane alone would
// drop are counted). The ideal a deployed lane is scored against is ratelab's
// yardstick, not the deployment's state, and is not counted.
func (l *Lane) measureHeld() {
	var bytes int64
	var keys int
	for _, lim := range l.limiters {
		bytes += lim.StateBytes()
		keys += lim.Keys()
	}
	for _, dep := range l.deployed.tiers {
		s := dep.State()
		bytes += s.Bytes
		keys += s.Keys
	}
	l.rec.m.PeakStateBytes = max(l.rec.m.PeakStateBytes, bytes)
	l.rec.m.PeakKeys = max(l.rec.m.PeakKeys, keys)
}
