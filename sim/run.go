package sim

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"
)

// Run is one replay of a Config through all its lanes, on the virtual clock. It is
// advanced explicitly (AdvanceTo), by the UI a frame at a time or by a headless run
// to the end; the same Config and seed give the same run, every time.
type Run struct {
	Config *Config
	Lanes  []*Lane
	now    time.Duration

	// ctx, when done, stops the lanes (see Bound); cancel releases it.
	ctx    context.Context
	cancel context.CancelCauseFunc

	// rows, when set, receives every decision in (time, lane) order, through the
	// lanes' streams (see stream.go).
	rows    func([]Row) error
	streams []*rowStream
	merged  []Row
	// carry, per lane, is the rows merged but not yet written because a lane
	// still held an earlier one (see merge).
	carry []spool
	// series, when set, receives every tick's sample of every lane, by tick then lane.
	series  func(lane int, s Sample) error
	samples [][]Sample // per lane, the samples of the step being written

	workers *workers       // the lanes' goroutines, started on the first advance
	feeds   []*arrivalFeed // per client, its open-loop arrivals (nil: a closed loop)
	inputs  *[]Input       // the configuration's inputs, then those added (see AddInput)
	final   []Metrics      // once done, the metrics a Snapshot shows (taken once)

	// the lesson's questions in the order asked (see askAt), how many of them
	// the run has reached, and their answers
	order   []int
	asked   int
	answers []Answer
}

// NewRun starts a run of cfg at virtual time zero, its lanes' state kept in
// store (Memory, or a Redis: see package session).
func NewRun(cfg *Config, store StateStore) (*Run, error) {
	inputs := append([]Input(nil), cfg.Inputs...)
	r := &Run{Config: cfg, inputs: &inputs, order: askAt(cfg)}
	r.ctx, r.cancel = context.WithCancelCause(context.Background())
	r.feeds = make([]*arrivalFeed, len(cfg.Clients))
	for i := range cfg.Clients {
		stream, err := newArrivalStream(cfg, i, r.inputs)
		if err != nil {
			r.closeFeeds()
			return nil, err
		}
		if stream != nil {
			r.feeds[i] = newArrivalFeed(stream, len(cfg.Lanes))
		}
	}
	for i := range cfg.Lanes {
		l, err := newLane(cfg, i, r.inputs, r.feeds, store)
		if err != nil {
			r.closeFeeds()
			return nil, err
		}
		l.ctx = r.ctx
		r.Lanes = append(r.Lanes, l)
	}
	return r, nil
}

// OnRows makes the run hand every decision to sink, in batches of at most 4,096
// rows, ordered by time and then by lane, as the run advances. Call it before the
// first AdvanceTo. Memory stays bounded however many decisions fall in one tick:
// the lanes stream their rows and wait for the sink when they get ahead of it.
// When the sink fails, the run stops and AdvanceTo returns the sink's error.
//
// A row goes to the sink once its attempt's fate is known (Row.Outcome, see
// fate.go), so rows come somewhat after their decisions; when the run reaches
// its end every row has gone, those still in flight with OutcomeInFlight. A
// caller that stops short of the end calls FinishRows for the rest.
func (r *Run) OnRows(sink func([]Row) error) {
	r.rows = sink
	r.merged = make([]Row, 0, rowBatch)
	r.streams = make([]*rowStream, len(r.Lanes))
	r.carry = make([]spool, len(r.Lanes))
	for i, l := range r.Lanes {
		r.streams[i] = newRowStream(laneBatch(len(r.Lanes)))
		l.stream = r.streams[i]
	}
}

// OnSeries makes the run hand every lane's sample of every tick to sink as the run
// advances (at the end of each AdvanceTo), ordered by tick and then by lane: the
// series CSV at full resolution, whatever the length of the run (the lanes keep a
// bounded series, see MaxSeriesPoints). Call it before the first AdvanceTo.
func (r *Run) OnSeries(sink func(lane int, s Sample) error) {
	r.series = sink
	r.samples = make([][]Sample, len(r.Lanes))
	samples := r.samples // not r: the lanes' goroutines must not keep the Run alive
	for i, l := range r.Lanes {
		l.samples = func(s Sample) { samples[i] = append(samples[i], s) }
	}
}

// Now is the virtual time the run has reached.
func (r *Run) Now() time.Duration { return r.now }

// Done says the run has reached its end.
func (r *Run) Done() bool { return r.now >= r.Config.Duration }

// AdvanceTo runs every lane up to virtual time t (at most the end). A run that
// stops early (see Bound) returns a *Stopped saying where. The rows stream to
// their sink as the lanes make them; the samples of the ticks passed go to the
// series sink at the end (a caller that wants them in bounded memory advances a
// bounded stretch at a time).
//
// On its way it stops at each question's instant (see Question), to record its
// answer on the run as it is then.
func (r *Run) AdvanceTo(t time.Duration) error {
	t = min(t, r.Config.Duration)
	for {
		stop := min(t, r.nextQuestion())
		if err := r.advance(stop); err != nil {
			return err
		}
		r.answerDue()
		if stop == t {
			return nil
		}
	}
}

// advance runs every lane up to virtual time t (see AdvanceTo).
func (r *Run) advance(t time.Duration) error {
	if r.now >= t {
		return nil
	}
	if err := context.Cause(r.ctx); err != nil {
		return &Stopped{At: r.now, Cause: err}
	}
	for _, f := range r.feeds {
		if f != nil {
			f.setLimit(t)
		}
	}
	err := r.advanceLanes(t)
	if s := r.stopped(); s != nil {
		return s
	}
	if err != nil {
		return err
	}
	for _, l := range r.Lanes {
		if l.err != nil {
			return fmt.Errorf("lane %q: %w", l.Config.Name, l.err)
		}
	}
	if err := r.flushSamples(); err != nil {
		return err
	}
	r.now = t
	return nil
}

