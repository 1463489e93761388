package present

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/format"
	"ratelab/internal/printable"
	"ratelab/sim"
)

// Verdict is one line saying what a lane did, judged against two yardsticks and
// saying which is which:
//
//   - the policy as a user reads it: at most limit per period in any sliding
//     window (PeakWindowRatio);
//   - the algorithm's own contract: a bucket admits at most burst + rate × T in
//     any span T (OverGrant; a limiter that grants on credit, Guava's, goes past
//     it by design, and says so), a fixed window at most its allowance in each of its
//     own windows (WindowPeakRatio) — so up to twice the limit across a boundary
//     —, the sliding log the limit in any window, exactly; the sliding counter is
//     an estimate.
//
// A sharded lane is judged as one limit (its shards add up to the policy), and
// says what the shards cost: false denials, and how evenly they admitted; so is
// a lane kept per instance (each instance the whole policy: together past it). A lane
// holding requests to several limits (each of them an atomic limiter) is judged on
// how it combines them: the units its limits granted to calls refused anyway, and
// the calls that gave up having paid.
//
// Going past the policy while keeping the contract is the algorithm doing what it
// is designed to (a bucket spending its burst, a fixed window at a boundary); a
// contract broken (skewed clocks stored as is, non-atomic writes) is over-grant,
// and quantified. A lane with no limit is judged on the load it let through.
// Ratios are shown to two decimals, never rounded into agreement.
func Verdict(cfg *sim.Config, m sim.Metrics) string {
	lane, _ := laneNamed(cfg, m.Lane)
	info, _ := algorithms.Lookup(lane.Algorithm)
	var facts []string
	if lane.Deployed() { // first: what a narrow screen keeps
		facts = append(facts, deploymentFact(lane, m))
	}
	switch {
	case info.Shape == algorithms.ShapeNone:
		fact := fmt.Sprintf("no limiter: up to %s let through in one second", plural(m.PeakAcceptedPerSecond, "request", "requests"))
		if cfg.Backend != nil {
			fact += fmt.Sprintf(", against a backend that serves %s a second", format.Number(cfg.Backend.Capacity()))
		}
		facts = append(facts, fact)
	case m.Offered == 0:
		facts = append(facts, "nothing sent yet")
	case cfg.Classes != nil:
		facts = append(facts, classedFacts(cfg, lane, info, m)...)
	case lane.MultiLimit():
		facts = append(facts, limitsFact(lane, m))
	case m.Accepted == 0:
		facts = append(facts, "accepted nothing")
	default:
		facts = append(facts, policyYardstick(cfg, lane, m), contractYardstick(cfg, lane, info, m))
	}
	if lane.Pieces() > 1 && !lane.Deployed() {
		facts = append(facts, shardsFact(lane, m))
	}
	facts = append(facts, consequences(cfg, m)...)
	return m.Lane + ": " + strings.Join(facts, "; ")
}

// laneNamed is the lane called name.
func laneNamed(cfg *sim.Config, name string) (sim.LaneConfig, bool) {
	for _, l := range cfg.Lanes {
		if l.Name == name {
			return l, true
		}
	}
	return sim.LaneConfig{}, false
}

// policyYardstick: the most admitted in any sliding window of the period, against
// the limit.
func policyYardstick(cfg *sim.Config, lane sim.LaneConfig, m sim.Metrics) string {
	period := lane.TierPolicy(cfg, 0).Period
	if m.PeakWindowRatio <= 1 {
		return fmt.Sprintf("policy held: at most %s× the limit in any %s", format.Ratio(m.PeakWindowRatio), period)
	}
	where := fmt.Sprintf("within %s from %s", format.Span(m.PeakLast-m.PeakFirst), moment(m.PeakFirst))
	if m.PeakLast == m.PeakFirst {
		where = "at one instant, " + moment(m.PeakFirst)
	}
	if len(cfg.Keys) > 1 {
		where += " for key " + printable.String(m.PeakKey) // a trace's key is data
	}
	if info, _ := algorithms.Lookup(lane.Algorithm); info.HasBurst() && m.OverGrant == 0 {
		// a bucket doing what its policy's burst allows: the rate and the burst
		return fmt.Sprintf("its burst on top of the rate: %s× the limit in one %s window, %s", format.RatioPast(m.PeakWindowRatio, 1), period, where)
	}
	return fmt.Sprintf("policy exceeded: %s× the limit in one %s window, %s", format.RatioPast(m.PeakWindowRatio, 1), period, where)
}

// moment is a virtual time for a sentence: as format.Duration, whose bare "0"
// suits a table's column but reads as a count in a sentence ("at one instant, 0
// for key …"), so the start of the run is "0s".
func moment(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	return format.Duration(d)
}

