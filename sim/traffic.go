package sim

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"
)

// arrival is one generated event: when, for which of the client's keys (a
// position in Client.Keys), at what cost.
type arrival struct {
	at   time.Duration
	key  int
	cost int64
}

// arrivals yields a client's open-loop events in time order; next returns false
// when the client has nothing more to send, and err then says whether that was a
// failure (a trace file that changed since it was checked). Arrival times are whole
// microseconds. clone returns a generator that goes on from where this one is,
// as this one would, drawing from src (this one's source cloned): a lane that
// gets far ahead of the others generates the rest of its client's arrivals on
// its own (see feed.go).
type arrivals interface {
	next() (arrival, bool)
	err() error
	clone(src *source) (arrivals, error)
}

// generated is embedded by the generators that cannot fail.
type generated struct{}

func (generated) err() error { return nil }

// source is a client's random stream of open-loop traffic and how it draws an
// arrival's key and cost from it. It is a value apart from its generator so a
// generator can be cloned mid-stream: the PCG's state is copied, and the clone
// draws the same numbers from then on.
type source struct {
	pcg  rand.PCG
	r    *rand.Rand
	keys keyPicker
	c    *Client
}

// newSource is client i's traffic source under seed (the stream newStream gives).
func newSource(seed uint64, i int, c *Client) *source {
	s := &source{c: c}
	s.pcg = *rand.NewPCG(streamSeeds(seed, streamTraffic, i))
	s.r = rand.New(&s.pcg)
	s.keys = newKeyPicker(s.r, c.Keys, c.KeyZipf)
	return s
}

// clone is a source at the same point of the same stream, drawing on its own.
func (s *source) clone() *source {
	n := &source{pcg: s.pcg, c: s.c}
	n.r = rand.New(&n.pcg)
	n.keys = newKeyPicker(n.r, s.c.Keys, s.c.KeyZipf)
	return n
}

// draw is an arrival at `at`: its key and cost drawn from the stream.
func (s *source) draw(at time.Duration) arrival {
	return arrival{at, s.keys.pick(s.r), s.c.Cost.draw(s.r)}
}

// newArrivals returns c's generator, drawing from src (unused by a trace, whose
// rows carry their key and cost); nil for a closed loop, whose requests are driven
// by their answers instead. A trace that cannot be opened is an error (the loader
// has opened it once already, so this is I/O at run time).
func newArrivals(c *Client, src *source) (arrivals, error) {
	switch p := c.Pattern.(type) {
	case Constant:
		return &constantArrivals{c: c, rate: p.Rate, src: src}, nil
	case Poisson:
		return &poissonArrivals{c: c, rate: p.Rate, src: src}, nil
	case Ramp:
		return &rampArrivals{c: c, from: p.From, to: p.To, src: src}, nil
	case Bursts:
		return &burstArrivals{c: c, bursts: p.Bursts, src: src}, nil
	case Hand:
		return noArrivals{}, nil
	case Trace:
		tr, err := p.Open()
		if err != nil {
			return nil, err
		}
		return &traceArrivals{c: c, t: p, r: tr}, nil
	}
	return nil, nil
}

// micros rounds a time in seconds down to whole microseconds; seconds must fit a
// time.Duration (the generators check with ended first).
func micros(seconds float64) time.Duration {
	return time.Duration(math.Floor(seconds*1e6)) * time.Microsecond
}

// ended says a time secs seconds after the client's start is at least a second
// past its stop, or not a number: the generator is done, and secs is never turned
// into a time.Duration, which it might overflow (a rate of 1e-300 puts the second
// request 1e300 s away). Times within a second of the stop are converted and
// compared exactly, as whole microseconds, with Stop.
func (c *Client) ended(secs float64) bool {
	return !(secs < (c.Stop-c.Start).Seconds()+1)
}

// constantArrivals: the k-th request at Start + k / rate, computed from k so
// rounding never accumulates.
type constantArrivals struct {
	generated
	c    *Client
	rate float64
	k    int64
	src  *source
}

func (a *constantArrivals) clone(src *source) (arrivals, error) {
	n := *a
	n.src = src
	return &n, nil
}

func (a *constantArrivals) next() (arrival, bool) {
	secs := float64(a.k) / a.rate
	if a.c.ended(secs) {
		return arrival{}, false
	}
	at := a.c.Start + micros(secs)
	if at >= a.c.Stop {
		return arrival{}, false
	}
	a.k++
	return a.src.draw(at), true
}

// poissonArrivals: exponential gaps of mean 1 / rate, summed in float seconds.
type poissonArrivals struct {
	generated
	c    *Client
	rate float64
	t    float64 // seconds after Start
	src  *source
}

func (a *poissonArrivals) clone(src *source) (arrivals, error) {
	n := *a
	n.src = src
	return &n, nil
}

