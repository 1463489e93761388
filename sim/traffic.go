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
// microseconds.
type arrivals interface {
	next() (arrival, bool)
	err() error
}

// generated is embedded by the generators that cannot fail.
type generated struct{}

func (generated) err() error { return nil }

// newArrivals returns c's generator, drawing from r, and how it draws an
// arrival's key and cost at a time (nil for a trace, whose rows carry them); nil
// for a closed loop, whose requests are driven by their answers instead. A trace
// that cannot be opened is an error (the loader has opened it once already, so
// this is I/O at run time).
func newArrivals(c *Client, r *rand.Rand) (arrivals, func(time.Duration) arrival, error) {
	keys := newKeyPicker(r, c.Keys, c.KeyZipf)
	draw := func(at time.Duration) arrival { return arrival{at, keys.pick(r), c.Cost.draw(r)} }
	switch p := c.Pattern.(type) {
	case Constant:
		return &constantArrivals{c: c, rate: p.Rate, draw: draw}, draw, nil
	case Poisson:
		return &poissonArrivals{c: c, rate: p.Rate, r: r, draw: draw}, draw, nil
	case Ramp:
		return &rampArrivals{c: c, from: p.From, to: p.To, draw: draw}, draw, nil
	case Bursts:
		return &burstArrivals{c: c, bursts: p.Bursts, draw: draw}, draw, nil
	case Hand:
		return noArrivals{}, draw, nil
	case Trace:
		tr, err := p.Open()
		if err != nil {
			return nil, nil, err
		}
		return &traceArrivals{c: c, t: p, r: tr}, nil, nil
	}
	return nil, nil, nil
}

// micros rounds a time in seconds down to whole microseconds.
func micros(seconds float64) time.Duration {
	return time.Duration(math.Floor(seconds*1e6)) * time.Microsecond
}

// constantArrivals: the k-th request at Start + k / rate, computed from k so
// rounding never accumulates.
type constantArrivals struct {
	generated
	c    *Client
	rate float64
	k    int64
	draw func(time.Duration) arrival
}

func (a *constantArrivals) next() (arrival, bool) {
	at := a.c.Start + micros(float64(a.k)/a.rate)
	if at >= a.c.Stop {
		return arrival{}, false
	}
	a.k++
	return a.draw(at), true
}

// poissonArrivals: exponential gaps of mean 1 / rate, summed in float seconds.
type poissonArrivals struct {
	generated
	c    *Client
	rate float64
	t    float64 // seconds after Start
	r    *rand.Rand
	draw func(time.Duration) arrival
}

func (a *poissonArrivals) next() (arrival, bool) {
	a.t += a.r.ExpFloat64() / a.rate
	at := a.c.Start + micros(a.t)
	if at >= a.c.Stop {
		return arrival{}, false
	}
	return a.draw(at), true
}

// rampArrivals: the rate moves linearly from `from` to `to` over [Start, Stop], so
// the count by τ seconds in is N(τ) = from·τ + (to − from)·τ²/(2T), and the k-th
// request comes at the τ solving N(τ) = k.
type rampArrivals struct {
	generated
	c        *Client
	from, to float64
	k        float64
	draw     func(time.Duration) arrival
}

func (a *rampArrivals) next() (arrival, bool) {
	a.k++
	span := (a.c.Stop - a.c.Start).Seconds()
	if a.k > (a.from+a.to)/2*span {
		return arrival{}, false
	}
	accel := (a.to - a.from) / (2 * span)
	// the root of accel·τ² + from·τ − k = 0 in the form that is stable when accel ≈ 0
	tau := 2 * a.k / (a.from + math.Sqrt(max(0, a.from*a.from+4*accel*a.k)))
	at := a.c.Start + micros(tau)
	if at >= a.c.Stop {
		return arrival{}, false
	}
	return a.draw(at), true
}

// burstArrivals: Count requests per burst, the i-th at At + i × Spread / Count.
type burstArrivals struct {
	generated
	c      *Client
	bursts []Burst
	b, i   int
	draw   func(time.Duration) arrival
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
			return a.draw(at), true
		}
	}
}

// traceArrivals replays a trace's rows, shifted by the client's Start.
type traceArrivals struct {
	c       *Client
	t       Trace
	r       TraceReader
	failure error
}

func (a *traceArrivals) err() error { return a.failure }

func (a *traceArrivals) next() (arrival, bool) {
	row, err := a.r.Next()
	if err != nil {
		if err != io.EOF {
			a.failure = err
		}
		a.r.Close()
		return arrival{}, false
	}
	at := a.c.Start + row.At
	if at >= a.c.Stop {
		a.r.Close()
		return arrival{}, false
	}
	k, ok := a.t.KeyIndex[row.Key]
	if !ok {
		a.failure = fmt.Errorf("key %q was not in the trace when it was read; the file changed since (run again)", row.Key)
		a.r.Close()
		return arrival{}, false
	}
	return arrival{at, k, row.Cost}, true
}
