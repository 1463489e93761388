package tune

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
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
	"ratelab/traces"
)

// abuseSpec is half an hour of a site's Combined Log: 1,000 ordinary users loading a
// page (and up to eight assets) every 40 s on average, three abusive clients at
// 20 requests a second each, and a crawler at 5 pages a second; lines written as
// requests complete, up to 3 s out of order.
var abuseSpec = tracegen.Spec{Start: time.Date(2026, 3, 1, 8, 0, 0, 0, time.FixedZone("", 3600)), Duration: 30 * time.Minute, Seed: 7,
	Users: 1000, UserPages: 1.0 / 40, Abusers: 3, AbuserRate: 20, Crawlers: 1, CrawlerRate: 5, Slowest: 3 * time.Second}

func loadLog(t testing.TB, s tracegen.Spec) (*Trace, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if _, err := tracegen.Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	tr, err := Load("access.log", func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }, traces.Options{Format: traces.FormatCLF}, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	return tr, data
}

// The test: on a generated log with abusers, a crawler and ordinary users,
// out of order, tune's recommendation holds the abusers and leaves the ordinary
// users (every one of them, not only the 99% tune calls ordinary) untouched.
func TestTuneHoldsAbusersAndSparesUsers(t *testing.T) {
	tr, _ := loadLog(t, abuseSpec)
	rate, burst, err := tr.DefaultRanges(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	grid := Grid{Algorithms: DefaultAlgorithms, Rates: rate.Steps(6), Bursts: burst.Steps(6), Period: time.Second}
	if testing.Short() { // -race -short: a bucket and a window, half the grid
		grid.Algorithms = []algorithms.Name{"sliding-log", "token-bucket"}
	}
	results, err := Sweep(context.Background(), tr, grid.Policies(tr.maxCost), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := NewReport(tr, results, TradeOffGoal)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Best < 0 {
		t.Fatalf("no recommendation: %s", rep.Why)
	}
	best := results[rep.Best]
	t.Logf("ranges %s and %s; %s", rate, burst, rep.Why)
	denied, err := Denials(tr, best.Limits)
	if err != nil {
		t.Fatal(err)
	}
	clients := abuseSpec.Addresses()
	var userReqs, userDenied int64
	for _, u := range clients.Users {
		k := tr.keyOf[u]
		userReqs += tr.Volume[k]
		userDenied += int64(denied[k])
	}
	if share := float64(userDenied) / float64(userReqs); share >= 0.001 {
		t.Errorf("%s denies ordinary users %d of %d requests (%.3f%%); want under 0.1%%", best.Policy, userDenied, userReqs, 100*share)
	}
	for _, a := range clients.Abusers {
		k := tr.keyOf[a]
		admitted := float64(tr.Volume[k]-int64(denied[k])) / float64(tr.Volume[k])
		if admitted > 0.5 {
			t.Errorf("%s admits abuser %s %.0f%% of its %d requests; want it held to at most half", best.Policy, a, 100*admitted, tr.Volume[k])
		}
	}
	// a policy one step tighter in rate fails the goal, or the recommendation
	// would have been it: the recommendation is the tightest
	for _, r := range results {
		if TradeOffGoal.Meets(r) && r.HeavyAdmitted < best.HeavyAdmitted {
			t.Errorf("%s meets the goal and holds heavy hitters harder (%.3f < %.3f)", r.Policy, r.HeavyAdmitted, best.HeavyAdmitted)
		}
	}
	var out bytes.Buffer
	if err := rep.WriteTable(&out, 60); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "* ") || !strings.Contains(out.String(), "is the tightest policy that meets ordinary<0.10%") {
		t.Errorf("table:\n%s", out.String())
	}
}

// Results come in grid order and are the same whatever the number of workers, in
// memory and streamed.
func TestSweepIsDeterministic(t *testing.T) {
	s := abuseSpec
	s.Duration, s.Users = 10*time.Minute, 300
	tr, data := loadLog(t, s)
	grid := Grid{Algorithms: []algorithms.Name{"token-bucket", "sliding-log", "leaky-bucket"}, Rates: []int64{2, 5, 10}, Bursts: []int64{5, 20}, Period: time.Second}
	ps := grid.Policies(1)
	one, err := Sweep(context.Background(), tr, ps, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	three, _ := Sweep(context.Background(), tr, ps, 3, func(done, total int) { calls++ })
	streamed, err := Load("access.log", func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }, traces.Options{Format: traces.FormatCLF}, 1000)
	if err != nil || !streamed.Spilled() {
		t.Fatalf("a 1000-byte budget did not spill to disk: %v", err)
	}
	t.Cleanup(func() { streamed.Close() })
	fromFile, err := Sweep(context.Background(), streamed, ps, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if calls != len(ps) {
		t.Errorf("progress called %d times for %d policies", calls, len(ps))
	}
	for i := range ps {
		if one[i] != three[i] || one[i] != fromFile[i] {
			t.Errorf("policy %d: %+v with one worker, %+v with three, %+v streamed", i, one[i], three[i], fromFile[i])
		}
		if one[i].Policy != ps[i] {
			t.Errorf("result %d is for %s, want %s", i, one[i].Policy, ps[i])
		}
	}
}

// tune decides as the simulator does: a scenario replaying the same log through
// the same policy, nobody retrying, denies the same requests.
func TestSweepAgreesWithTheSimulator(t *testing.T) {
	s := abuseSpec
	s.Duration, s.Users = 5*time.Minute, 200
	tr, data := loadLog(t, s)
	dir := t.TempDir()
	check.Setup(t, os.WriteFile(filepath.Join(dir, "access.log"), data, 0o644))
	doc := `[[scenario]]
name = "t"
[scenario.policy]
limit = 4
burst = 12
[[scenario.client]]
name = "log"
pattern = "trace"
file = "access.log"
`
	for _, alg := range []algorithms.Name{"token-bucket", "fixed-window", "sliding-counter", "sliding-log"} {
		doc += fmt.Sprintf("[[scenario.lane]]\nalgorithm = %q\n", alg)
	}
	check.Setup(t, os.WriteFile(filepath.Join(dir, "s.toml"), []byte(doc), 0o644))
	cat, err := scenarios.Load(filepath.Join(dir, "s.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := cat.Compile("t", scenarios.Overrides{})
	runSim := func() map[algorithms.Name]int64 {
		out := map[algorithms.Name]int64{}
		r, err := newSimRun(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range r {
			out[m.Algorithm] = m.Denied
		}
		return out
	}
	simDenied := runSim()
	for _, alg := range []algorithms.Name{"token-bucket", "fixed-window", "sliding-counter", "sliding-log"} {
		burst := int64(12)
		if !hasBurst(alg) {
			burst = 4
		}
		res, err := Sweep(context.Background(), tr, []Policy{{Algorithm: alg, Limit: 4, Period: time.Second, Burst: burst}}, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Denied != simDenied[alg] || res[0].Denied == 0 {
			t.Errorf("%s: tune denied %d, the simulator %d", alg, res[0].Denied, simDenied[alg])
		}
	}
}

func TestRangesGoalsAndGrid(t *testing.T) {
	for in, want := range map[string]string{"1..100": "1..100", "5": "5..5", " 2 .. 9 ": "2..9"} {
		if r, err := ParseRange(in); err != nil || r.String() != want {
			t.Errorf("ParseRange(%q) = %v, %v", in, r, err)
		}
	}
	for in, want := range map[string]string{"9..2": "inverted (MAX below MIN); write it as 2..9", "0..5": "starts below 1", "a..b": "is not MIN..MAX", "": "is not MIN..MAX"} {
		if _, err := ParseRange(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRange(%q): %v, want %q", in, err, want)
		}
	}
	if got := fmt.Sprint(Range{1, 100}.Steps(5)); got != "[1 3 10 32 100]" {
		t.Errorf("steps %s", got)
	}
	if got := fmt.Sprint(Range{1, 3}.Steps(8)); got != "[1 2 3]" {
		t.Errorf("steps of a short range %s", got)
	}
	if g, err := ParseGoal("p99<1%"); err != nil || g != (Goal{Name: GoalBound, Class: "p99", Below: 0.01}) {
		t.Errorf("ParseGoal: %v %v", g, err)
	}
	for _, bad := range []string{"ordinary", "vip<1%", "ordinary<0%", "ordinary<x"} {
		if _, err := ParseGoal(bad); err == nil {
			t.Errorf("ParseGoal(%q) accepted", bad)
		}
	}
	g := Grid{Algorithms: []algorithms.Name{"fixed-window", "token-bucket"}, Rates: []int64{1, 10}, Bursts: []int64{1, 5}, Period: time.Second}
	var names []string
	for _, p := range g.Policies(2) {
		names = append(names, p.String())
	}
	if got := strings.Join(names, "; "); got != "fixed-window 10/s; token-bucket 1/s burst 5; token-bucket 10/s burst 5" {
		t.Errorf("policies: %s", got)
	}
}

// zipfTrace is n requests over `keys` keys drawn by Zipf's law (s = 1.1), Poisson
// arrivals at 1,000 a second.
func zipfTrace(n, keys int) *Trace {
	rng := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(rng, 1.1, 1, uint64(keys-1))
	names := make([]string, keys)
	for i := range names {
		names[i] = fmt.Sprintf("user-%d", i)
	}
	reqs := make([]Request, n)
	var at float64
	for i := range reqs {
		at += rng.ExpFloat64() / 1000
		reqs[i] = Request{At: int64(at * 1e6), Key: uint32(z.Uint64()), Cost: 1}
	}
	return FromRequests("zipf", names, reqs)
}

// BenchmarkTune sweeps 64 token-bucket policies (8 rates × 8 bursts) over
// 1,000,000 requests from 10,000 Zipf keys on GOMAXPROCS workers, and reports
// decisions per second (at -cpu 1, per core) and per second of the process's CPU
// time (user + system), which holds on a busy machine where wall time does not.
// Run it with -cpu 1,2: the speed-up is the ratio of the two decisions/s.
func BenchmarkTune(b *testing.B) {
	tr := zipfTrace(1_000_000, 10_000)
	grid := Grid{Algorithms: []algorithms.Name{"token-bucket"}, Rates: Range{1, 100}.Steps(8), Bursts: Range{1, 200}.Steps(8), Period: time.Second}
	ps := grid.Policies(1)
	if len(ps) != 64 {
		b.Fatalf("%d policies", len(ps))
	}
	var decisions int64
	cpu0 := cpuTime()
	for b.Loop() {
		res, err := Sweep(context.Background(), tr, ps, 0, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := NewReport(tr, res, TradeOffGoal); err != nil {
			b.Fatal(err)
		}
		decisions += int64(len(ps)) * tr.Count
	}
	b.ReportMetric(float64(decisions)/b.Elapsed().Seconds(), "decisions/s")
	b.ReportMetric(float64(decisions)/(cpuTime()-cpu0).Seconds(), "decisions/cpu-s")
}

// A sweep whose context is done stops and returns the context's cause, in memory
// and on a streamed trace (ratelab tune on Ctrl-C).
func TestSweepStopsWhenTold(t *testing.T) {
	s := abuseSpec
	s.Duration, s.Users = 10*time.Minute, 300
	tr, data := loadLog(t, s)
	streamed, err := Load("access.log", func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }, traces.Options{Format: traces.FormatCLF}, 1000)
	if err != nil || !streamed.Spilled() {
		t.Fatalf("a 1000-byte budget did not spill to disk: %v", err)
	}
	t.Cleanup(func() { streamed.Close() })
	ps := Grid{Algorithms: []algorithms.Name{"token-bucket", "fixed-window"}, Rates: []int64{2, 5}, Bursts: []int64{5, 20}, Period: time.Second}.Policies(1)
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("stopped by the test")
	cancel(cause)
	for name, trace := range map[string]*Trace{"in memory": tr, "streamed": streamed} {
		if _, err := Sweep(ctx, trace, ps, 2, nil); !errors.Is(err, cause) {
			t.Errorf("%s: a sweep told to stop returned %v, want its cause", name, err)
		}
	}
}

// A key heavy over hours is shown in an hour's unit, in the table and the
// sentence (the public Apache log's heaviest: 482 requests in 83 hours), and the
// JSON keeps the exact rate per second.
func TestRatesAreReadable(t *testing.T) {
	var reqs []Request
	span := int64(83 * 3600 * 1e6)
	for i := range int64(482) {
		reqs = append(reqs, Request{At: i * span / 482, Key: 0, Cost: 1})
	}
	for i := range int64(10) {
		reqs = append(reqs, Request{At: i*span/10 + 1, Key: 1 + uint32(i), Cost: 1})
	}
	slices.SortFunc(reqs, func(a, b Request) int { return cmp.Compare(a.At, b.At) })
	keys := []string{"crawler"}
	for i := range 10 {
		keys = append(keys, fmt.Sprintf("user%d", i))
	}
	tr := FromRequests("apache.log", keys, reqs)
	ps := Grid{Algorithms: []algorithms.Name{"token-bucket"}, Rates: []int64{1}, Bursts: []int64{1}, Period: time.Second}.Policies(1)
	results, err := Sweep(context.Background(), tr, ps, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := NewReport(tr, results, TradeOffGoal)
	if err != nil {
		t.Fatal(err)
	}
	var table, js bytes.Buffer
	rep.WriteTable(&table, 40)
	rep.WriteJSON(&js)
	if !strings.Contains(table.String(), " 5.8 of 5.8/h ") || !strings.Contains(rep.Why, "(the heaviest key: 5.8 of 5.8/h)") {
		t.Errorf("the heaviest key's rate is not shown per hour:\n%s", table.String())
	}
	if strings.Contains(table.String(), "0.00") {
		t.Errorf("the table shows 0.00:\n%s", table.String())
	}
	if want := fmt.Sprintf(`"heaviest_offered_per_s": %v`, 482/tr.Span.Seconds()); !strings.Contains(js.String(), want) {
		t.Errorf("the JSON lacks %s:\n%s", want, js.String())
	}
}

// A policy whose exact arithmetic cannot span the log is left out of the sweep
// and said, instead of failing the whole tune: 446,363 an hour with a burst of
// twice that needs more than 2^53 over 2h46m40s (found on a generated 10 M-line
// log with a million keys, whose busiest key's hour set the grid's top), while a
// round 450,000 an hour fits.
func TestPoliciesThatCannotBeExactAreLeftOut(t *testing.T) {
	span := 2*time.Hour + 46*time.Minute + 40*time.Second
	g := Grid{Algorithms: []algorithms.Name{algorithms.TokenBucketName}, Rates: []int64{446363, 450000}, Bursts: []int64{892726}, Period: time.Hour, Span: span}
	in, out := g.Policies(1), g.LeftOut(1)
	if len(in) != 1 || in[0].Limit != 450000 {
		t.Errorf("swept %v; want only 450000/h", in)
	}
	if len(out) != 1 || out[0].Limit != 446363 {
		t.Fatalf("left out %v; want 446363/h", out)
	}
	if err := out[0].policy().CheckHorizon(span); err == nil {
		t.Errorf("%s is left out but replays exactly over %s", out[0], span)
	}
	r := &Report{Trace: &Trace{Span: span}, Grids: []Grid{g}, Best: -1}
	if s := r.LeftOut(); !strings.Contains(s, "1 policy of the grid (") || !strings.Contains(s, "446363") || !strings.Contains(s, "2h46m40s") {
		t.Errorf("the report says %q", s)
	}
	g.Span = 0 // unknown: nothing is left out
	if len(g.LeftOut(1)) != 0 || len(g.Policies(1)) != 2 {
		t.Error("a grid with no span left a policy out")
	}
}

// A product that cannot be configured with any period asked for says so, and
// how to ask, instead of blaming the requests' cost.
func TestAProductsPeriodsAreNamed(t *testing.T) {
	tr := zipfTrace(2_000, 20)
	_, err := Run(context.Background(), tr, Options{Algorithms: []algorithms.Name{algorithms.NginxName}, Periods: []time.Duration{time.Hour}, Points: 2, Goal: TradeOffGoal})
	if err == nil || !strings.Contains(err.Error(), "per second or per minute only") || !strings.Contains(err.Error(), "give --periods") || strings.Contains(err.Error(), "largest request") {
		t.Errorf("nginx swept per hour: %v", err)
	}
}