// skewed says the lane's requests are stamped by node clocks that disagree with
// the true time (an offset or a drift): a window exact on its timestamps may
// then let more through in a true second.
func skewed(cfg *sim.Config, lane sim.LaneConfig) bool {
	if lane.Clock == sim.ServerClock {
		return false
	}
	for _, n := range cfg.Nodes {
		if n.Offset != 0 || n.DriftPPM != 0 {
			return true
		}
	}
	return false
}

// contractYardstick: what the algorithm promises, kept or broken.
func contractYardstick(cfg *sim.Config, lane sim.LaneConfig, info algorithms.Info, m sim.Metrics) string {
	p := lane.TierPolicy(cfg, 0).WithDefaults()
	switch info.Shape {
	case algorithms.ShapeFixedWindow:
		if m.WindowPeakRatio > 1 {
			return fmt.Sprintf("contract broken: %s× its allowance in one of its own windows", format.Ratio(m.WindowPeakRatio))
		}
		if m.PeakWindowRatio > 1 {
			return "contract kept: at most its allowance in each of its own windows, the excess is two windows meeting at a boundary"
		}
		return "contract kept: at most its allowance in each of its own windows"
	case algorithms.ShapeSlidingWindow:
		switch {
		case info.Exact && m.PeakWindowRatio > 1 && skewed(cfg, lane):
			return fmt.Sprintf("exact on the timestamps it was given; on the true clock, the nodes' skew let %s× through", format.Ratio(m.PeakWindowRatio))
		case info.Exact && m.PeakWindowRatio > 1:
			return fmt.Sprintf("contract broken: an exact window let %s× through", format.Ratio(m.PeakWindowRatio))
		case info.Exact:
			return "contract kept: exact in every window"
		case m.PeakWindowRatio > 1:
			return "an estimate by design: it assumes the previous window's requests were spread evenly, and was off here"
		}
		return "an estimate by design, within the limit here"
	}
	if m.OverGrant > 0 && format.RoundTo(m.ExcessUnits, 0.01) > 0 { // below a hundredth of a unit: floating-point dust, kept
		// a fraction of a unit (a timer's refill a little ahead of the
		// continuous bound) is said as that fraction, never "0 units past"
		units, percent := format.RoundTo(m.ExcessUnits, 1), format.RoundTo(100*m.OverGrant, 0.1)
		if units == 0 {
			units = format.RoundTo(m.ExcessUnits, 0.01)
		}
		if percent == 0 {
			percent = format.RoundTo(100*m.OverGrant, 0.001)
		}
		span := "in its worst span"
		if len(cfg.Keys) > 1 {
			span = "in the keys' worst spans"
		}
		if info.OnCredit {
			return fmt.Sprintf("over-grant on credit: %s units past burst + rate × T %s, %s%% of what it allows; it grants a request whatever it costs when it owes nothing, and the requests after it pay", format.Number(units), span, format.Number(percent))
		}
		return fmt.Sprintf("contract broken (over-grant): %s units past burst + rate × T %s, %s%% of what it allows", format.Number(units), span, format.Number(percent))
	}
	if m.PeakWindowRatio > 1 {
		return fmt.Sprintf("contract kept: its burst of %d on top of the rate, as designed", p.Burst)
	}
	return "contract kept: at most burst + rate × T"
}

// shardsFact: what splitting the limit cost, into shards or over instances.
func shardsFact(lane sim.LaneConfig, m sim.Metrics) string {
	fact := fmt.Sprintf("%d shards, %s: ", lane.Shards, strings.ReplaceAll(lane.ShardPick.String(), "-", " "))
	piece, aPiece := "shard", "a shard"
	if lane.Balanced() {
		fact = fmt.Sprintf("%d instances, %s: ", lane.Instances, strings.ReplaceAll(lane.Balance.String(), "-", " "))
		piece, aPiece = "instance", "an instance"
	}
	if m.FalseDenials == 0 {
		fact += "no false denials"
	} else {
		fact += fmt.Sprintf("%d false denials (%s%% of decisions): refused by %s, accepted by one key under the whole limit with the same history", m.FalseDenials, format.Number(format.RoundTo(100*float64(m.FalseDenials)/float64(max(1, m.Attempts)), 0.1)), aPiece)
	}
	if m.ShardImbalance > 0 {
		fact += fmt.Sprintf("; the busiest %s admitted %s× the mean", piece, format.Ratio(m.ShardImbalance))
	}
	return fact
}

