package scenarios

import (
	"fmt"
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

// capacity checks that every request can be accepted by every lane at all, and
// that each lane's arithmetic stays exact over the run.
func (c *compiler) capacity(Overrides) error {
	horizon := c.cfg.Horizon()
	for li, lane := range c.cfg.Lanes {
		for ci, cl := range c.cfg.Clients {
			tier := c.cfg.Keys[cl.Keys[0]].Tier
			for _, part := range lane.Parts(c.cfg, tier) {
				p, largest := part.Policy, cl.LargestCost()
				if part.Limit >= 0 && lane.Limits[part.Limit].Cost > 0 {
					largest = lane.Limits[part.Limit].Cost
				}
				if err := c.countsRequests(li, ci, part, largest); err != nil {
					return err
				}
				room := algorithms.Capacity(part.Algorithm, p, part.Options)
				if largest > room {
					what := "burst"
					if info, _ := algorithms.Lookup(part.Algorithm); info.Shape == algorithms.ShapeFixedWindow || info.Shape == algorithms.ShapeSlidingWindow {
						what = "limit per window"
					}
					whose, fix := fmt.Sprintf("lane %q's", lane.Name), ""
					switch {
					case part.Shard >= 0:
						whose = fmt.Sprintf("lane %q's shard %d's (its %s split %d ways)", lane.Name, part.Shard, what, lane.Shards)
						fix = ", or use fewer shards"
					case part.Limit >= 0:
						whose = fmt.Sprintf("lane %q's limit %q's", lane.Name, lane.Limits[part.Limit].Name)
					}
					return c.fail([]any{"client", ci, "cost"}, "client %q: a request may cost %d, more than %s %s of %d, so it could never be accepted; lower the cost or raise the %s%s", cl.Name, largest, whose, what, room, what, fix)
				}
				if err := p.Validate(largest); err != nil {
					return c.fail([]any{"lane", li}, "lane %q: %v", lane.Name, err)
				}
				if err := p.CheckHorizon(horizon); err != nil {
					return c.fail([]any{"duration"}, "lane %q: %v", lane.Name, err)
				}
			}
		}
	}
	return nil
}

// countsRequests refuses a request that may cost more than 1 (largest) from
// client ci to part of lane li when the part's product counts requests, not
// units (algorithms.Info.CountsRequests): such a request is none the product
// would see, and the lane would decide what the product never does. Placed at
// what sets the cost: a limit's own cost, the client's cost or
// cost_distribution, its trace's cost_field, its hand file.
func (c *compiler) countsRequests(li, ci int, part sim.Part, largest int64) error {
	info, _ := algorithms.Lookup(part.Algorithm)
	lane, cl := c.cfg.Lanes[li], c.cfg.Clients[ci]
	if !info.CountsRequests {
		return nil
	}
	const why = "counts requests, not units: each request is 1 there, whatever it costs, so ratelab refuses to decide one that costs more"
	if part.Limit >= 0 && lane.Limits[part.Limit].Cost > 0 {
		if cost := lane.Limits[part.Limit].Cost; cost > 1 {
			return c.fail([]any{"lane", li}, "lane %q: limit %q: cost = %d, but %s %s; set its cost = 1 (or \"cost\" with clients of cost 1), or give the limit an algorithm that charges units (%s, say)", lane.Name, lane.Limits[part.Limit].Name, cost, part.Algorithm, why, algorithms.TokenBucketName)
		}
		return nil
	}
	if largest <= 1 {
		for _, in := range c.cfg.Inputs {
			if in.Kind == sim.InputSend && in.Client == ci && in.Cost > 1 {
				return c.fail([]any{"client", ci, "file"}, "client %q: its file sends a request of cost %d at %v, but lane %q runs %s, which %s; send cost 1 (or leave the cost column out), or run the lane on an algorithm that charges units (%s, say)", cl.Name, in.Cost, in.At, lane.Name, part.Algorithm, why, algorithms.TokenBucketName)
			}
		}
		return nil
	}
	spec := c.s.Clients[ci]
	key, what := "cost", fmt.Sprintf("cost = %d", largest)
	switch {
	case spec.CostDistribution != nil:
		key, what = "cost_distribution", fmt.Sprintf("cost_distribution draws costs up to %d", largest)
	case spec.CostField != "" || cl.LargestCost() != cl.Cost.Fixed:
		key, what = "file", fmt.Sprintf("its trace has requests of cost up to %d", largest)
	}
	fixes := map[string]string{"cost": "remove cost (1 is the default)", "cost_distribution": "remove cost_distribution", "file": `read the log without its costs (cost_field = "none", or --cost-field none: every request costs 1)`}
	return c.fail([]any{"client", ci, key}, "client %q: %s, but lane %q runs %s, which %s; %s, or run the lane on an algorithm that charges units (%s, say)", cl.Name, what, lane.Name, part.Algorithm, why, fixes[key], algorithms.TokenBucketName)
}

// RateOffer is about how many requests client cl sends at rate (a second) from
// t until its stop, each of its events delivered Deliveries times: the bound
// load holds a client's own rate to, MaxOffered, holds a rate set by a change or
// by the UI's keys too.
func RateOffer(cl *sim.Client, t time.Duration, rate float64) float64 {
	return offerAt(cl, t, rate) * float64(cl.Deliveries)
}

// offerAt is about how many events client cl sends at rate (a second) from t
// until its stop: a Poisson client's counted a tenth over, for its chance.
func offerAt(cl *sim.Client, t time.Duration, rate float64) float64 {
	n := rate * (cl.Stop - max(t, cl.Start)).Seconds()
	if _, poisson := cl.Pattern.(sim.Poisson); poisson {
		n *= 1.1
	}
	return n
}

// load estimates the logical requests the scenario will generate and refuses one
// that is too large to replay.
func (c *compiler) load(Overrides) error {
	var total float64
	for i, cl := range c.cfg.Clients {
		span := (cl.Stop - cl.Start).Seconds()
		var n float64
		switch p := cl.Pattern.(type) {
		case sim.Constant:
			n = offerAt(&cl, cl.Start, p.Rate)
		case sim.Poisson:
			n = offerAt(&cl, cl.Start, p.Rate)
		case sim.Ramp:
			n = (p.From + p.To) / 2 * span
		case sim.Bursts:
			for _, b := range p.Bursts {
				n += float64(b.Count)
			}
		case sim.ClosedLoop:
			n = float64(p.Concurrency) * span / (p.Think + cl.Latency).Seconds()
		case sim.Trace:
			n = float64(p.Rows)
		}
		n *= float64(cl.Deliveries)
		if !(n <= MaxOffered) { // NaN too
			return c.fail([]any{"client", i}, "client %q: offers about %.3g requests over %s; ratelab replays at most %d per scenario (every lane replays them all); lower the rate or shorten the run", cl.Name, n, cl.Stop-cl.Start, MaxOffered)
		}
		total += n
	}
	if !(total <= MaxOffered) {
		return c.fail(nil, "the clients offer about %.3g requests in all; ratelab replays at most %d per scenario; lower the rates or shorten the run", total, MaxOffered)
	}
	c.offered = total
	return nil
}
