package sim

import (
	"fmt"
	"slices"
	"time"

	"ratelab/internal/format"
)

// Inputs are what a person does to a running simulation, each at a virtual time:
// requests sent by hand, a client's rate or retry policy changed, the clock-skew
// fix switched, a backend glitch turned on or off, the store taken down, brought
// back or flushed. They are part of the run's
// configuration (Config.Inputs, and Run.AddInput for those made live), and every
// lane applies each at its instant before anything else at that instant — an input
// made live at virtual time t is made when the lanes have run every event before
// t and none at t — so a recorded session replays exactly, however it was made.

// Input is one thing done to the run at At.
type Input struct {
	At   time.Duration
	Kind InputKind
	// Client is the client sent for (Send), or changed (Rate, Retry).
	Client int
	// Send: Count requests at once for the client's key at position Key, each of
	// Cost.
	Key   int
	Count int
	Cost  int64
	// Rate: the client's new rate in requests per second, from At (0 stops it).
	Rate float64
	// Retry: the client's new retry policy, for failures from At.
	Retry Retry
	// Fix: the clock-skew fix of every token-bucket lane, from At.
	Fix ClockFix
	// Glitch: the backend serves four times slower while on.
	Glitch bool
	// Store: every lane's store goes down, comes back up, or loses its state
	// (see outage.go).
	Store StoreChange
	// Scale: the deployed lane Lane (its index) runs Instances instances from
	// At (deployed.go): new ones start empty, removed ones lose their state.
	Lane      int
	Instances int
	// Partition: the deployed lane Lane's instances Slots (from 0) are cut
	// off from the others and from the store from At; none: it heals
	// (deploy.Deployment.Partition). Restart: they are replaced by new,
	// empty ones (deploy.Deployment.Restart).
	Slots []int
}

// InputKind says what an Input does.
type InputKind int

const (
	InputSend InputKind = iota
	InputRate
	InputRetry
	InputClockFix
	InputGlitch
	InputStore
	InputScale
	InputPartition
	InputRestart
)

// ClockFix is a setting of the token bucket's monotonic timestamp for every lane.
type ClockFix int

const (
	FixAsConfigured ClockFix = iota // each lane as its scenario says
	FixOn                           // store max(now, stored): skewed clocks cannot over-grant
	FixOff                          // store whatever time is given
)

// String is the setting's name in scenario files.
func (f ClockFix) String() string { return [...]string{"as-configured", "on", "off"}[f] }

// glitchSlowdown is how much longer the backend takes to serve while glitching.
const glitchSlowdown = 4

// inputSeqs are the sequence numbers kept for inputs, below those of every other
// event (theirs start above inputSeqs), so inputs run first at their instant: the
// sends (input i: i+1), then the changes (changeSeqs + i+1), each in the order they
// were made — the order a saved session's file gives them too.
const (
	inputSeqs  = 1 << 40
	changeSeqs = 1 << 39
)

// MaxInputs is the most inputs one run may hold.
const MaxInputs = 1 << 30

// scheduleInput schedules input i of the run.
func (l *Lane) scheduleInput(i int) {
	in := (*l.inputs)[i]
	seq := uint64(i) + 1
	if in.Kind != InputSend {
		seq += changeSeqs
	}
	l.events.push(event{at: in.At, seq: seq, kind: evInput, ref: int32(i)})
}

