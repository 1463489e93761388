package scenarios

import "ratelab/algorithms"

// A leaky bucket's settings as a scenario file writes them: its mode, and what
// its queue does with a request whose client stopped waiting.

// Abandoned is what a leaky queue does with a request whose client stopped
// waiting: "keep" (its place, as nginx) or "leave".
type Abandoned struct{ choice[bool] }

var abandonedWords = []word[bool]{{name: "keep", value: false, gloss: "it keeps its place, as a queue of limit_req does"}, {name: "leave", value: true, gloss: "it leaves the queue"}}

func (a *Abandoned) UnmarshalText(b []byte) error { return a.read(b, "abandoned", abandonedWords) }

// Leave says an abandoned request leaves the queue.
func (a Abandoned) Leave() bool { return a.Value() }

// Mode is a leaky bucket's: "queue" or "meter".
type Mode struct{ choice[algorithms.LeakyMode] }

var modes = named(algorithms.LeakyQueue, algorithms.LeakyMeter)

func (m *Mode) UnmarshalText(b []byte) error { return m.read(b, "mode", modes) }
