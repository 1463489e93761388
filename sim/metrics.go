package sim

import (
	"time"

	"ratelab/algorithms"
	"ratelab/internal/histogram"
)

// Metrics is a lane's comparison figures. They are defined here once and shown by
// the UI, the summary table, JSON and CSV alike.
type Metrics struct {
	Lane      string          `json:"lane"`
	Algorithm algorithms.Name `json:"algorithm"`
	Backend   string          `json:"backend"` // "memory" or "redis"

	// Offered is the logical requests the clients generated (each delivery
	// counts); Attempts the decisions asked for, retries included.
	Offered  int64 `json:"offered"`
	Attempts int64 `json:"attempts"`
	// Accepted and Denied split the decisions (Attempts = Accepted + Denied once
	// every decision in flight has landed).
	Accepted int64 `json:"accepted"`
	Denied   int64 `json:"denied"`
	// Errors is the accepted requests that failed: the backend's queue was
	// full, or the client's deadline (the backend's timeout, from when it sent
	// the attempt) passed, at the backend or still in the limiter's queue.
	// Wasted is the work the backend did for clients that had already given up.
	Errors int64 `json:"errors"`
	Wasted int64 `json:"wasted"`
	// Succeeded is the logical requests that finished well: accepted and, with a
	// backend, served. GaveUp is those the client stopped retrying.
	Succeeded int64 `json:"succeeded"`
	GaveUp    int64 `json:"gave_up"`
	// Goodput is Succeeded / Offered: the share of logical requests served
	// (with a backend, within the client's deadline); 0 before any was offered.
	// The rest were given up on, or are still in flight at the run's end.
	Goodput float64 `json:"goodput"`
	// ClientRejected is the attempts the client's own adaptive throttle
	// rejected before sending them, each ending its request (not in GaveUp:
	// no attempt was made, and no row written), and
	// RetriesWithheld the retries a client's retry policy would have sent that
	// its retry budget or throttle withheld (sim.Retry's remedies).
	ClientRejected  int64 `json:"client_rejected,omitempty"`
	RetriesWithheld int64 `json:"retries_withheld,omitempty"`
	// Conflicts is the WATCH commits that lost to another writer and gave up.
	Conflicts int64 `json:"conflicts"`
	// StoreErrors is the decisions made by the lane's on_error because its store
	// (Redis) failed; for a lane that calls several limiters per decision (shards,
	// several limits), the calls that failed.
	StoreErrors int64 `json:"store_errors"`
	// StoreCalls is the round trips to the limiter's store.
	StoreCalls int64 `json:"store_calls"`

	// RetryAmplification is Attempts / Offered: 1 when nobody retries.
	RetryAmplification float64 `json:"retry_amplification"`
	// PeakWindowRatio is the most units admitted for one key within any sliding
	// window of its policy's period, divided by its limit: above 1, the limit was
	// exceeded for someone. PeakFirst and PeakLast bound that window's admissions.
	PeakWindowRatio float64       `json:"peak_window_ratio"`
	PeakFirst       time.Duration `json:"peak_first_ms"`
	PeakLast        time.Duration `json:"peak_last_ms"`
	PeakKey         string        `json:"-"`

	// OverGrant is how far admitted units went past the algorithm's contract,
	// capacity + rate × T in any span T (capacity as algorithms.Capacity: the burst
	// for buckets, the limit for windows): ExcessUnits, each key's most past it in
	// one span (its worst; overgrant.go), over MaxUnits, what the contract allows
	// the keys from each one's first admission to its last: 0 when no key got
	// more in any span. Admission is when accepted work goes ahead, so queued and
	// reserved work counts when it runs, not when it was promised.
	OverGrant float64 `json:"over_grant"`
	// AcceptedUnits (admitted) and MaxUnits are the totals over all keys;
	// ExcessUnits is what keys got past their contract, each in its worst span
	// (the numerator of OverGrant): a key may go over while the totals do not.
	AcceptedUnits int64   `json:"accepted_units"`
	MaxUnits      float64 `json:"max_units"`

	// LatencyP50 and LatencyP99 measure success latency: from a logical request's
	// first attempt to its success. QueueDelayP99 is the delay accepted requests
	// waited in a leaky-bucket queue or for a reservation.
	LatencyP50    time.Duration `json:"latency_p50_ms"`
	LatencyP99    time.Duration `json:"latency_p99_ms"`
	QueueDelayP99 time.Duration `json:"queue_delay_p99_ms"`
	// Fairness is Jain's index, (Σx)² / (n·Σx²), over x = the share of logical
	// requests that succeeded for each client and key it used (each identity), for
	// those that offered any: 1 when all fared alike, 1/n when one got everything.
	Fairness float64 `json:"fairness"`
	// BackendUtilization is the share of the backend's capacity in use over the
	// run; 0 without a backend.
	BackendUtilization float64 `json:"backend_utilization"`
	// PeakStateBytes is the most state the limiter held (see
	// algorithms.Limiter.StateBytes); PeakKeys the most keys (held.go).
	PeakStateBytes int64 `json:"peak_state_bytes"`
	PeakKeys       int   `json:"peak_keys"`

	// WindowPeakRatio, for a fixed window, is the most units one key got in one
	// of the algorithm's own windows over that window's allowance: at most 1 when
	// it kept its promise (its boundary bursts do not break it). 0 for others.
	WindowPeakRatio float64 `json:"window_peak_ratio"`
	// PeakAcceptedPerSecond is the most decisions the lane allowed, over all keys,
	// in one second (whole ticks): the load it let through.
	PeakAcceptedPerSecond int64   `json:"peak_accepted_per_second"`
	ExcessUnits           float64 `json:"excess_units"`
	// PeakSpan is PeakLast − PeakFirst: how quickly the peak window filled.
	PeakSpan time.Duration `json:"peak_span_ms"`

	// FalseDenials, for a sharded lane (or one kept per instance, an instance
	// for a shard), is the decisions its shard refused that
	// the limit as a whole would have accepted: one key under the lane's whole
	// policy, same algorithm, fed the same history (every request the shards
	// accepted, at the same instants) — see Lane.wholeLimit. Summing the shards'
	// fractional room instead would count refusals no single limit makes.
	FalseDenials int64 `json:"false_denials"`
	// ShardImbalance, for a sharded lane (or one kept per instance), is the
	// most units one shard (instance) admitted over the mean of all shards' (1:
	// even; 0 before any admission).
	ShardImbalance float64 `json:"shard_imbalance"`
	// GrantedUnits, for a multi-limit lane, is the units its limits granted, each
	// limit's counted (a request of 1 request and 400 tokens granted by both is
	// 401); WastedUnits those granted to requests that another limit refused —
	// capacity spent for nothing (in-order, or check-then-consume's race).
	GrantedUnits int64 `json:"granted_units"`
	WastedUnits  int64 `json:"wasted_units"`
	// Starved is the logical requests never served (the client gave up) that had
	// units spent for them by a limit on some attempt.
	Starved int64 `json:"starved"`
	// QueueTimeouts is the Errors whose client's deadline passed while they
	// were still in the limiter's queue (a leaky bucket's queue, a
	// reservation): accepted by the limiter, never forwarded.
	QueueTimeouts int64 `json:"queue_timeouts"`
	// OrdinaryAttempts and OrdinaryDenied are the decisions on the ordinary keys
	// of the configuration's Classes (all but the heavy hitters) and those
	// refused; HeavyAttempts and HeavyAccepted the decisions on the heavy
	// hitters and those allowed: what ratelab tune judges a policy by, as the
	// shares OrdinaryDenied / OrdinaryAttempts and HeavyAccepted / HeavyAttempts
	// (see OrdinaryDeniedShare). All 0, and left out of the JSON, without Classes.
	OrdinaryAttempts int64 `json:"ordinary_attempts,omitempty"`
	OrdinaryDenied   int64 `json:"ordinary_denied,omitempty"`
	HeavyAttempts    int64 `json:"heavy_attempts,omitempty"`
	HeavyAccepted    int64 `json:"heavy_accepted,omitempty"`

	// A deployed lane's figures (LaneConfig.Deploy; in the JSON only for
	// one, as their tag ratelab:"deployment" says), against the ideal: one
	// limiter of the policy, synchronised instantly, asked about the same
	// attempts (deploy.Score). Its FalseDenials are the decisions it refused
	// that the ideal admitted, ExcessAdmissions those it admitted that the
	// ideal refused, IdealAccepted those the ideal admitted. Instances is the
	// membership at the end. OvershootUnits is the units it admitted beyond
	// the ideal over the run, OvershootWindowUnits the most beyond it for one
	// key in any span of at most one period, and OvershootRatio that over the
	// limit. Converge is the longest a membership change took to bring its
	// admissions in a period back within a tenth of the limit of the ideal's.
	// SyncMessagesPerSecond and StoreCallsPerSecond are what its protocol sent
	// between instances and to its store, per second of the run.
	Instances             int           `json:"instances" ratelab:"deployment"`
	OvershootUnits        int64         `json:"overshoot_units" ratelab:"deployment"`
	OvershootWindowUnits  int64         `json:"overshoot_window_units" ratelab:"deployment"`
	OvershootRatio        float64       `json:"overshoot_ratio" ratelab:"deployment"`
	ExcessAdmissions      int64         `json:"excess_admissions" ratelab:"deployment"`
	IdealAccepted         int64         `json:"ideal_accepted" ratelab:"deployment"`
	Converge              time.Duration `json:"converge_ms" ratelab:"deployment"`
	SyncMessagesPerSecond float64       `json:"sync_messages_per_second" ratelab:"deployment"`
	StoreCallsPerSecond   float64       `json:"store_calls_per_second" ratelab:"deployment"`
	// Rules: each rule's refusals, decided and would-be (rules.go); nil before one.
	Rules       []RuleTally `json:"rules,omitempty"`
	deployed    bool
	unconverged bool // a membership change not followed by a period within a tenth of the limit of the ideal (deploy.Score.Converged)
	// severalLimits marks a multi-limit lane, which has no one policy to hold its
	// admissions against (peak/limit and over-grant are not measured).
	severalLimits bool
}

