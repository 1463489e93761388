package tune

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/check"
	"ratelab/internal/tracegen"
	"ratelab/scenarios"
)

// shapeSpec is six hours of a site's Combined Log with heavy keys of two kinds:
// a crawler (30 pages a minute) and three feed readers (one poll every 5 s) heavy
// over hours but never over seconds, and two scrapers firing 40 requests a second
// for 3 s every two hours, heavy over seconds and not over hours; and 400
// ordinary users who visit about once in three hours, five pages a visit, each
// page with up to eight assets.
func shapeSpec(seed uint64) tracegen.Spec {
	return tracegen.Spec{Start: time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC), Duration: 6 * time.Hour, Seed: seed,
		Users: 400, Visits: 0.3, VisitPages: 5, PageGap: 20 * time.Second,
		Crawlers: 1, CrawlerRate: 0.5, FeedReaders: 3, FeedEvery: 5 * time.Second,
		Scrapers: 2, ScraperRate: 40, ScraperBurst: 3 * time.Second, ScraperEvery: 2 * time.Hour, Slowest: 2 * time.Second}
}

// The test: tune finds both kinds of heavy key, each over its timescale,
// and recommends a layered pair that holds each kind and leaves the ordinary
// users under the goal — checked on the pair's own decisions, key by key, on
// several seeds.
func TestTuneFindsEveryTimescale(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			spec := shapeSpec(seed)
			tr, _ := loadLog(t, spec)
			rep, err := Run(context.Background(), tr, Options{Points: DefaultPoints, Goal: TradeOffGoal})
			if err != nil {
				t.Fatal(err)
			}
			clients := spec.Addresses()
			keys := func(names []string) []int {
				var out []int
				for _, n := range names {
					if k, ok := tr.keyOf[n]; ok { // a user who never came is not in the log
						out = append(out, int(k))
					}
				}
				return out
			}
			scrapers, hourly := keys(clients.Scrapers), keys(append(slices.Clone(clients.Crawlers), clients.FeedReaders...))
			users := keys(clients.Users)
			if len(scrapers) != 2 || len(hourly) != 4 || len(users) < 300 {
				t.Fatalf("the log has %d scrapers, %d crawlers and feed readers, %d users", len(scrapers), len(hourly), len(users))
			}
			// the kinds: scrapers stand out over seconds, crawler and feed readers
			// over hours, and no user over any period
			over := map[time.Duration][]int{}
			for _, o := range rep.Classes.Over {
				over[o.Period] = o.Keys
			}
			if len(rep.Classes.Over) != 3 || over[time.Second] == nil || over[time.Hour] == nil {
				t.Fatalf("classed over %v", rep.periods())
			}
			for _, k := range scrapers {
				if !slices.Contains(over[time.Second], k) || slices.Contains(over[time.Hour], k) {
					t.Errorf("scraper %s: over seconds %v, over hours %v; want heavy over seconds only", tr.Keys[k], slices.Contains(over[time.Second], k), slices.Contains(over[time.Hour], k))
				}
			}
			for _, k := range hourly {
				if !slices.Contains(over[time.Hour], k) || slices.Contains(over[time.Second], k) {
					t.Errorf("%s: over hours %v, over seconds %v; want heavy over hours only", tr.Keys[k], slices.Contains(over[time.Hour], k), slices.Contains(over[time.Second], k))
				}
			}
			for _, k := range users {
				if rep.Classes.Heavy[k] {
					t.Errorf("user %s is classed heavy", tr.Keys[k])
				}
			}
			if rep.Best < 0 {
				t.Fatalf("no recommendation: %s", rep.Why)
			}
			best := rep.Results[rep.Best]
			if !best.Layered() || best.Period >= time.Hour || best.Long.Period != time.Hour {
				t.Fatalf("recommended %s; want a short limit layered with an hourly one\n%s", best.Limits, rep.Advice())
			}
			// the pair's own decisions, key by key
			denied, err := Denials(tr, best.Limits)
			if err != nil {
				t.Fatal(err)
			}
			var total, userReqs, userDenied int64
			for k, d := range denied {
				total += int64(d)
				if slices.Contains(users, k) {
					userReqs += tr.Volume[k]
					userDenied += int64(d)
				}
			}
			if total != best.Denied {
				t.Errorf("the pair's replay denied %d, its result says %d", total, best.Denied)
			}
			if share := float64(userDenied) / float64(userReqs); share >= TradeOffGoal.Below {
				t.Errorf("%s denies the users %d of %d requests (%.3f%%); want under %s", best.Limits, userDenied, userReqs, 100*share, percent(TradeOffGoal.Below))
			}
			for _, k := range append(slices.Clone(scrapers), hourly...) {
				if admitted := 1 - float64(denied[k])/float64(tr.Volume[k]); admitted > 0.5 {
					t.Errorf("%s admits %s %.0f%% of its %d requests; want at most half", best.Limits, tr.Keys[k], 100*admitted, tr.Volume[k])
				}
			}
			// no single policy within the goal holds both kinds half as well
			for _, r := range rep.Results {
				if !r.Layered() && TradeOffGoal.Meets(r) && r.WorstKindAdmitted <= 0.5 {
					t.Errorf("%s meets the goal alone and admits at most %s of any kind", r.Limits, percent(r.WorstKindAdmitted))
				}
			}
			advice := rep.Advice()
			for _, want := range []string{"No one period holds both kinds of heavy key within the goal", "The log's times are whole seconds", "--spread uniform"} {
				if !strings.Contains(advice, want) {
					t.Errorf("the advice lacks %q:\n%s", want, advice)
				}
			}
			if s := rep.Timescales(); !strings.Contains(s, "over seconds 2 keys stand out (192.0.2.") || !strings.Contains(s, "over hours 4 keys stand out") {
				t.Errorf("timescales: %s", s)
			}
		})
	}
}