// advanceLanes runs every lane to t, each on a goroutine of its own: lanes share
// nothing but the read-only Config (each has its own limiters, clients, backend and
// Redis keys), so they may run at once, and each stays deterministic. Lanes on
// Redis spend most of their time waiting on round trips, which then overlap. With
// a row sink, the rows are merged here as the lanes make them.
func (r *Run) advanceLanes(t time.Duration) error {
	if len(r.Lanes) == 1 && r.rows == nil {
		r.Lanes[0].advanceTo(t)
		return nil
	}
	if r.workers == nil {
		r.workers = startWorkers(r.Lanes)
		// a Run nobody closes still stops its goroutines once it is unreachable
		runtime.AddCleanup(r, func(w *workers) { w.stop() }, r.workers)
	}
	r.workers.start(t)
	var err error
	if r.rows != nil {
		err = r.merge()
	}
	r.workers.wait()
	return err
}

// FinishRows hands the sink every row still waiting for its attempt's fate, as
// it is now (OutcomeInFlight, or a timed-out attempt not yet known to be
// wasted): for a caller that writes the run so far and stops short of its end.
// The run may advance again; rows already handed are not handed again.
func (r *Run) FinishRows() error {
	if r.rows == nil || r.workers == nil {
		return nil
	}
	if err := context.Cause(r.ctx); err != nil {
		return &Stopped{At: r.now, Cause: err}
	}
	r.workers.start(-1)
	err := r.merge()
	r.workers.wait()
	return err
}

// Close stops the lanes' goroutines. A closed run may not advance again.
func (r *Run) Close() {
	if r.workers != nil {
		r.workers.stop()
	}
	for i := range r.carry {
		r.carry[i].close()
	}
	for _, l := range r.Lanes {
		l.held.older.close()
	}
	r.closeFeeds()
	r.cancel(nil)
}

// closeFeeds releases the clients' traces still open, the run's and those of
// lanes that went on their own.
func (r *Run) closeFeeds() {
	for _, f := range r.feeds {
		if f != nil {
			f.close()
		}
	}
	for _, l := range r.Lanes {
		for _, c := range l.clients {
			if c.feed != nil && c.feed.own != nil {
				c.feed.own.close()
			}
		}
	}
}

// workers are one goroutine per lane, each advancing its lane when told to; they
// live as long as the run, so advancing a tick costs a message, not a goroutine.
type workers struct {
	work []chan time.Duration
	done sync.WaitGroup
	once sync.Once
}

func startWorkers(lanes []*Lane) *workers {
	w := &workers{work: make([]chan time.Duration, len(lanes))}
	for i, l := range lanes {
		ch := make(chan time.Duration)
		w.work[i] = ch
		go func() {
			for t := range ch {
				if t >= 0 {
					l.advanceTo(t)
				}
				if l.err != nil {
					l.leaveFeeds() // the lanes still reading need not keep entries for it
				}
				if l.stream != nil {
					if t < 0 || l.now >= l.cfg.Duration && l.err == nil {
						l.finishRows()
					}
					l.stream.hold = l.held.from()
					l.stream.end()
				}
				w.done.Done()
			}
		}()
	}
	return w
}

// start tells every lane to run to t.
func (w *workers) start(t time.Duration) {
	w.done.Add(len(w.work))
	for _, ch := range w.work {
		ch <- t
	}
}

// wait waits until every lane has run to the time it was told.
func (w *workers) wait() { w.done.Wait() }

func (w *workers) stop() {
	w.once.Do(func() {
		for _, ch := range w.work {
			close(ch)
		}
	})
}

// flushSamples hands the samples of the last step to the series sink, by tick and
// then lane (every lane closed the same ticks).
func (r *Run) flushSamples() error {
	if r.series == nil {
		return nil
	}
	for j := range r.samples[0] {
		for i := range r.samples {
			if err := r.series(i, r.samples[i][j]); err != nil {
				return err
			}
		}
	}
	for i := range r.samples {
		r.samples[i] = r.samples[i][:0]
	}
	return nil
}

// Decisions is the number of decisions asked for so far, over all lanes: a measure
// of the work done, for callers that budget it.
func (r *Run) Decisions() int64 {
	var n int64
	for _, l := range r.Lanes {
		n += l.rec.m.Attempts
	}
	return n
}

// Claims judges the lesson's claims on the run so far.
func (r *Run) Claims() []ClaimResult { return r.ClaimsOn(r.Metrics()) }

// ClaimsOn judges the lesson's claims on ms, the run's metrics just taken (so a
// caller that has them does not compute them twice).
func (r *Run) ClaimsOn(ms []Metrics) []ClaimResult {
	scoped := make([][]ScopeCounts, len(r.Lanes))
	for i, l := range r.Lanes {
		scoped[i] = l.rec.scopes.counts
	}
	return Judge(r.Config, ms, scoped)
}

// ScopeCounts are the lane's decisions so far in each of Config.Scopes (what a
// scoped claim counts), a copy.
func (l *Lane) ScopeCounts() []ScopeCounts { return slices.Clone(l.rec.scopes.counts) }

// Metrics are every lane's figures so far.
func (r *Run) Metrics() []Metrics {
	out := make([]Metrics, len(r.Lanes))
	for i, l := range r.Lanes {
		out[i] = l.Metrics()
	}
	return out
}