// Deployed says the metrics are a deployed lane's (the deployment figures
// apply).
func (m Metrics) Deployed() bool { return m.deployed }

// Converged says a deployed lane came back within a tenth of the limit of its
// ideal after each membership change, for a period, before the next or the
// run's end (Converge measures how long it took); false when it had not.
func (m Metrics) Converged() bool { return !m.unconverged }

// openingMetrics are a lane's counts before anything happened: its names only.
func openingMetrics(lc LaneConfig) Metrics {
	m := Metrics{Lane: lc.Name, Algorithm: lc.Algorithm, Backend: lc.Backend.String()}
	if lc.Deployed() {
		m.deployed, m.Instances = true, lc.Instances
	}
	return m
}

// HeldToOnePolicy says the lane holds its requests to one policy, the yardstick
// of peak/limit and over-grant: false for the no-limit lane (nothing to hold)
// and for a lane of several limits (no one policy), whose figures are 0 and shown
// as a dash.
func (m Metrics) HeldToOnePolicy() bool {
	info, _ := algorithms.Lookup(m.Algorithm)
	return info.Shape != algorithms.ShapeNone && !m.severalLimits
}

// OrdinaryDeniedShare is OrdinaryDenied / OrdinaryAttempts, and false before
// any decision on an ordinary key.
func (m Metrics) OrdinaryDeniedShare() (float64, bool) {
	if m.OrdinaryAttempts == 0 {
		return 0, false
	}
	return float64(m.OrdinaryDenied) / float64(m.OrdinaryAttempts), true
}

