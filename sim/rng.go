package sim

import (
	"math"
	"math/rand/v2"
)

// Random streams. Every random choice of a run comes from a PCG seeded from the
// run's seed and the stream's purpose and owner, so a client's arrivals, keys and
// costs are the same in every lane (they do not depend on decisions) and a run is
// the same every time.
const (
	streamTraffic  uint64 = 1 // a client's arrival times, keys and costs
	streamRetry    uint64 = 2 // a retry's jitter (see jitterStream)
	streamThrottle uint64 = 3 // an adaptive throttle's draw for an attempt
)

// newStream returns the random stream for purpose and owner under seed.
func newStream(seed, purpose uint64, owner int) *rand.Rand {
	return rand.New(rand.NewPCG(streamSeeds(seed, purpose, owner)))
}

// streamSeeds are the PCG's two seeds for purpose and owner under seed.
func streamSeeds(seed, purpose uint64, owner int) (uint64, uint64) {
	return splitmix(seed ^ purpose<<56), splitmix(uint64(owner) + purpose<<32)
}

// splitmix is SplitMix64's finaliser: it spreads nearby seeds far apart.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// keyPicker draws a client's keys: uniformly, or by Zipf's law (rank 1 the hottest).
type keyPicker struct {
	keys []int
	zipf *rand.Zipf
}

func newKeyPicker(r *rand.Rand, keys []int, s float64) keyPicker {
	p := keyPicker{keys: keys}
	if s > 1 && len(keys) > 1 {
		p.zipf = rand.NewZipf(r, s, 1, uint64(len(keys)-1))
	}
	return p
}

// pick returns a position in the client's keys.
func (p keyPicker) pick(r *rand.Rand) int {
	switch {
	case len(p.keys) == 1:
		return 0
	case p.zipf != nil:
		return int(p.zipf.Uint64())
	}
	return r.IntN(len(p.keys))
}

// draw returns a cost from c.
func (c Cost) draw(r *rand.Rand) int64 {
	switch c.Dist {
	case CostUniform:
		return c.Min + r.Int64N(c.Max-c.Min+1)
	case CostLogNormal:
		v := math.Round(c.Median * math.Exp(c.Sigma*r.NormFloat64()))
		switch {
		case !(v >= float64(c.Min)): // below, or not a number
			v = float64(c.Min)
		case v > float64(c.Max):
			v = float64(c.Max)
		}
		return int64(v)
	}
	return c.Fixed
}
