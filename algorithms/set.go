package algorithms

import "fmt"

// A lane that shards one limit, or holds each request to several, calls several
// limiters for one decision: a Set is those limiters, called together.

// Mode is what a call asks of a set's limiter.
type Mode uint8

const (
	// ModeAllow decides, and records an accepted request.
	ModeAllow Mode = iota
	// ModeCheck says what Allow would decide, and changes nothing (Checker).
	ModeCheck
	// ModeAll is one call of an all-or-nothing group (see Call).
	ModeAll
)

// Call is one call of a batch to a Set: the limiter at Part asked about Req.
//
// Calls in ModeAll come in groups, decided at once, atomically: the first of a
// group carries Group, the number of calls in it (itself included). When every
// limiter of the group would allow its request, each does; otherwise none records
// anything, and each call's decision is what its limiter would have said (so a
// refusal carries its own retry-after, and the others say they would have
// allowed).
type Call struct {
	Mode  Mode
	Part  int
	Group int
	Req   Request
}

// Set is a lane's limiters (its shards, or its limits) called together. Do makes
// calls in order, each deciding as one call at a time would, in one round trip
// when the limiters are remote (a pipeline); out gets a decision per call.
type Set interface {
	Do(calls []Call, out []Decision)
	// Parts are the limiters, by the index calls name them with.
	Parts() []Limiter
}

// SetJoiner is a limiter that joins others of its kind into a Set of its own:
// the Redis limiters, into one pipeline and one script for a group.
type SetJoiner interface {
	JoinSet(parts []Limiter) (Set, bool)
}

// NewSet returns parts as a Set: the one their kind makes (SetJoiner), or one
// that calls each in turn, which is atomic for limiters in memory. Every part must
// be a Checker.
func NewSet(parts []Limiter) (Set, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("a set of no limiters")
	}
	if j, ok := parts[0].(SetJoiner); ok {
		if s, ok := j.JoinSet(parts); ok {
			return s, nil
		}
	}
	s := &localSet{parts: parts}
	for _, p := range parts {
		c, ok := p.(Checker)
		if !ok {
			return nil, fmt.Errorf("%s cannot say what it would decide without deciding", p.Algorithm())
		}
		s.checkers = append(s.checkers, c)
	}
	return s, nil
}

// localSet calls its limiters in turn.
type localSet struct {
	parts    []Limiter
	checkers []Checker
}

func (s *localSet) Parts() []Limiter { return s.parts }

func (s *localSet) Do(calls []Call, out []Decision) {
	for i := 0; i < len(calls); {
		c := calls[i]
		switch c.Mode {
		case ModeAllow:
			out[i] = s.parts[c.Part].Allow(c.Req.Key, c.Req.Now, c.Req.Cost)
		case ModeCheck:
			out[i] = s.checkers[c.Part].Check(c.Req.Key, c.Req.Now, c.Req.Cost)
		case ModeAll:
			group := calls[i : i+max(1, c.Group)]
			allOrNothing(s.parts, group, out[i:i+len(group)])
			i += len(group)
			continue
		}
		i++
	}
}

// allOrNothing decides an all-or-nothing group of calls on limiters in memory:
// each checks; if all would allow, each allows, else nothing changes and out holds
// the checks. It is atomic because nothing else runs between its steps.
func allOrNothing(parts []Limiter, group []Call, out []Decision) {
	all := true
	for j, g := range group {
		out[j] = parts[g.Part].(Checker).Check(g.Req.Key, g.Req.Now, g.Req.Cost)
		all = all && out[j].Allowed
	}
	if !all {
		return
	}
	for j, g := range group {
		out[j] = parts[g.Part].Allow(g.Req.Key, g.Req.Now, g.Req.Cost)
	}
}