// HeavyAcceptedShare is HeavyAccepted / HeavyAttempts, and false before any
// decision on a heavy hitter.
func (m Metrics) HeavyAcceptedShare() (float64, bool) {
	if m.HeavyAttempts == 0 {
		return 0, false
	}
	return float64(m.HeavyAccepted) / float64(m.HeavyAttempts), true
}

// keyStats is what a lane keeps per key for the metrics, in one 64-byte cache line:
// the counters of the key's own (client, key) identity (the first client using the
// key; others' are in recorder.extra), its admissions for over-grant, and its peak
// window's ring (see peak.go).
type keyStats struct {
	offered, succeeded int32 // logical requests of the key's own identity
	admitted           int64 // units
	first, last        time.Duration
	sum, peak          int64 // units in the window now, and the most ever
	ringOff, ringCap   int32 // the ring's place in the arena
	head, n            int32
}

// pairStats counts one (client, key) identity's logical requests, for fairness.
type pairStats struct{ offered, succeeded int64 }

// recorder accumulates a lane's metrics as decisions land. Most figures are kept
// as they go — counts, the peak window's maximum over keys (running.go), a fixed
// window's sums — so taking them costs the same for ten keys as for a million;
// the two sums over keys that floating point would have to add up in key order
// to stay the same bytes every time (fairness, the most units and the excess)
// are summed over every key by finish, and kept running only for a live view
// (see live and Run.KeepLive).
type recorder struct {
	m          Metrics
	keys       []keyStats
	peaks      []peakSpan        // per key, where its peak window was
	arena      []packedAdmission // the keys' peak-window rings
	extra      []pairStats       // identities of keys shared with an earlier client
	latency    histogram.Histogram
	queueDelay histogram.Histogram
	windows    []windowStats // per key, fixed-window lanes only
	scopes     scopeStats    // the claims' scopes
	shardUnits []int64       // per shard, the units it admitted (sharded lanes)
	byClient   []ClientTally // per client, its attempts decided and accepted (byclient.go)
	rules      []RuleTally   // per rule (named in ruleNames), its refusals (rules.go); nil before one
	ruleNames  []string
	spans      []spanLevel        // per key, its contract level (overgrant.go)
	later      [][]laterAdmission // per key, its admissions still to go ahead, in time order (nil before the first)
	waiting    map[int32]bool     // the keys with admissions still to go ahead (spanLevel.waits)

	cfg     *Config
	lane    LaneConfig
	tiers   []tierFigures // per tier, the yardsticks its keys are held to
	running running       // the figures kept as decisions land (running.go)
	live    *liveSums     // the sums over keys kept as they change, for a live view; nil when not kept
}

