package e2e

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/histogram"
	"ratelab/present"
	"ratelab/sim"
)

// Recomputing a lane's metrics from the request and series CSVs, by the
// definitions of sim.Metrics (sim/metrics.go, sim/peak.go, sim/contract.go),
// reading nothing of the run but the two files and the scenario's policies.

// laneFromCSV is what one lane's rows add up to.
type laneFromCSV struct {
	offered, attempts                       int64 // from the series
	decisions, accepted, denied             int64 // rows
	firstAttempts                           int64 // rows of first attempts
	errors, wasted, succeeded, gaveUp       int64
	latency, queueDelay                     histogram.Histogram
	keys                                    []keyFromCSV
	identities                              map[[2]int]*[2]int64 // (client, key) → offered, succeeded
	windows                                 []fixedWindow
	seriesErrors, storeErrors, perSecondMax int64
	openedByError, refusedByError           int64   // rows decided by on_error (store_error)
	perSecond                               []int64 // the last second of ticks' accepted
	tick                                    int
	rules                                   rulesFromCSV
	// the classed keys' rows: ordinary, ordinary denied, heavy, heavy allowed
	ordinary, ordinaryDenied, heavy, heavyAccepted int64
	// a deployed lane's ideal and score (nil for another lane)
	deployed *deployedFromCSV
}

// keyFromCSV is one key's admissions: units, first and last, and its peak window.
type keyFromCSV struct {
	all                 []admission // every admission, as read
	admitted, sum, peak int64
	first, last         time.Duration
	window              []admission // in time order, within one period of the newest
	peakFirst, peakLast time.Duration
	seen                bool
}

type admission struct {
	at   time.Duration // to the microsecond, as the recorder packs it
	cost int64
}

type fixedWindow struct {
	window, count, peak int64
	seen                bool
}

