package tune

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// multiDay is a log of four days: 200 ordinary keys sending a few dozen
// requests a day each, and one key that sends 60,000 in its third day (0.7 a
// second). Over a day the grid's bursts then reach 120,000, and 120,000 a day
// is past what exact arithmetic holds per day (104,248): the default tune
// picked that policy itself and failed on it (exit 2, "too large for exact
// arithmetic … use a shorter period").
func multiDay(seed uint64) *Trace {
	rng := rand.New(rand.NewPCG(seed, 7))
	const day = int64(24 * time.Hour / time.Microsecond)
	keys := []string{"heavy"}
	var reqs []Request
	for k := 1; k <= 200; k++ {
		keys = append(keys, fmt.Sprintf("user%d", k))
		for d := range int64(4) {
			for range 10 + rng.IntN(60) {
				reqs = append(reqs, Request{At: d*day + rng.Int64N(day), Key: uint32(k), Cost: 1})
			}
		}
	}
	for range 60_000 {
		reqs = append(reqs, Request{At: 2*day + rng.Int64N(day), Key: 0, Cost: 1})
	}
	slices.SortStableFunc(reqs, func(a, b Request) int { return int(a.At - b.At) })
	return FromRequests("multi-day.csv", keys, reqs)
}

// A sweep never proposes a policy it cannot replay: every policy a grid
// sweeps passes the very test the replay makes (its limit or burst exact for
// its period on the log's largest cost, its credits over the span), every one
// it leaves out fails it, and the two together are the whole grid. Checked on
// grids whose rates and bursts run past the bound, over every standard
// period, costs of 1 to a thousand and spans of a minute to 60 days.
func TestAGridSweepsOnlyWhatItCanReplay(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 3))
	periods := append(slices.Clone(StandardPeriods), 10*time.Second, 7*24*time.Hour)
	for i := range 300 {
		period := periods[rng.IntN(len(periods))]
		most := algorithms.MaxExactLimit(period)
		cost := []int64{1, 1, 7, 1000}[rng.IntN(4)]
		span := time.Duration(1+rng.IntN(60*24*60)) * time.Minute
		top := Range{1, most * int64(1+rng.IntN(4))}
		g := Grid{Algorithms: DefaultAlgorithms, Rates: top.Steps(6), Bursts: Range{1, 2 * top.Max}.Steps(6), Period: period, Span: span}
		in, out := g.Policies(cost), g.LeftOut(cost)
		tr := &Trace{Span: span, maxCost: cost}
		for _, p := range in {
			if _, err := newLimiter(tr, p); err != nil {
				t.Fatalf("grid %d: %s is swept, but its replay refuses it: %v", i, p, err)
			}
		}
		for _, p := range out {
			if _, err := newLimiter(tr, p); err == nil {
				t.Fatalf("grid %d: %s is left out, but replays", i, p)
			}
		}
		whole := Grid{Algorithms: g.Algorithms, Rates: g.Rates, Bursts: g.Bursts, Period: g.Period}
		all := len(whole.Policies(cost)) + len(whole.LeftOut(cost))
		if len(in)+len(out) != all {
			t.Fatalf("grid %d: %d swept and %d left out of %d", i, len(in), len(out), all)
		}
		// the report says how many, a sentence for each reason
		said := 0
		r := &Report{Trace: tr, Grids: []Grid{g}, Best: -1}
		for _, m := range leftOutCount.FindAllStringSubmatch(r.LeftOut(), -1) {
			n, _ := strconv.Atoi(m[1])
			said += n
		}
		if said != len(out) {
			t.Fatalf("grid %d: %d left out, the report says %q", i, len(out), r.LeftOut())
		}
	}
}

// leftOutCount reads how many policies a sentence of Report.LeftOut says.
var leftOutCount = regexp.MustCompile(`(\d+) polic(?:y|ies) of the grid \(`)

// The multi-day log sweeps with the default grid and recommends, saying once
// how many policies were left out and why; every policy swept replays.
func TestAMultiDayLogRecommends(t *testing.T) {
	tr := multiDay(1)
	if swept, _ := DefaultPeriods(tr.Span); !slices.Contains(swept, 24*time.Hour) {
		t.Fatalf("a %s log sweeps %v, not a day", tr.Span, swept)
	}
	rep, err := Run(context.Background(), tr, Options{Points: DefaultPoints, Goal: TradeOffGoal, Single: true})
	if err != nil {
		t.Fatalf("the default sweep failed: %v", err)
	}
	if rep.Best < 0 {
		t.Fatalf("no recommendation: %s", rep.Why)
	}
	var left int
	for _, g := range rep.Grids {
		left += len(g.LeftOut(tr.MaxRequestCost()))
	}
	advice := rep.Advice()
	if left == 0 || strings.Count(advice, "not swept") != 1 || !strings.Contains(advice, fmt.Sprintf("%d policies of the grid (", left)) || !strings.Contains(advice, fmt.Sprintf("at most %d per day", algorithms.MaxExactLimit(24*time.Hour))) {
		t.Errorf("%d policies left out; the advice says: %s", left, advice)
	}
	for _, res := range rep.Results {
		for _, p := range []Policy{res.Policy, res.Long} {
			if _, err := newLimiter(tr, p); p.Limit > 0 && err != nil {
				t.Errorf("%s was swept, but its replay refuses it: %v", p, err)
			}
		}
	}
}

// A recommendation on the grid's highest rate or burst suggests a range to
// try that tune takes: up to what exact arithmetic holds over its period, and
// none at all when it is already there (it suggested ten times the burst,
// which tune then refused).
func TestEdgesSuggestOnlyExactRanges(t *testing.T) {
	day := 24 * time.Hour
	most := algorithms.MaxExactLimit(day)
	try := regexp.MustCompile(`try (?:--periods \S+ )?--(rate|burst) (\d+)\.\.(\d+)\.`)
	for _, top := range []int64{5_000, 22_107, most / 2, most} {
		g := Grid{Algorithms: []algorithms.Name{algorithms.TokenBucketName}, Rates: []int64{1, top / 2, top}, Bursts: []int64{1, top / 2, top}, Period: day}
		r := &Report{Trace: &Trace{Span: 4 * day}, Grids: []Grid{g}, Best: 0,
			Results: []Result{{Limits: Limits{Policy: Policy{Algorithm: algorithms.TokenBucketName, Limit: top, Period: day, Burst: top}}}}}
		edges := r.Edges()
		for _, e := range edges {
			m := try.FindStringSubmatch(e)
			if m == nil {
				t.Errorf("top %d: an edge that suggests no range: %q", top, e)
				continue
			}
			if hi, _ := strconv.ParseInt(m[3], 10, 64); hi > most || hi <= top {
				t.Errorf("top %d: %q suggests a %s up to %d; exact arithmetic holds %d per day", top, e, m[1], hi, most)
			}
		}
		if want := map[bool]int{true: 2, false: 0}[top < most]; len(edges) != want {
			t.Errorf("top %d: %d edges, want %d: %q", top, len(edges), want, edges)
		}
	}
}