// newRecorder is the recorder of lane in cfg, with room for cfg's keys' stats
// (the identities of keys shared by several clients are added as they are found).
func newRecorder(cfg *Config, lane LaneConfig) recorder {
	r := recorder{cfg: cfg, lane: lane, keys: make([]keyStats, len(cfg.Keys)), peaks: make([]peakSpan, len(cfg.Keys)),
		spans: make([]spanLevel, len(cfg.Keys)), byClient: make([]ClientTally, len(cfg.Clients)), running: newRunning()}
	for t := range cfg.Tiers {
		p := lane.TierPolicy(cfg, t)
		capacity := algorithms.Capacity(lane.Algorithm, p, lane.Options)
		r.tiers = append(r.tiers, tierFigures{policy: p.WithDefaults(), capacity: capacity,
			contract: newContractCredits(p.WithDefaults(), capacity), allowance: float64(p.Limit + lane.Options.Rollover)})
	}
	return r
}

// identity is a (client, key) pair: the key's own counters when pair < 0, else
// recorder.extra[pair].
type identity struct{ key, pair int32 }

// counts is identity id's logical requests offered and succeeded.
func (r *recorder) counts(id identity) (offered, succeeded int64) {
	if id.pair < 0 {
		return int64(r.keys[id.key].offered), int64(r.keys[id.key].succeeded)
	}
	return r.extra[id.pair].offered, r.extra[id.pair].succeeded
}

func (r *recorder) offered(id identity) {
	r.share(-1, id)
	if id.pair < 0 {
		r.keys[id.key].offered++
	} else {
		r.extra[id.pair].offered++
	}
	r.share(+1, id)
}

func (r *recorder) succeeded(id identity) {
	r.share(-1, id)
	if id.pair < 0 {
		r.keys[id.key].succeeded++
	} else {
		r.extra[id.pair].succeeded++
	}
	r.share(+1, id)
}

// share adds (sign +1) or takes out (-1) identity id's term of the live
// fairness sums, when they are kept.
func (r *recorder) share(sign float64, id identity) {
	if r.live != nil {
		offered, succeeded := r.counts(id)
		r.live.share(sign, offered, succeeded)
	}
}

// admit records cost units of key going ahead at `at`, decided now (at >= now).
func (r *recorder) admit(key int32, at, now time.Duration, cost int64, period time.Duration) {
	ks := &r.keys[key]
	t := &r.tiers[r.cfg.Keys[key].Tier]
	if r.live != nil {
		r.live.measure(-1, t, ks)
	}
	previous, seen := ks.last, ks.admitted > 0 // the key's latest admission so far, if any
	if ks.admitted == 0 {
		ks.first = at
	}
	ks.first, ks.last = min(ks.first, at), max(ks.last, at)
	ks.admitted += cost
	r.running.acceptedUnits += cost
	if r.live != nil {
		r.live.measure(+1, t, ks)
	}
	r.addToWindow(key, at, cost, period, previous, seen)
	r.spanAdmit(key, &t.contract, at, now, cost)
}

// keySums are the sums over keys finish adds up in key order: the fairness
// index's (over every identity that offered anything) and, for the algorithms'
// contract, the most units each key may have had from its first admission to its
// last, and the most it got past its contract in any span (overgrant.go).
type keySums struct {
	fairSum, fairSq, fairN float64
	mostUnits, excess      float64
}

