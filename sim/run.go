package sim

import (
	"fmt"
	"runtime"
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

	// rows, when set, receives every decision in (time, lane) order.
	rows    func([]Row) error
	pending [][]Row // per lane, the rows of the tick being merged
	merged  []Row
	// series, when set, receives every tick's sample of every lane, by tick then lane.
	series  func(lane int, s Sample) error
	samples [][]Sample // per lane, the samples of the step being written

	workers *workers // the lanes' goroutines, started on the first advance
	inputs  *[]Input // the configuration's inputs, then those added (see AddInput)
}

// NewRun starts a run of cfg at virtual time zero.
func NewRun(cfg *Config) (*Run, error) {
	inputs := append([]Input(nil), cfg.Inputs...)
	r := &Run{Config: cfg, inputs: &inputs}
	for i := range cfg.Lanes {
		l, err := newLane(cfg, i, r.inputs)
		if err != nil {
			return nil, err
		}
		r.Lanes = append(r.Lanes, l)
	}
	return r, nil
}

// OnRows makes the run hand every decision to sink, in batches, ordered by time and
// then by lane, as the run advances. Call it before the first AdvanceTo. Memory
// stays flat: a batch is one tick of decisions.
func (r *Run) OnRows(sink func([]Row) error) {
	r.rows = sink
	r.pending = make([][]Row, len(r.Lanes))
	pending := r.pending // not r: the lanes' goroutines must not keep the Run alive
	for i, l := range r.Lanes {
		l.rows = func(row Row) { pending[i] = append(pending[i], row) }
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

// AdvanceTo runs every lane up to virtual time t (at most the end). With a row
// sink it goes a tick at a time, so each tick's rows are merged across lanes; the
// samples of the ticks passed go to the series sink at the end (a caller that
// wants them in bounded memory advances a bounded stretch at a time).
func (r *Run) AdvanceTo(t time.Duration) error {
	t = min(t, r.Config.Duration)
	for r.now < t {
		step := t
		if r.rows != nil {
			step = min(t, (r.now/r.Config.Tick+1)*r.Config.Tick)
		}
		r.advanceLanes(step)
		for _, l := range r.Lanes {
			if l.err != nil {
				return fmt.Errorf("lane %q: %w", l.Config.Name, l.err)
			}
		}
		r.now = step
		if r.rows != nil {
			if err := r.flushRows(); err != nil {
				return err
			}
		}
		if err := r.flushSamples(); err != nil {
			return err
		}
	}
	return nil
}

// advanceLanes runs every lane to t, each on a goroutine of its own: lanes share
// nothing but the read-only Config (each has its own limiters, clients, backend and
// Redis keys), so they may run at once, and each stays deterministic. Lanes on
// Redis spend most of their time waiting on round trips, which then overlap.
func (r *Run) advanceLanes(t time.Duration) {
	if len(r.Lanes) == 1 {
		r.Lanes[0].advanceTo(t)
		return
	}
	if r.workers == nil {
		r.workers = startWorkers(r.Lanes)
		// a Run nobody closes still stops its goroutines once it is unreachable
		runtime.AddCleanup(r, func(w *workers) { w.stop() }, r.workers)
	}
	r.workers.advance(t)
}

// Close stops the lanes' goroutines. A closed run may not advance again.
func (r *Run) Close() {
	if r.workers != nil {
		r.workers.stop()
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
				l.advanceTo(t)
				w.done.Done()
			}
		}()
	}
	return w
}

// advance runs every lane to t and waits for all of them.
func (w *workers) advance(t time.Duration) {
	w.done.Add(len(w.work))
	for _, ch := range w.work {
		ch <- t
	}
	w.done.Wait()
}

func (w *workers) stop() {
	w.once.Do(func() {
		for _, ch := range w.work {
			close(ch)
		}
	})
}

// flushRows merges the lanes' rows of the last step by (time, lane) and hands them
// to the sink. Each lane's rows are already in time order, so this is a k-way merge
// that takes, at each step, the earliest head (the lowest lane on a tie).
func (r *Run) flushRows() error {
	r.merged = r.merged[:0]
	heads := make([]int, len(r.pending))
	for {
		best := -1
		for i, rows := range r.pending {
			if heads[i] < len(rows) && (best < 0 || rows[heads[i]].At < r.pending[best][heads[best]].At) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		r.merged = append(r.merged, r.pending[best][heads[best]])
		heads[best]++
	}
	for i := range r.pending {
		r.pending[i] = r.pending[i][:0]
	}
	if len(r.merged) == 0 {
		return nil
	}
	return r.rows(r.merged)
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

// Metrics are every lane's figures so far.
func (r *Run) Metrics() []Metrics {
	out := make([]Metrics, len(r.Lanes))
	for i, l := range r.Lanes {
		out[i] = l.Metrics()
	}
	return out
}