// A layered pair decides as the simulator's all-or-nothing lane with the same two
// limits does: the same log, the same requests denied.
func TestLayeredPairAgreesWithTheSimulator(t *testing.T) {
	spec := shapeSpec(1)
	spec.Duration, spec.Users = 2*time.Hour, 100
	spec.ScraperEvery = 30 * time.Minute
	tr, data := loadLog(t, spec)
	dir := t.TempDir()
	check.Setup(t, os.WriteFile(filepath.Join(dir, "access.log"), data, 0o644))
	pairs := []Limits{
		{Policy: Policy{Algorithm: "token-bucket", Limit: 2, Period: time.Second, Burst: 14}, Long: Policy{Algorithm: "fixed-window", Limit: 300, Period: time.Hour, Burst: 300}},
		{Policy: Policy{Algorithm: "sliding-log", Limit: 20, Period: time.Minute, Burst: 20}, Long: Policy{Algorithm: "token-bucket", Limit: 200, Period: time.Hour, Burst: 400}},
	}
	doc := "[[scenario]]\nname = \"t\"\n[scenario.policy]\nlimit = 4\n[[scenario.client]]\nname = \"log\"\npattern = \"trace\"\nfile = \"access.log\"\n"
	for i, p := range pairs {
		doc += fmt.Sprintf("[[scenario.lane]]\nname = \"pair %d\"\ncombine = \"all-or-nothing\"\n", i)
		for j, l := range []Policy{p.Policy, p.Long} {
			doc += fmt.Sprintf("[[scenario.lane.limits]]\nname = \"l%d\"\nalgorithm = %q\nlimit = %d\nperiod = %q\nburst = %d\nkey = \"l%d:{key}\"\n", j, l.Algorithm, l.Limit, l.Period, l.Burst, j)
		}
	}
	check.Setup(t, os.WriteFile(filepath.Join(dir, "s.toml"), []byte(doc), 0o644))
	cat, err := scenarios.Load(filepath.Join(dir, "s.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := cat.Compile("t", scenarios.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	metrics, err := newSimRun(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pairs {
		c, _ := tr.Classify([]time.Duration{time.Second})
		res, err := sweep(context.Background(), tr, c, []Limits{p}, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Denied != metrics[i].Denied || res[0].Denied == 0 {
			t.Errorf("%s: tune denied %d, the simulator's all-or-nothing lane %d", p, res[0].Denied, metrics[i].Denied)
		}
	}
}

func TestPeriods(t *testing.T) {
	for _, tc := range []struct {
		span time.Duration
		want []time.Duration
	}{
		{10 * time.Minute, []time.Duration{time.Second, time.Minute, time.Hour}},
		{72 * time.Hour, []time.Duration{time.Second, time.Minute, time.Hour}},
		{83 * time.Hour, []time.Duration{time.Second, time.Minute, time.Hour, day}},
	} {
		if got, _ := DefaultPeriods(tc.span); !slices.Equal(got, tc.want) {
			t.Errorf("DefaultPeriods(%s) = %v, want %v", tc.span, got, tc.want)
		}
	}
	if got, err := ParsePeriods("1h, 1s,10s"); err != nil || !slices.Equal(got, []time.Duration{time.Second, 10 * time.Second, time.Hour}) {
		t.Errorf("ParsePeriods: %v, %v", got, err)
	}
	for _, bad := range []string{"", "1s,1s", "0s", "-1m", "1.5us", "x", "1s,2s,3s,4s,5s,6s,7s"} {
		if _, err := ParsePeriods(bad); err == nil {
			t.Errorf("ParsePeriods(%q) accepted", bad)
		}
	}
}

// A recommendation on the edge of its grid says so and suggests the range to
// try; one inside says nothing.
func TestEdges(t *testing.T) {
	g := Grid{Algorithms: []algorithms.Name{"token-bucket"}, Rates: []int64{5, 10, 20}, Bursts: []int64{2, 8, 40}, Period: time.Minute}
	at := func(limit, burst int64) []string {
		r := &Report{Grids: []Grid{g}, Best: 0, Results: []Result{{Limits: Limits{Policy: Policy{Algorithm: "token-bucket", Limit: limit, Period: time.Minute, Burst: burst}}}}}
		return r.Edges()
	}
	if got := strings.Join(at(5, 8), " "); got != "5/min is the lowest rate the grid tries per minute: try --periods 1m --rate 1..10." {
		t.Errorf("lowest rate: %q", got)
	}
	if got := strings.Join(at(20, 40), " "); got != "20/min is the highest rate the grid tries per minute: try --periods 1m --rate 10..200. Burst 40 is the highest the grid tries per minute: try --burst 8..400." {
		t.Errorf("highest: %q", got)
	}
	if got := at(10, 8); len(got) != 0 {
		t.Errorf("inside the grid: %q", got)
	}
}

func TestPercentUnderItsBound(t *testing.T) {
	for _, tc := range []struct {
		f, bound float64
		want     string
	}{
		{0.000996, 0.001, "0.0996%"},
		{0.0005, 0.001, "0.05%"},
		{0, 0.001, "0%"},
	} {
		if got := percentUnder(tc.f, tc.bound); got != tc.want {
			t.Errorf("percentUnder(%g, %g) = %s, want %s", tc.f, tc.bound, got, tc.want)
		}
	}
}
