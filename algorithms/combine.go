package algorithms

// Combine is how a lane that holds each request to several limits (requests and
// tokens per minute, per user and global) combines them.
type Combine int

const (
	// InOrder asks each limit in turn and stops at the first refusal; what the
	// limits before it granted stays spent. Two kinds of request that take the
	// limits in opposite orders can starve each other.
	InOrder Combine = iota
	// CheckThenConsume checks every limit first (nothing spent) and consumes them
	// all a round trip later only when all agreed: another request can take the
	// room in between, and then what the others granted is spent for nothing.
	CheckThenConsume
	// AllOrNothing decides every limit at once, atomically: all consume or none
	// does (one Lua script over every key on Redis).
	AllOrNothing
)

// Combines are the modes' names in scenario files.
var Combines = []string{"in-order", "check-then-consume", "all-or-nothing"}

// String is the mode's name.
func (c Combine) String() string { return Combines[c] }

// ParseCombine reads a mode's name.
func ParseCombine(name string) (Combine, bool) {
	for i, n := range Combines {
		if n == name {
			return Combine(i), true
		}
	}
	return 0, false
}
