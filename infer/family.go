package infer

import (
	"math"
	"slices"
	"sync"
	"time"
)

// Family is a kind of limiter, as the report names it.
type Family string

const (
	// TokenBucket: a bucket of Burst tokens refilled at Rate (GCRA, x/time/rate,
	// nginx's limit_req with nodelay: its burst=N is a bucket of N+1).
	TokenBucket Family = "token bucket"
	// LeakyQueue: the same arithmetic, but a request over the rate waits its
	// turn in a queue of Burst − 1 instead of passing at once (nginx's
	// limit_req without nodelay).
	LeakyQueue Family = "leaky queue"
	// FixedWindow: Burst requests per window of Window.
	FixedWindow Family = "fixed window"
	// SlidingLog: Burst requests in any Window.
	SlidingLog Family = "sliding log"
	// SlidingCounter: the current window's count plus the previous window's
	// weighted by the share of it still inside the sliding window (Cloudflare,
	// HAProxy's http_req_rate).
	SlidingCounter Family = "sliding counter"
)

// Families are every family, in the order a tie is broken: the most common first.
var Families = []Family{TokenBucket, LeakyQueue, FixedWindow, SlidingLog, SlidingCounter}

// Variant is a family with the details that change its decisions: how its
// windows are aligned, whether refused requests count, how it rounds.
type Variant struct {
	Family Family
	// Align: "epoch" (windows start at multiples of their length since 1970),
	// "first request" (a window starts at the first request after the last
	// ended: INCR and EXPIRE), "anchored" (HAProxy's: periods follow the first
	// request, re-anchored after two idle periods); "" for the buckets and the log.
	Align string
	// RefusalsCount: refused requests count towards the limit (HAProxy tracks
	// before it denies).
	RefusalsCount bool
	// Floor: the previous window's weighted count is rounded down (HAProxy's
	// read_freq_ctr_period).
	Floor bool
	// Millis: the limiter reads a clock of whole milliseconds (nginx's
	// ngx_current_msec; HAProxy's now_ms).
	Millis bool
}

// Name says the variant: "sliding counter, anchored, refusals counted, rounded down".
func (v Variant) Name() string {
	s := string(v.Family)
	if v.Align != "" {
		s += ", " + v.AlignWords()
	}
	if v.RefusalsCount {
		s += ", refusals counted"
	}
	if v.Floor {
		s += ", rounded down"
	}
	if v.Millis {
		s += ", a clock of whole ms (nginx)"
	}
	return s
}

// AlignWords says how the variant's windows are aligned.
func (v Variant) AlignWords() string {
	switch v.Align {
	case "epoch":
		return "aligned to the epoch"
	case "first request":
		return "each window from the first request after the last"
	case "anchored":
		return "periods from the first request, again after two idle"
	}
	return ""
}

// windowed says the variant's grid parameter is a window (else a rate).
func (v Variant) windowed() bool { return v.Family != TokenBucket && v.Family != LeakyQueue }

// Variants are those the fit tries.
var Variants = []Variant{
	{Family: TokenBucket},
	{Family: TokenBucket, Millis: true},
	{Family: LeakyQueue},
	{Family: LeakyQueue, Millis: true},
	{Family: FixedWindow, Align: "epoch"},
	{Family: FixedWindow, Align: "first request"},
	{Family: SlidingLog},
	{Family: SlidingLog, RefusalsCount: true},
	{Family: SlidingCounter, Align: "epoch"},
	{Family: SlidingCounter, Align: "epoch", RefusalsCount: true},
	{Family: SlidingCounter, Align: "anchored", RefusalsCount: true, Floor: true},
	{Family: SlidingCounter, Align: "anchored", Floor: true},
}

