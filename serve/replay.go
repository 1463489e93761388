package serve

// Replay decides arrivals again, in order, through fresh limiters of lanes: each
// at its own instant, for its own key. A served log replays to the same
// decisions (the server decides one at a time at instants read in order), which
// is what the served decisions are checked against: the virtual clock's.
func Replay(o Options, arrivals []Arrival) ([]Arrival, error) {
	o.OnDecision, o.Upstream = nil, nil
	s, err := New(o)
	if err != nil {
		return nil, err
	}
	out := make([]Arrival, len(arrivals))
	for i, a := range arrivals {
		out[i] = s.Decide(a.Lane, a.Key, a.Client, a.At)
	}
	return out, nil
}
