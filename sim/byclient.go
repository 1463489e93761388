package sim

// ClientTally is what one client's attempts met in a lane: how many the
// limiter decided, and how many of those it accepted (a WATCH that kept
// losing counts as refused). Attempts that never reached a decision (the
// store unreachable) are in neither.
type ClientTally struct {
	Decided, Accepted int64
}

// Share is the part of the decided attempts accepted, 0 when none was decided.
func (t ClientTally) Share() float64 {
	if t.Decided == 0 {
		return 0
	}
	return float64(t.Accepted) / float64(t.Decided)
}

// tally counts a decision on an attempt of client.
func (r *recorder) tally(client int32, accepted bool) {
	t := &r.byClient[client]
	t.Decided++
	if accepted {
		t.Accepted++
	}
}

// ByClient is each client's tally so far, in Config.Clients order: a copy.
func (l *Lane) ByClient() []ClientTally {
	return append([]ClientTally(nil), l.rec.byClient...)
}