// limitsFact: how a multi-limit lane combined its limits. A lane of one limit
// (written as a limit for its key template: "global", one for all) combines
// nothing and wastes nothing: it says whose the limit is.
func limitsFact(lane sim.LaneConfig, m sim.Metrics) string {
	if len(lane.Limits) == 1 {
		l := lane.Limits[0]
		return fmt.Sprintf("one limit (%s), key %q", printable.String(l.Name), l.Template.String())
	}
	names := make([]string, len(lane.Limits))
	for i, l := range lane.Limits {
		names[i] = printable.String(l.Name) // a scenario's words, escaped before a terminal
	}
	fact := fmt.Sprintf("%d limits (%s), %s: ", len(names), strings.Join(names, ", "), strings.ReplaceAll(lane.Combine.String(), "-", " "))
	if m.WastedUnits == 0 {
		fact += "nothing they granted was wasted"
	} else {
		fact += fmt.Sprintf("%d of the %d units they granted were wasted on calls refused anyway (%s%%)", m.WastedUnits, m.GrantedUnits, format.Number(format.RoundTo(100*float64(m.WastedUnits)/float64(m.GrantedUnits), 0.1)))
	}
	if m.Starved > 0 {
		fact += fmt.Sprintf("; %s gave up having paid", plural(m.Starved, "request", "requests"))
	}
	return fact
}

// cutOff says the scenario partitions the deployed lane named lane: some of
// its instances lose their store for a while.
func cutOff(cfg *sim.Config, lane string) bool {
	return slices.ContainsFunc(cfg.Inputs, func(in sim.Input) bool {
		return in.Kind == sim.InputPartition && len(in.Slots) > 0 && cfg.Lanes[in.Lane].Name == lane
	})
}

// consequences are what followed from the decisions: Redis failures, lost races,
// retries, the backend, queueing, requests never served.
func consequences(cfg *sim.Config, m sim.Metrics) []string {
	var facts []string
	if m.StoreErrors > 0 {
		without := "Redis" // failing to answer
		if m.Backend == sim.InMemory.String() {
			without = "the store, down" // an outage of the scenario's
			if cutOff(cfg, m.Lane) {
				without = "the store, down or cut off by a partition"
			}
		}
		facts = append(facts, fmt.Sprintf("%s made without %s (on_error)", plural(m.StoreErrors, "decision", "decisions"), without))
	}
	if m.Conflicts > 0 {
		facts = append(facts, fmt.Sprintf("%s gave up after losing WATCH races", plural(m.Conflicts, "decision", "decisions")))
	}
	if m.RetryAmplification >= 1.5 {
		facts = append(facts, fmt.Sprintf("retries made %s attempts per request", format.Ratio(m.RetryAmplification)))
	}
	if cfg.Backend != nil && (m.Errors > 0 || m.Wasted > 0) {
		fact := fmt.Sprintf("the backend failed %s (busy %s%% of the run", plural(m.Errors, "request", "requests"), format.Number(format.RoundTo(100*m.BackendUtilization, 1)))
		if m.QueueTimeouts > 0 {
			fact = fmt.Sprintf("%s failed, %d of them timing out in the limiter's queue (the backend busy %s%% of the run", plural(m.Errors, "request", "requests"), m.QueueTimeouts, format.Number(format.RoundTo(100*m.BackendUtilization, 1)))
		}
		if m.Wasted > 0 {
			fact += fmt.Sprintf(", %d served for clients that had left", m.Wasted)
		}
		facts = append(facts, fact+")")
	}
	if m.QueueDelayP99 > 0 {
		facts = append(facts, fmt.Sprintf("queued work up to %s (p99)", format.Duration(m.QueueDelayP99)))
	}
	if never := m.GaveUp + m.ClientRejected; never > 0 {
		facts = append(facts, fmt.Sprintf("%d of %d requests never succeeded", never, m.Offered))
	}
	if m.ClientRejected > 0 {
		facts = append(facts, fmt.Sprintf("the clients' adaptive throttle rejected %d of them before sending them", m.ClientRejected))
	}
	if m.RetriesWithheld > 0 {
		facts = append(facts, fmt.Sprintf("the clients' retry budget or throttle withheld %d retries", m.RetriesWithheld))
	}
	// requests neither served nor given up by the end: in flight, queued,
	// waiting to retry, or held by clients that honour the RateLimit field;
	// said when more than 1% of those offered
	if pending := m.Offered - m.Succeeded - m.GaveUp - m.ClientRejected; pending*100 > m.Offered {
		facts = append(facts, fmt.Sprintf("%d of %d requests were not served by the end of the run: in flight, queued, waiting to retry or held by their clients", pending, m.Offered))
	}
	return facts
}