// needs fills need[i] with the least size (a bucket's capacity, a window's
// limit) that lets request i through under v with grid parameter g (a rate in
// requests a second, or a window in seconds), the state before it built from
// the observed answers; and returns how many allowed requests were held not as
// v would hold them (a queue holds a request until its turn; the others hold
// none). held says an allowed request's answer came late (predicted in
// delays, observed in wait): the queue's delay is checked against wait.
func (v Variant) needs(obs []Observation, wait []float64, g float64, need []int64) (heldMiss int) {
	n := len(obs)
	t := func(i int) float64 { return obs[i].At.Seconds() }
	if v.Millis {
		t = func(i int) float64 { return obs[i].At.Truncate(time.Millisecond).Seconds() }
	}
	counted := func(i int) bool { return !obs[i].Refused || v.RefusalsCount }
	switch v.Family {
	case TokenBucket, LeakyQueue:
		T := 1 / g
		tat := math.Inf(-1)
		for i := range n {
			ti := t(i)
			ahead := max(0, tat-ti)
			need[i] = ceilNeed(ahead/T + 1)
			if obs[i].Refused {
				continue
			}
			if wait != nil {
				switch {
				case v.Family == LeakyQueue:
					if math.Abs(wait[i]-ahead) > heldSlack+0.1*ahead {
						heldMiss++
					}
				default:
					heldMiss += unheld(wait, obs, i)
				}
			}
			tat = max(tat, ti) + T
		}
	case FixedWindow:
		start, count := math.Inf(-1), int64(0)
		for i := range n {
			ti := t(i)
			switch {
			case v.Align == "epoch" && math.Floor(ti/g) != start:
				start, count = math.Floor(ti/g), 0 // the window's index
			case v.Align != "epoch" && ti >= start+g:
				start, count = ti, 0
			}
			need[i] = count + 1
			if counted(i) {
				count++
			}
			heldMiss += unheld(wait, obs, i)
		}
	case SlidingLog:
		// counted requests in (t − g, t): a queue of their times
		var in []float64
		for i := range n {
			ti := t(i)
			for len(in) > 0 && in[0] <= ti-g {
				in = in[1:]
			}
			need[i] = int64(len(in)) + 1
			if counted(i) {
				in = append(in, ti)
			}
			heldMiss += unheld(wait, obs, i)
		}
	case SlidingCounter:
		start, curr, prev := math.Inf(-1), 0.0, 0.0
		index := math.Inf(-1)
		for i := range n {
			ti := t(i)
			if v.Align == "epoch" {
				// by the window's index: at 1.8e9 s, float seconds are
				// too coarse to compare two windows' starts
				k := math.Floor(ti / g)
				switch {
				case k == index:
				case k == index+1:
					index, prev, curr = k, curr, 0
				default:
					index, prev, curr = k, 0, 0
				}
				start = k * g
			} else {
				switch {
				case ti < start+g:
				case ti < start+2*g:
					start, prev, curr = start+g, curr, 0
				default:
					start, prev, curr = ti, 0, 0
				}
			}
			weighted := prev * (1 - (ti-start)/g)
			if v.Floor {
				weighted = math.Floor(weighted + 1e-9)
			}
			need[i] = ceilNeed(curr + 1 + weighted)
			if counted(i) {
				curr++
			}
			heldMiss += unheld(wait, obs, i)
		}
	}
	return heldMiss
}

// heldSlack is how far, in seconds, an answer's wait may be from a queue's
// predicted hold (plus a tenth of it) and still count as it: a network's and a
// busy machine's jitter.
const heldSlack = 0.025

// heldAbove is the wait, in seconds, past which an allowed answer counts as
// held, which only a queue does: well above the jitter of a loaded loopback.
const heldAbove = 0.05

// unheld is 1 when request i was allowed and held, which only a queue does.
func unheld(wait []float64, obs []Observation, i int) int {
	if wait != nil && !obs[i].Refused && wait[i] > heldAbove {
		return 1
	}
	return 0
}

// ceilNeed is the least whole size that is at least x (allowing for rounding).
func ceilNeed(x float64) int64 { return max(1, int64(math.Ceil(x-1e-9))) }

// grid is the grid of a variant's parameter: rates from 0.01 to 10,000 a second,
// 0.5% apart; windows at whole steps a person would configure — 1 ms up to 2 s,
// 10 ms up to 20 s, 1 s up to 10 minutes, 1 minute up to a day — so that a
// window aligned to the clock is found at its exact length.
func grid(v Variant) []float64 {
	if v.windowed() {
		return windowGrid()
	}
	return rateGrid()
}

var rateGrid = sync.OnceValue(func() []float64 { return makeGrid(false) })
var windowGrid = sync.OnceValue(func() []float64 { return makeGrid(true) })

func makeGrid(windowed bool) []float64 {
	if !windowed {
		var g []float64
		for r := 0.01; r <= 10000; r *= 1.005 {
			g = append(g, r)
		}
		// and the rates people write: whole numbers a second, a minute, an hour
		for k := 1.0; k <= 2000; k++ {
			g = append(g, k, k/60, k/3600)
		}
		slices.Sort(g)
		return slices.Compact(g)
	}
	var g []float64
	add := func(from, to, step time.Duration) {
		for w := from; w <= to; w += step {
			g = append(g, w.Seconds())
		}
	}
	add(time.Millisecond, 2*time.Second, time.Millisecond)
	add(2010*time.Millisecond, 20*time.Second, 10*time.Millisecond)
	add(21*time.Second, 10*time.Minute, time.Second)
	add(11*time.Minute, 24*time.Hour, time.Minute)
	return g
}
