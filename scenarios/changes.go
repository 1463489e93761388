package scenarios

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"ratelab/sim"
	"ratelab/traces"
)

// handFile reads a hand client's file of the requests sent by hand (the trace CSV
// format, time_ms,key[,cost], each row one request) into inputs: consecutive rows
// at one instant for one key and cost become one send.
func (c *compiler) handFile(client int, spec *ClientSpec, cl *sim.Client, bad func(string, string, ...any) error) error {
	rc, err := c.open(spec.File)
	if err != nil {
		return bad("file", "%v (the path is relative to %s)", err, c.src.Name)
	}
	// a file the UI wrote: sorted, every line readable, possibly no row at all
	tr, err := traces.Open(spec.File, rc, traces.Options{Format: traces.FormatCSV, TimeFormat: traces.TimeOffsetMS,
		ReorderWindow: time.Microsecond, Strict: true, AllowEmpty: true, MaxCost: sim.MaxTraceCost})
	if err != nil {
		return bad("file", "%v", err)
	}
	defer tr.Close()
	for {
		row, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if order, ok := errors.AsType[*traces.OrderError](err); ok {
			// a hand client has no reorder window to raise: its sends replay in order
			return bad("file", "%s:%d: a request sent at %s comes before one sent at %s (line %d); the requests sent by hand replay in the order of their times: sort the rows by time_ms", order.File, order.Line, order.At, order.Latest, order.LatestLine)
		}
		if err != nil {
			return bad("file", "%v", err)
		}
		pos := slices.IndexFunc(cl.Keys, func(k int) bool { return c.cfg.Keys[k].Name == row.Key })
		switch {
		case pos < 0:
			return bad("file", "%s: key %q is not one of the client's keys; give it keys (or key) that include it", spec.File, row.Key)
		case row.At >= c.cfg.Duration:
			return bad("file", "%s: a request at %s is at or after the end of the run (%s); lengthen the duration", spec.File, row.At, c.cfg.Duration)
		}
		if n := len(c.cfg.Inputs); n > 0 {
			last := &c.cfg.Inputs[n-1]
			if last.Kind == sim.InputSend && last.Client == client && last.At == row.At && last.Key == pos && last.Cost == row.Cost {
				last.Count++
				continue
			}
		}
		if len(c.cfg.Inputs) >= MaxInputs {
			return bad("file", "%s holds more than %d sends", spec.File, MaxInputs)
		}
		c.cfg.Inputs = append(c.cfg.Inputs, sim.Input{At: row.At, Kind: sim.InputSend, Client: client, Key: pos, Count: 1, Cost: row.Cost})
	}
}

// MaxInputs is the most inputs (sends and changes) a scenario may hold.
const MaxInputs = 1_000_000

// changes compiles [[scenario.change]] into inputs, and puts every input in time
// order: at one instant, the sends (in file order), then the changes (in file
// order), as the engine applies them.
func (c *compiler) changes(Overrides) error {
	for i, ch := range c.s.Changes {
		at := func(key string) []any { return []any{"change", i, key} }
		bad := func(key, format string, args ...any) error {
			return c.fail(at(key), "change %d (at %s): %s", i+1, ch.At, fmt.Sprintf(format, args...))
		}
		t := ch.At.Duration
		if t < 0 || t >= c.cfg.Duration {
			return bad("at", "at must be from 0 to before the end of the run, %s (got %s)", c.cfg.Duration, t)
		}
		made := 0
		add := func(in sim.Input) {
			in.At = t
			c.cfg.Inputs = append(c.cfg.Inputs, in)
			made++
		}
		client := -1
		if ch.Client != "" {
			client = slices.IndexFunc(c.cfg.Clients, func(cl sim.Client) bool { return cl.Name == ch.Client })
			if client < 0 {
				return bad("client", "no client %q in this scenario", ch.Client)
			}
		}
		if (ch.Rate != nil || ch.Retry != nil) && client < 0 {
			return bad("client", "a change of rate or retry needs client = \"…\"")
		}
		if ch.Rate != nil {
			per := ch.Per.Duration
			if per == 0 {
				per = time.Second
			}
			rate := *ch.Rate / per.Seconds()
			if math.IsNaN(rate) || math.IsInf(rate, 0) || rate < 0 || (rate > 0 && rate < 1e-6) || per < 0 {
				return bad("rate", "rate must be 0 (stop) or a number of requests per %s of at least one a million seconds (got %g)", per, *ch.Rate)
			}
			switch c.cfg.Clients[client].Pattern.(type) {
			case sim.Constant, sim.Poisson, sim.Ramp, sim.Hand:
			default:
				return bad("rate", "client %q sends by pattern %q, which has no rate to change", ch.Client, sim.PatternName(c.cfg.Clients[client].Pattern))
			}
			if n := RateOffer(&c.cfg.Clients[client], t, rate); !(n <= MaxOffered) {
				return bad("rate", "client %q at %g per %s from %s offers about %.3g requests until its stop at %s; ratelab replays at most %d per scenario (every lane replays them all); lower the rate", ch.Client, *ch.Rate, per, t, n, c.cfg.Clients[client].Stop, MaxOffered)
			}
			add(sim.Input{Kind: sim.InputRate, Client: client, Rate: rate})
		}
		if ch.Retry != nil {
			r, err := c.retryPolicy(ch.Retry, func(key, format string, args ...any) error {
				return c.fail([]any{"change", i, "retry", key}, "change %d (at %s): retry: %s", i+1, ch.At, fmt.Sprintf(format, args...))
			})
			if err != nil {
				return err
			}
			add(sim.Input{Kind: sim.InputRetry, Client: client, Retry: r})
		}
		if ch.ClockFix.Set() {
			add(sim.Input{Kind: sim.InputClockFix, Fix: ch.ClockFix.Value()})
		}
		if ch.Store.Set() {
			add(sim.Input{Kind: sim.InputStore, Store: ch.Store.Value()})
		}
		if ch.Glitch != nil {
			if c.cfg.Backend == nil {
				return bad("glitch", "a glitch slows the backend, and this scenario has none; add a [scenario.backend]")
			}
			add(sim.Input{Kind: sim.InputGlitch, Glitch: *ch.Glitch})
		}
		left, err := c.scaleChange(ch, add, bad)
		if err != nil {
			return err
		}
		if made == 0 && left {
			continue // a change of a lane --lanes left out
		}
		if made == 0 {
			return bad("at", "the change changes nothing; set rate, retry, clock_fix, glitch, store, or a deployed lane's instances, partition or restart")
		}
	}
	if len(c.cfg.Inputs) > MaxInputs {
		return c.fail(nil, "the scenario holds more than %d inputs", MaxInputs)
	}
	slices.SortStableFunc(c.cfg.Inputs, func(a, b sim.Input) int {
		switch {
		case a.At != b.At:
			return cmpDuration(a.At, b.At)
		case (a.Kind == sim.InputSend) != (b.Kind == sim.InputSend):
			if a.Kind == sim.InputSend {
				return -1
			}
			return 1
		}
		return 0
	})
	return c.partitionsFit()
}

func cmpDuration(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