// applyInput applies input i now.
func (l *Lane) applyInput(i int32) {
	in := (*l.inputs)[i]
	switch in.Kind {
	case InputSend:
		for n := 0; n < in.Count; n++ {
			l.attempt(l.newRequest(in.Client, in.Key, in.Cost, false))
		}
	case InputRate:
		l.setRate(in.Client)
	case InputRetry:
		if l.Config.Retry == nil { // a lane's own retry policy replaces every client's, changes too
			l.clients[in.Client].retry = in.Retry
		}
	case InputClockFix:
		monotonic := in.Fix == FixOn || (in.Fix == FixAsConfigured && l.Config.Options.MonotonicTimestamp)
		for _, lim := range l.limiters {
			if s, ok := lim.(interface{ SetMonotonic(bool) }); ok {
				s.SetMonotonic(monotonic)
			}
		}
	case InputStore:
		l.changeStore(in.Store)
	case InputScale:
		if in.Lane == l.Index && l.Config.Deployed() {
			l.scale(in.Instances)
		}
	case InputPartition:
		if in.Lane == l.Index && l.Config.Deployed() {
			l.partition(in.Slots)
		}
	case InputRestart:
		if in.Lane == l.Index && l.Config.Deployed() {
			l.restart(in.Slots)
		}
	case InputGlitch:
		if l.backend != nil {
			l.backend.b.ServiceTime = l.cfg.Backend.ServiceTime
			if in.Glitch {
				l.backend.b.ServiceTime *= glitchSlowdown
			}
		}
	}
}

// setRate makes client ci send at rate requests per second from now (constant
// spacing, or exponential gaps for a Poisson client), until its stop; 0 stops it.
// Its pending arrival is dropped. The new generator is the client's arrival
// stream's to make (see arrivalStream.step): every lane applies the same inputs
// at the same instants, so the stream switches once for all of them.
func (l *Lane) setRate(ci int) {
	c := &l.clients[ci]
	if c.feed == nil {
		return // a closed loop: its workers are its rate
	}
	c.pendingSeq = 0 // the arrival scheduled before is stale
	c.feed.restart()
	l.nextArrival(ci)
}

// rateArrivals sends at a rate from a time on: the k-th request at from + k/rate,
// or at exponential gaps of mean 1/rate.
type rateArrivals struct {
	generated
	from, stop time.Duration
	rate       float64
	poisson    bool
	k          int64
	t          float64 // seconds after from (poisson)
	src        *source
}

func (a *rateArrivals) clone(src *source) (arrivals, error) {
	n := *a
	n.src = src
	return &n, nil
}

func (a *rateArrivals) next() (arrival, bool) {
	var s float64
	if a.poisson {
		a.t += a.src.r.ExpFloat64() / a.rate
		s = a.t
	} else {
		a.k++
		s = float64(a.k) / a.rate
	}
	if s >= (a.stop - a.from).Seconds() {
		return arrival{}, false
	}
	return a.src.draw(a.from + micros(s)), true
}

// noArrivals never sends: a hand client, whose requests are inputs.
type noArrivals struct{ generated }

func (noArrivals) next() (arrival, bool)           { return arrival{}, false }
func (noArrivals) clone(*source) (arrivals, error) { return noArrivals{}, nil }

// AddInput makes in now, in every lane: in.At must be the run's current virtual
// time (the UI adds what a person does as it happens). It is recorded in the run's
// inputs, so Inputs returns the session so far.
func (r *Run) AddInput(in Input) error {
	switch {
	case in.At != r.now:
		return fmt.Errorf("an input at %s when the run is at %s", format.Duration(in.At), format.Duration(r.now))
	case len(*r.inputs) >= MaxInputs:
		return fmt.Errorf("the run already holds %d inputs", MaxInputs)
	case in.Client < 0 || in.Client >= len(r.Config.Clients):
		return fmt.Errorf("no client %d", in.Client)
	case in.Kind == InputStore && in.Store == StoreFailedOver && !slices.ContainsFunc(*r.inputs, func(p Input) bool { return p.Kind == InputStore && p.Store == StoreFailedOver }):
		// a replicated store keeps what a new replica needs only in a run that plans a failover
		return fmt.Errorf("a failover made live needs a scenario that fails its store over (store = \"failover\")")
	}
	*r.inputs = append(*r.inputs, in)
	for _, l := range r.Lanes {
		l.scheduleInput(len(*r.inputs) - 1)
	}
	return nil
}

// Inputs are the run's inputs: its configuration's, then those added live.
func (r *Run) Inputs() []Input { return *r.inputs }
