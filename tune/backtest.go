package tune

import (
	"context"
	"fmt"
	"math"
	"time"

	"ratelab/internal/format"
)

// A back-test fits on the first part of a log and scores on the rest: the
// sweep runs on the requests before the holdout, its recommendation is then
// replayed over the whole log, and the share of the requests of the clients
// it must not refuse (every client but the abusive kinds; without kinds,
// every key but the heavy hitters) that it refuses is compared, before the
// holdout (predicted) and in it (realised). A limit that refuses them in the
// holdout but not before fits only the days it was tuned on.

// MinBackTestSpan is the shortest log back-tested by default: two days, so the
// holdout (the last fifth) holds most of a day's cycle.
const MinBackTestSpan = 48 * time.Hour

// BackTest is a back-test's outcome.
type BackTest struct {
	// Holdout is the part of the log scored, its last Holdout; Fit the
	// recommendation of a sweep of the rest.
	Holdout time.Duration `json:"-"`
	Fit     Limits        `json:"-"`
	// Predicted and Realised are the shares of the other clients' requests
	// Fit refuses before the holdout and in it; PredictedKeys and
	// RealisedKeys how many of those clients it refuses there.
	Predicted     float64 `json:"predicted"`
	Realised      float64 `json:"realised"`
	PredictedKeys int     `json:"predicted_clients"`
	RealisedKeys  int     `json:"realised_clients"`
	// Flagged says Fit refuses other clients in the holdout beyond what it
	// did before it (more than twice the share, and at least one request).
	Flagged bool `json:"flagged"`
	// Thin says the part fitted on or the part scored holds too few requests
	// for the figures to say much (fewer than minBackTestRequests), and which
	Thin string `json:"thin,omitempty"`
	// HoldoutMS and FitJSON are Holdout and Fit as the JSON writes them
	HoldoutMS float64     `json:"holdout_ms"`
	FitJSON   *LimitsJSON `json:"fit"`
	cut       int64       // µs from the origin
}

// minBackTestRequests are the fewest requests of the scored clients, in the
// part fitted on and in the holdout, for a back-test's figures to say much.
const minBackTestRequests = 100

// holdoutFor is the holdout o asks of a trace of span: o.Holdout when given
// (> 0), none when < 0, and by default the last fifth of a log of at least
// MinBackTestSpan; 0 for none.
func holdoutFor(o Options, span time.Duration) time.Duration {
	switch {
	case o.Holdout < 0:
		return 0
	case o.Holdout > 0:
		return o.Holdout
	case span >= MinBackTestSpan:
		return (span / 5).Truncate(time.Second)
	}
	return 0
}

// backTest sweeps the trace before its last holdout as o says and scores the
// recommendation on the holdout.
func backTest(ctx context.Context, t *Trace, o Options, holdout time.Duration) (*BackTest, error) {
	if holdout >= t.Span {
		return nil, fmt.Errorf("--holdout %s is not shorter than the log's %s", format.Period(holdout), format.Period(t.Span))
	}
	cut := int64((t.Span - holdout) / time.Microsecond)
	fit := t.before(cut)
	o.Progress, o.Holdout = nil, -1
	rep, err := Run(ctx, fit, o)
	if err != nil {
		return nil, err
	}
	best := rep.Best
	if best < 0 {
		return nil, nil // nothing to score: the answer says why
	}
	bt := &BackTest{Holdout: holdout, Fit: rep.Results[best].Limits, cut: cut, HoldoutMS: float64(holdout) / float64(time.Millisecond), FitJSON: limitsJSON(rep.Results[best].Limits)}
	kd, err := DenialsOf(t, bt.Fit, cut)
	if err != nil {
		return nil, err
	}
	c, err := t.Classify(nil)
	if err != nil {
		return nil, err
	}
	var before, after, deniedBefore, deniedAfter int64
	sentAfter := t.sentAfter(cut)
	for k := range t.Keys {
		if mustNotRefuse(c, k) {
			before += t.Volume[k] - sentAfter[k]
			after += sentAfter[k]
			d, a := int64(kd.Denied[k]), int64(kd.After[k])
			deniedBefore += d - a
			deniedAfter += a
			if d-a > 0 {
				bt.PredictedKeys++
			}
			if a > 0 {
				bt.RealisedKeys++
			}
		}
	}
	share := func(a, b int64) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	bt.Predicted, bt.Realised = share(deniedBefore, before), share(deniedAfter, after)
	switch {
	case after < minBackTestRequests:
		bt.Thin = fmt.Sprintf("the last %s holds only %s of the clients it scores: the figures say little", format.Period(holdout), plural(after, "request", "requests"))
	case before < minBackTestRequests:
		bt.Thin = fmt.Sprintf("the part fitted on holds only %s of the clients it scores: the figures say little", plural(before, "request", "requests"))
	}
	bt.Flagged = deniedAfter > 0 && bt.Realised > 2*bt.Predicted
	return bt, nil
}

// mustNotRefuse says key k is one of the clients a back-test scores: not of
// an abusive kind (with kinds), else not a heavy hitter.
func mustNotRefuse(c Classes, k int) bool {
	if c.Kinds != nil {
		return !Rules[c.Kinds[k]].Abusive
	}
	return !c.Heavy[k]
}

// sentAfter is each key's requests at or after cut (µs).
func (t *Trace) sentAfter(cut int64) []int64 {
	out := make([]int64, len(t.Keys))
	t.each(func(q Request) {
		if q.At >= cut {
			out[q.Key]++
		}
	})
	return out
}

// before is the trace of the requests before cut (µs from the origin), with
// the same keys (and their profiles: a key's kind is told from the whole log).
// The trace must be in memory.
func (t *Trace) before(cut int64) *Trace {
	var reqs []Request
	for _, block := range t.Requests {
		for _, q := range block {
			if q.At < cut {
				reqs = append(reqs, q)
			}
		}
	}
	f := FromRequests(t.Name, t.Keys, reqs)
	f.Stats, f.Format, f.Spread, f.origin, f.Profiles = t.Stats, t.Format, t.Spread, t.origin, t.Profiles
	f.Span = max(f.Span, time.Duration(math.Ceil(float64(cut)/1e6))*time.Second)
	return f
}

// holdoutCut is the back-test's cut, µs from the origin; past every request
// without one.
func (r *Report) holdoutCut() int64 {
	if r.BackTest != nil {
		return r.BackTest.cut
	}
	return math.MaxInt64
}