func (a *poissonArrivals) next() (arrival, bool) {
	a.t += a.src.r.ExpFloat64() / a.rate
	if a.c.ended(a.t) {
		return arrival{}, false
	}
	at := a.c.Start + micros(a.t)
	if at >= a.c.Stop {
		return arrival{}, false
	}
	return a.src.draw(at), true
}

// rampArrivals: the rate moves linearly from `from` to `to` over [Start, Stop], so
// the count by τ seconds in is N(τ) = from·τ + (to − from)·τ²/(2T), and the k-th
// request comes at the τ solving N(τ) = k.
type rampArrivals struct {
	generated
	c        *Client
	from, to float64
	k        float64
	src      *source
}

func (a *rampArrivals) clone(src *source) (arrivals, error) {
	n := *a
	n.src = src
	return &n, nil
}

func (a *rampArrivals) next() (arrival, bool) {
	a.k++
	span := (a.c.Stop - a.c.Start).Seconds()
	if !(a.k <= (a.from+a.to)/2*span) { // NaN ends it too
		return arrival{}, false
	}
	accel := (a.to - a.from) / (2 * span)
	// the root of accel·τ² + from·τ − k = 0 in the form that is stable when accel ≈ 0
	tau := 2 * a.k / (a.from + math.Sqrt(max(0, a.from*a.from+4*accel*a.k)))
	if a.c.ended(tau) {
		return arrival{}, false
	}
	at := a.c.Start + micros(tau)
	if at >= a.c.Stop {
		return arrival{}, false
	}
	return a.src.draw(at), true
}

// burstArrivals: Count requests per burst, the i-th at At + i × Spread / Count.
type burstArrivals struct {
	generated
	c      *Client
	bursts []Burst
	b, i   int
	src    *source
}

func (a *burstArrivals) clone(src *source) (arrivals, error) {
	n := *a
	n.src = src
	return &n, nil
}

func (a *burstArrivals) next() (arrival, bool) {
	for {
		for a.b < len(a.bursts) && a.i >= a.bursts[a.b].Count {
			a.b, a.i = a.b+1, 0
		}
		if a.b == len(a.bursts) {
			return arrival{}, false
		}
		burst := a.bursts[a.b]
		at := burst.At + micros(burst.Spread.Seconds()*float64(a.i)/float64(burst.Count))
		a.i++
		if at >= a.c.Start && at < a.c.Stop {
			return a.src.draw(at), true
		}
	}
}

// traceArrivals replays a trace's rows, shifted by the client's Start.
type traceArrivals struct {
	c       *Client
	t       Trace
	r       TraceReader
	read    int64 // rows read so far (without an error)
	failure error
}

func (a *traceArrivals) err() error { return a.failure }

// clone opens the trace again and reads as many rows as this one has: a file has
// no state to copy, so a lane on its own pays for the rows again, as it would
// have done reading the file alone.
func (a *traceArrivals) clone(*source) (arrivals, error) {
	r, err := a.t.Open()
	if err != nil {
		return nil, err
	}
	n := &traceArrivals{c: a.c, t: a.t, r: r, failure: a.failure}
	for ; n.read < a.read; n.read++ {
		if _, err := r.Next(); err != nil {
			r.Close()
			return nil, fmt.Errorf("reading the trace again: %w", err)
		}
	}
	return n, nil
}

func (a *traceArrivals) next() (arrival, bool) {
	row, err := a.r.Next()
	switch {
	case err == io.EOF:
		return a.end(a.read, nil)
	case err != nil: // it was read whole before: a row it cannot read now is new
		return a.end(a.read, fmt.Errorf("the file changed since it was read (run again): reading it now, %w", err))
	}
	a.read++
	at := a.c.Start + row.At
	if at >= a.c.Stop {
		return a.end(a.read-1, nil)
	}
	if a.read > int64(a.t.Rows) {
		return a.end(a.read, fmt.Errorf("it had %d requests before the client's stop when it was read, and has more now; the file changed since (run again)", a.t.Rows))
	}
	k, ok := a.t.KeyIndex[row.Key]
	if !ok {
		return a.end(a.read, fmt.Errorf("key %q was not in the trace when it was read; the file changed since (run again)", row.Key))
	}
	return arrival{at, k, row.Cost}, true
}

// end closes the trace, `before` rows read before the client's stop, with
// failure; or with its own when those are fewer than the file had when it was
// read (cut short since: the run would otherwise end early, as if complete).
func (a *traceArrivals) end(before int64, failure error) (arrival, bool) {
	if failure == nil && before < int64(a.t.Rows) {
		failure = fmt.Errorf("it had %d requests before the client's stop when it was read, and %d now; the file changed since (run again)", a.t.Rows, before)
	}
	a.failure = failure
	a.r.Close()
	return arrival{}, false
}
