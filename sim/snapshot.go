package sim

import (
	"slices"
	"time"
)

// Snapshot is a run as a view shows it at one instant, taken in O(lanes) by
// Run.Snapshot: nothing in it is written again, so it may be read on another
// goroutine while the run goes on.
type Snapshot struct {
	Now       time.Duration
	Done      bool
	Decisions int64 // asked for so far, over all lanes
	// Metrics are every lane's figures: their live sums while the run goes
	// (Lane.LiveMetrics; Run.KeepLive), and once it is done, the sums in key
	// order its outputs have (Lane.Metrics).
	Metrics []Metrics
	// Claims are the lesson's claims judged on Metrics.
	Claims []ClaimResult
	// Answers are the lesson's questions answered so far (see Run.Answers).
	Answers []Answer
	Lanes   []LaneSnapshot
}

// LaneSnapshot is one lane in a Snapshot.
type LaneSnapshot struct {
	// Series is the lane's samples so far, each covering SeriesStep (see
	// Lane.Series). It is shared with the lane, which only ever appends after
	// the samples it has, or starts a new slice when it coarsens them.
	Series     []Sample
	SeriesStep time.Duration
	// Last is the lane's latest decision, when HasLast (see Lane.LastDecision).
	Last    Last
	HasLast bool
	// Refusal is the lane's latest refusal a rule made, when its Rule > 0
	// (Lane.LatestRefusal).
	Refusal Refusal
	// Unavailable says the lane's store failed at its last call.
	Unavailable bool
	// ByClient is each client's attempts decided and accepted so far (Lane.ByClient).
	ByClient []ClientTally
	// Instances, for a deployed lane, is what each of its members admitted in
	// the last tick that closed (Lane.LastTickByInstance), a copy; nil for
	// another lane.
	Instances []int64
}

// KeepLive makes every lane keep the sums its live metrics need as the run goes
// (see running.go), so a Snapshot costs O(lanes) however many keys the run has,
// and its latest decision (Lane.LastDecision) from then on.
// It costs a little per decision, so headless runs do without; it may be called
// at any time (the sums start from a walk over the keys as they are).
func (r *Run) KeepLive() {
	for _, l := range r.Lanes {
		l.rec.keepLive()
		l.keepLast = true
	}
}

// Snapshot is the run as it stands. Call it between advances, from the
// goroutine that advances the run.
func (r *Run) Snapshot() *Snapshot {
	s := &Snapshot{Now: r.now, Done: r.Done(), Decisions: r.Decisions(), Lanes: make([]LaneSnapshot, len(r.Lanes))}
	s.Metrics = make([]Metrics, len(r.Lanes))
	scoped := make([][]ScopeCounts, len(r.Lanes))
	for i, l := range r.Lanes {
		if s.Done {
			if r.final == nil {
				r.final = r.Metrics()
			}
			s.Metrics[i] = r.final[i]
		} else {
			s.Metrics[i] = l.LiveMetrics()
		}
		scoped[i] = l.rec.scopes.counts
		last, ok := l.LastDecision()
		s.Lanes[i] = LaneSnapshot{Series: l.Series(), SeriesStep: l.SeriesStep(), Last: last, HasLast: ok, Refusal: l.latestRefusal, Unavailable: l.Unavailable(),
			Instances: slices.Clone(l.LastTickByInstance()), ByClient: l.ByClient()}
	}
	s.Claims = Judge(r.Config, s.Metrics, scoped)
	s.Answers = r.Answers()
	return s
}

// Opening is the snapshot of a run of cfg before it starts — what every run of it
// shows at time zero — made without starting one (no limiter built, no trace
// opened), in O(lanes): what a view shows while a run starts.
func Opening(cfg *Config) *Snapshot {
	s := &Snapshot{Metrics: make([]Metrics, len(cfg.Lanes)), Lanes: make([]LaneSnapshot, len(cfg.Lanes))}
	scoped := make([][]ScopeCounts, len(cfg.Lanes))
	for i, lc := range cfg.Lanes {
		r := recorder{cfg: cfg, lane: lc, m: openingMetrics(lc), running: newRunning()}
		s.Metrics[i] = r.metrics(keySums{})
		s.Lanes[i] = LaneSnapshot{SeriesStep: cfg.Tick, ByClient: make([]ClientTally, len(cfg.Clients))}
		if len(cfg.Scopes) > 0 {
			scoped[i] = make([]ScopeCounts, len(cfg.Scopes))
		}
	}
	s.Claims = Judge(cfg, s.Metrics, scoped)
	return s
}