// mostUnits is the most units a key of tier t may have had admitted from its
// first admission to its last: capacity + limit × T / period.
func (t *tierFigures) mostUnits(ks *keyStats) float64 {
	return float64(t.capacity) + float64(t.policy.Limit)*float64(ks.last-ks.first)/float64(t.policy.Period)
}

// sumKeys adds up keySums over every key, in key order: what finish reports.
func (r *recorder) sumKeys() keySums {
	var s keySums
	share := func(offered, succeeded int64) {
		if offered > 0 {
			x := float64(succeeded) / float64(offered)
			s.fairSum, s.fairSq, s.fairN = s.fairSum+x, s.fairSq+x*x, s.fairN+1
		}
	}
	for _, ks := range r.keys {
		share(int64(ks.offered), int64(ks.succeeded))
	}
	for _, ps := range r.extra {
		share(ps.offered, ps.succeeded)
	}
	for i := range r.keys {
		ks := &r.keys[i]
		if ks.admitted > 0 {
			s.mostUnits += r.tiers[r.cfg.Keys[i].Tier].mostUnits(ks)
		}
	}
	r.spanExcesses(func(_ int32, excess float64) { s.excess += excess })
	return s
}

// finish is the lane's metrics, its sums over keys added up in key order (the
// same bytes every time; O(keys)).
func (r *recorder) finish() Metrics { return r.metrics(r.sumKeys()) }

// live is the lane's metrics from the sums kept as they changed (O(1)): the same
// as finish's but for the last bits of fairness, max_units and over-grant, which
// floating point adds up in another order. Only with r.live kept.
func (r *recorder) liveMetrics() Metrics { return r.metrics(r.liveKeySums()) }

// metrics derives the lane's metrics from the counts and the running figures,
// with sums the sums over keys.
func (r *recorder) metrics(sums keySums) Metrics {
	m := r.m
	m.Rules = r.ruleTallies()
	lane := r.lane
	if m.Offered > 0 {
		m.RetryAmplification = float64(m.Attempts) / float64(m.Offered)
		m.Goodput = float64(m.Succeeded) / float64(m.Offered)
	}
	m.LatencyP50 = r.latency.Quantile(0.50)
	m.LatencyP99 = r.latency.Quantile(0.99)
	m.QueueDelayP99 = r.queueDelay.Quantile(0.99)
	if b := r.running.best; b.key >= 0 {
		m.PeakWindowRatio, m.PeakFirst, m.PeakLast = b.ratio, r.peaks[b.key].first, r.peaks[b.key].last
		m.PeakKey = r.cfg.Keys[b.key].Name
	}
	m.MaxUnits = sums.mostUnits
	m.AcceptedUnits = r.running.acceptedUnits
	m.Fairness = 1
	if sums.fairSq > 0 {
		m.Fairness = sums.fairSum * sums.fairSum / (sums.fairN * sums.fairSq)
	}
	if m.MaxUnits > 0 {
		m.OverGrant = sums.excess / m.MaxUnits
	}
	m.ExcessUnits = sums.excess
	if r.windows != nil {
		w := r.running.window
		m.WindowPeakRatio = w.peakRatio
		// a fixed window's promise is its allowance in each of its own windows, not
		// burst + rate × T: two full windows meeting at a boundary break no promise
		m.MaxUnits, m.ExcessUnits, m.OverGrant = w.most, w.excess, 0
		if w.most > 0 {
			m.OverGrant = w.excess / w.most
		}
	}
	m.ShardImbalance = imbalance(r.shardUnits)
	if info, _ := algorithms.Lookup(lane.Algorithm); info.Shape == algorithms.ShapeNone || lane.MultiLimit() {
		// no limit, or several: no one policy or contract to hold admissions against
		m.severalLimits = lane.MultiLimit()
		m.PeakWindowRatio, m.PeakFirst, m.PeakLast, m.PeakKey = 0, 0, 0, ""
		m.OverGrant, m.MaxUnits, m.ExcessUnits = 0, 0, 0
	}
	m.PeakSpan = m.PeakLast - m.PeakFirst // 0 where there is no peak window to measure
	return m
}

// imbalance is the largest of units over their mean; 0 when all are 0.
func imbalance(units []int64) float64 {
	var sum, most int64
	for _, u := range units {
		sum, most = sum+u, max(most, u)
	}
	if sum == 0 {
		return 0
	}
	return float64(most) * float64(len(units)) / float64(sum)
}