// recompute reads the two CSVs and returns each lane's metrics under the JSON's
// names, in the lanes' order.
func recompute(cfg *sim.Config, rowsPath, seriesPath string) ([]map[string]any, error) {
	lanes := make([]*laneFromCSV, len(cfg.Lanes))
	laneIndex, clientIndex, keyIndex := map[string]int{}, map[string]int{}, map[string]int{}
	for i, l := range cfg.Lanes {
		laneIndex[l.Name] = i
		lanes[i] = &laneFromCSV{keys: make([]keyFromCSV, len(cfg.Keys)), identities: map[[2]int]*[2]int64{},
			windows: make([]fixedWindow, len(cfg.Keys)), perSecond: make([]int64, max(1, int((time.Second+cfg.Tick-1)/cfg.Tick))),
			deployed: newDeployedFromCSV(cfg, i)}
	}
	for i, c := range cfg.Clients {
		clientIndex[c.Name] = i
	}
	for i, k := range cfg.Keys {
		keyIndex[k.Name] = i
	}
	err := eachRecord(rowsPath, present.RequestColumns, func(r map[string]string) error {
		li, ok := laneIndex[r["lane"]]
		if !ok {
			return fmt.Errorf("unknown lane %q", r["lane"])
		}
		lc, l := cfg.Lanes[li], lanes[li]
		client, key := clientIndex[r["client"]], keyIndex[r["key"]]
		id := l.identities[[2]int{client, key}]
		if id == nil {
			id = new([2]int64)
			l.identities[[2]int{client, key}] = id
		}
		l.decisions++
		if l.deployed != nil {
			cost, _ := strconv.ParseInt(r["cost"], 10, 64)
			l.deployed.row(r["key"], cfg.Keys[key].Tier, millis(r["time_ms"]), cost, r["allowed"] == "true")
		}
		if c := cfg.Classes; c != nil && c.Heavy[key] {
			l.heavy++
			if r["allowed"] == "true" {
				l.heavyAccepted++
			}
		} else if c != nil {
			l.ordinary++
			if r["allowed"] != "true" {
				l.ordinaryDenied++
			}
		}
		if err := l.rules.row(r); err != nil {
			return err
		}
		if r["attempt"] == "1" {
			id[0]++
			l.firstAttempts++
		}
		switch r["outcome"] {
		case "served":
			l.succeeded++
			id[1]++
			l.latency.Add(millis(r["latency_ms"]))
		case "gave_up":
			l.gaveUp++
		}
		if r["wasted"] == "true" {
			l.wasted++
		}
		if r["allowed"] != "true" {
			l.denied++
			if r["outcome"] == "store_error" { // refused by on_error: retried, or given up, the row does not say
				l.refusedByError++
			}
			return nil
		}
		l.accepted++
		switch r["outcome"] {
		case "failed", "timed_out", "gave_up": // accepted, then failed at the backend
			l.errors++
		case "store_error": // let through by on_error (open): its fate is not in the row
			l.openedByError++
		}
		if r["admitted_at_ms"] == "" { // left a leaky queue before its turn: never went ahead
			return nil
		}
		cost, _ := strconv.ParseInt(r["cost"], 10, 64)
		l.queueDelay.Add(millis(r["queue_delay_ms"]))
		tier := cfg.Keys[key].Tier
		l.admit(key, millis(r["admitted_at_ms"]), cost, lc.TierPolicy(cfg, tier).Period)
		if info, _ := algorithms.Lookup(lc.Algorithm); info.Shape == algorithms.ShapeFixedWindow {
			l.windowAdmit(cfg, lc, key, millis(r["decided_at_ms"]), cost)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rowsPath, err)
	}
	err = eachRecord(seriesPath, present.SeriesColumns, func(r map[string]string) error {
		l := lanes[laneIndex[r["lane"]]]
		accepted, _ := strconv.ParseInt(r["accepted"], 10, 64)
		l.perSecond[l.tick%len(l.perSecond)] = accepted
		l.tick++
		var sum int64
		for _, n := range l.perSecond {
			sum += n
		}
		l.perSecondMax = max(l.perSecondMax, sum)
		n, _ := strconv.ParseInt(r["offered"], 10, 64)
		l.offered += n
		n, _ = strconv.ParseInt(r["attempts"], 10, 64)
		l.attempts += n
		n, _ = strconv.ParseInt(r["backend_errors"], 10, 64)
		l.seriesErrors += n
		n, _ = strconv.ParseInt(r["store_errors"], 10, 64)
		l.storeErrors += n
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", seriesPath, err)
	}
	out := make([]map[string]any, len(lanes))
	for i, l := range lanes {
		// the rows' backend failures are the series', but for requests on_error
		// let through (a store that failed open), whose rows say store_error:
		// those only the series counts
		if l.seriesErrors < l.errors || l.seriesErrors > l.errors+l.openedByError {
			return nil, fmt.Errorf("lane %q: the series counts %d backend errors, the rows %d (and %d let through by on_error)", cfg.Lanes[i].Name, l.seriesErrors, l.errors, l.openedByError)
		}
		l.errors = l.seriesErrors
		if l.decisions != l.accepted+l.denied || l.decisions > l.attempts {
			return nil, fmt.Errorf("lane %q: %d rows, %d accepted and %d denied, of %d attempts", cfg.Lanes[i].Name, l.decisions, l.accepted, l.denied, l.attempts)
		}
		out[i] = l.metrics(cfg, cfg.Lanes[i])
	}
	return out, nil
}

// admit is recorder.admit and addToWindow: cost units of key going ahead at `at`.
func (l *laneFromCSV) admit(key int, at time.Duration, cost int64, period time.Duration) {
	ks := &l.keys[key]
	if !ks.seen {
		ks.first, ks.seen = at, true
	}
	ks.first, ks.last = min(ks.first, at), max(ks.last, at)
	ks.admitted += cost
	ks.all = append(ks.all, admission{at, cost}) // to the ns, as over-grant measures
	a := admission{at.Truncate(time.Microsecond), cost}
	i := len(ks.window)
	for i > 0 && ks.window[i-1].at > a.at {
		i--
	}
	ks.window = append(ks.window[:i], append([]admission{a}, ks.window[i:]...)...)
	ks.sum += cost
	newest := ks.window[len(ks.window)-1].at
	for ks.window[0].at <= newest-period {
		ks.sum -= ks.window[0].cost
		ks.window = ks.window[1:]
	}
	if ks.sum > ks.peak {
		ks.peak, ks.peakFirst, ks.peakLast = ks.sum, ks.window[0].at, newest
	}
}

// spanExcess is the most units past capacity + rate × T that adm got in any
// span T (sim/overgrant.go): in time order, the level of a bucket filled by each
// admission and drained at the rate, never below empty, is the most admitted in
// a span ending there less the rate × the span; its highest, less the capacity,
// is the excess. Counted exactly in credits of 1/unit of a unit (unit = period in
// ns / g, the rate limit/g credits a ns, g their gcd) with big integers, on the
// admitted_at_ms times (to the ns), and rounded once.
func spanExcess(adm []admission, p algorithms.Policy, capacity int64) float64 {
	sorted := slices.Clone(adm)
	slices.SortStableFunc(sorted, func(a, b admission) int { return cmp.Compare(a.at, b.at) })
	period := int64(p.Period)
	g := new(big.Int).GCD(nil, nil, big.NewInt(period), big.NewInt(p.Limit)).Int64()
	unit, perNano := period/g, p.Limit/g
	level, highest := new(big.Int), new(big.Int)
	for i, a := range sorted {
		if i > 0 {
			level.Sub(level, new(big.Int).Mul(big.NewInt(perNano), big.NewInt(int64(a.at-sorted[i-1].at))))
			if level.Sign() < 0 {
				level.SetInt64(0)
			}
		}
		level.Add(level, new(big.Int).Mul(big.NewInt(a.cost), big.NewInt(unit)))
		if level.Cmp(highest) > 0 {
			highest.Set(level)
		}
	}
	over := highest.Sub(highest, new(big.Int).Mul(big.NewInt(capacity), big.NewInt(unit)))
	if over.Sign() <= 0 {
		return 0
	}
	f, _ := new(big.Float).SetInt(over).Float64()
	return f / float64(unit)
}

// windowAdmit is the fixed window's own windows (sim/contract.go), at the time
// the limiter was told: decided_at.
func (l *laneFromCSV) windowAdmit(cfg *sim.Config, lc sim.LaneConfig, key int, stamp time.Duration, cost int64) {
	p := lc.TierPolicy(cfg, cfg.Keys[key].Tier)
	periodUS := int64(p.Period / algorithms.Resolution)
	var offset int64
	if lc.Options.RandomStart {
		offset = algorithms.WindowOffset(cfg.Keys[key].Name, p.Period)
	}
	us := algorithms.Micros(stamp) - offset
	w := us / periodUS
	if us < 0 && us%periodUS != 0 {
		w--
	}
	ws := &l.windows[key]
	if !ws.seen || w != ws.window {
		ws.window, ws.count, ws.seen = w, 0, true
	}
	ws.count += cost
	ws.peak = max(ws.peak, ws.count)
}

// metrics are the lane's figures under the JSON's names, computed as
// recorder.finish does, in the same order (so floating point sums agree).
func (l *laneFromCSV) metrics(cfg *sim.Config, lc sim.LaneConfig) map[string]any {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	m := map[string]any{
		"lane": lc.Name, "algorithm": lc.Algorithm, "backend": lc.Backend.String(),
		"offered": l.offered, "attempts": l.attempts, "accepted": l.accepted, "denied": l.denied,
		"errors": l.errors, "wasted": l.wasted, "succeeded": l.succeeded, "gave_up": l.gaveUp,
		"store_errors":             l.storeErrors,
		"latency_p50_ms":           ms(l.latency.Quantile(0.50)),
		"latency_p99_ms":           ms(l.latency.Quantile(0.99)),
		"queue_delay_p99_ms":       ms(l.queueDelay.Quantile(0.99)),
		"peak_accepted_per_second": l.perSecondMax,
	}
	// the classed counts, written (and so recomputed) when nonzero: a run's
	// keys are classed (a trace replay's), else they are left out
	for name, v := range map[string]int64{"ordinary_attempts": l.ordinary, "ordinary_denied": l.ordinaryDenied, "heavy_attempts": l.heavy, "heavy_accepted": l.heavyAccepted} {
		if v != 0 {
			m[name] = v
		}
	}
	if n := l.openedByError + l.refusedByError; n > 0 {
		m[fatesUnknown] = n
	}
	if l.rules.decided != nil { // written when a rule refused
		l.rules.names = lc.RuleNames(cfg)
		m["rules"] = &l.rules
	}
	if n := l.offered - l.firstAttempts; n > 0 {
		m[neverAttempted] = n
	}
	var amplification float64
	if l.offered > 0 {
		amplification = float64(l.attempts) / float64(l.offered)
	}
	m["retry_amplification"] = amplification
	goodput := 0.0
	if l.offered > 0 {
		goodput = float64(l.succeeded) / float64(l.offered)
	}
	m["goodput"] = goodput

	var ratio, maxUnits, excess float64
	var first, last time.Duration
	var acceptedUnits int64
	for i := range l.keys {
		ks := &l.keys[i]
		p := lc.TierPolicy(cfg, cfg.Keys[i].Tier).WithDefaults()
		capacity := algorithms.Capacity(lc.Algorithm, p, lc.Options)
		if r := float64(ks.peak) / float64(p.Limit); r > ratio {
			ratio, first, last = r, ks.peakFirst, ks.peakLast
		}
		if ks.admitted > 0 {
			most := float64(capacity) + float64(p.Limit)*float64(ks.last-ks.first)/float64(p.Period)
			maxUnits += most
			acceptedUnits += ks.admitted
			excess += spanExcess(ks.all, p, capacity)
		}
	}
	var overGrant float64
	if maxUnits > 0 {
		overGrant = excess / maxUnits
	}
	var windowRatio float64
	if info, _ := algorithms.Lookup(lc.Algorithm); info.Shape == algorithms.ShapeFixedWindow {
		// a fixed window is held to its allowance in each of its own windows
		maxUnits, excess, overGrant = 0, 0, 0
		for i, ws := range l.windows {
			if !ws.seen {
				continue
			}
			p := lc.TierPolicy(cfg, cfg.Keys[i].Tier)
			allowance := float64(p.Limit + lc.Options.Rollover)
			if x := float64(ws.peak) / allowance; x > windowRatio {
				windowRatio = x
			}
			maxUnits += allowance
			excess += max(0, float64(ws.peak)-allowance)
		}
		if maxUnits > 0 {
			overGrant = excess / maxUnits
		}
	}
	if info, _ := algorithms.Lookup(lc.Algorithm); info.Shape == algorithms.ShapeNone || lc.MultiLimit() {
		ratio, first, last, overGrant, maxUnits, excess = 0, 0, 0, 0, 0, 0
	}
	m["peak_window_ratio"], m["peak_first_ms"], m["peak_last_ms"], m["peak_span_ms"] = ratio, ms(first), ms(last), ms(last-first)
	m["over_grant"], m["accepted_units"], m["max_units"], m["excess_units"] = overGrant, acceptedUnits, maxUnits, excess

	m["window_peak_ratio"] = windowRatio
	m["fairness"] = l.fairness(cfg)
	if l.deployed != nil {
		l.deployed.metrics(cfg, lc, m)
	}
	return m
}

// fairness is Jain's index over each (client, key) identity's success ratio,
// summed in the recorder's order: every key's first client, by key, then the
// other clients of a key, by client and its keys' order.
func (l *laneFromCSV) fairness(cfg *sim.Config) float64 {
	owner := make([]int, len(cfg.Keys))
	for i := range owner {
		owner[i] = -1
	}
	var extra [][2]int
	for ci, c := range cfg.Clients {
		for _, k := range c.Keys {
			if owner[k] >= 0 {
				extra = append(extra, [2]int{ci, k})
			} else {
				owner[k] = ci
			}
		}
	}
	var sum, sumSq, n float64
	share := func(id [2]int) {
		if counts := l.identities[id]; counts != nil && counts[0] > 0 {
			x := float64(counts[1]) / float64(counts[0])
			sum, sumSq, n = sum+x, sumSq+x*x, n+1
		}
	}
	for k, ci := range owner {
		if ci >= 0 {
			share([2]int{ci, k})
		}
	}
	for _, id := range extra {
		share(id)
	}
	if sumSq > 0 {
		return sum * sum / (n * sumSq)
	}
	return 1
}

// eachRecord calls f with every record of the CSV at path by column name, after
// checking that its header starts with columns.
func eachRecord(path, columns string, f func(map[string]string) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	r := csv.NewReader(file)
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		return err
	}
	if !strings.HasPrefix(strings.Join(header, ","), columns) {
		return fmt.Errorf("header %q does not start with %q", strings.Join(header, ","), columns)
	}
	names := append([]string(nil), header...)
	record := map[string]string{}
	for line := 2; ; line++ {
		cells, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		for i, name := range names {
			record[name] = cells[i]
		}
		if err := f(record); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
}

// millis parses a time in milliseconds with up to nine decimals, exactly; an
// empty cell is 0.
func millis(s string) time.Duration {
	if s == "" {
		return 0
	}
	neg := strings.HasPrefix(s, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	ms, _ := strconv.ParseInt(whole, 10, 64)
	frac = (frac + "000000")[:6]
	ns, _ := strconv.ParseInt(frac, 10, 64)
	d := time.Duration(ms)*time.Millisecond + time.Duration(ns)
	if neg {
		d = -d
	}
	return d
}
