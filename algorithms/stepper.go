package algorithms

import "time"

// Stepper is a limiter whose decision can be taken apart into the steps a
// non-atomic client takes: read the key's state, decide on the copy, write the
// result back. Between the read and the write another client may decide on the same
// state, which is how read-compute-write over-grants; the simulator's store model
// schedules the steps on the virtual clock to show it. Allow is the three steps
// taken at once.
type Stepper[S any] interface {
	Limiter
	// Read returns key's state, or the state of a key idle forever.
	Read(key string, now time.Duration) S
	// Decide decides on s without touching the limiter, returning the state to
	// write back.
	Decide(s S, key string, now time.Duration, cost int64) (Decision, S)
	// Write stores s as key's state, whatever is stored now.
	Write(key string, s S)
}

var (
	_ Stepper[TokenState] = (*TokenBucket)(nil)
	_ Stepper[GCRAState]  = (*GCRA)(nil)
)
