package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/infer"
	"ratelab/internal/realserver"
)

// hidden is one configuration the inference harness serves and probes: what
// runs it, and the truth infer must find (its family, its rate a second and its
// size: a bucket's capacity, a window's limit).
type hidden struct {
	product string // "serve", "nginx", "haproxy"
	family  infer.Family
	rate    float64
	size    int64
	// serve: the lane's algorithm and policy
	alg    algorithms.Name
	policy algorithms.Policy
	nginx  realserver.NginxLimit
	ha     realserver.HAProxyLimit
}

func (h hidden) String() string {
	switch h.product {
	case "nginx":
		return "nginx " + h.nginx.Directive() + fmt.Sprintf(" rate=%dr/s", h.nginx.Rate)
	case "haproxy":
		return fmt.Sprintf("haproxy http_req_rate(%s) gt %d count-denied=%v", h.ha.Period, h.ha.Threshold, h.ha.CountDenied)
	}
	return fmt.Sprintf("serve %s %s", h.alg, h.policy)
}

// hiddenConfigs are drawn from a seed the code under test never sees: ratelab's
// lanes through serve, and real nginx (limit_req with and without nodelay) and
// HAProxy (http_req_rate counting refusals or not).
func hiddenConfigs(seed uint64) []hidden {
	rng := rand.New(rand.NewPCG(seed, 1937))
	between := func(lo, hi int) int64 { return int64(lo + rng.IntN(hi-lo+1)) }
	window := func() time.Duration { return time.Duration(between(5, 20)) * 100 * time.Millisecond }
	var hs []hidden
	bucket := func(alg algorithms.Name) {
		r, b := between(4, 40), between(2, 20)
		hs = append(hs, hidden{product: "serve", family: infer.TokenBucket, rate: float64(r), size: b, alg: alg,
			policy: algorithms.Policy{Limit: r, Period: time.Second, Burst: b}})
	}
	windowed := func(alg algorithms.Name, f infer.Family) {
		w, l := window(), between(5, 30)
		hs = append(hs, hidden{product: "serve", family: f, rate: float64(l) / w.Seconds(), size: l, alg: alg,
			policy: algorithms.Policy{Limit: l, Period: w}})
	}
	for range 4 {
		bucket(algorithms.TokenBucketName)
	}
	bucket(algorithms.GCRAName)
	bucket(algorithms.GCRAName)
	bucket(algorithms.XTimeRateName)
	bucket(algorithms.XTimeRateName)
	for range 4 {
		windowed(algorithms.FixedWindowName, infer.FixedWindow)
		windowed(algorithms.SlidingLogName, infer.SlidingLog)
	}
	for range 3 {
		windowed(algorithms.SlidingCounterName, infer.SlidingCounter)
	}
	for i := range 6 {
		r, b := between(4, 40), between(1, 20)
		n := realserver.NginxLimit{Rate: r, Burst: b, NoDelay: i%2 == 0, Status: 429}
		f := infer.TokenBucket
		if !n.NoDelay {
			f = infer.LeakyQueue
		}
		hs = append(hs, hidden{product: "nginx", family: f, rate: float64(r), size: b + 1, nginx: n})
	}
	for i := range 6 {
		w, l := window(), between(5, 30)
		hs = append(hs, hidden{product: "haproxy", family: infer.SlidingCounter, rate: float64(l) / w.Seconds(), size: l,
			ha: realserver.HAProxyLimit{Period: w, Threshold: l, CountDenied: i%2 == 0, DenyStatus: 429}})
	}
	return hs
}

// serveLane starts ratelab serve with one lane of h's algorithm and policy and
// returns its URL; it is stopped (SIGTERM, by PID) when the test ends.
func serveLane(t *testing.T, h hidden) string {
	t.Helper()
	dir := t.TempDir()
	doc := fmt.Sprintf(`[[scenario]]
name = "hidden"
title = "a lane to probe"
duration = "1s"

[scenario.policy]
limit = %d
period = %q
burst = %d

[[scenario.client]]
name = "c"
pattern = "hand"
key = "k"

[[scenario.lane]]
algorithm = %q
`, h.policy.Limit, h.policy.Period, max(h.policy.Burst, 1), h.alg)
	if err := os.WriteFile(filepath.Join(dir, "lane.toml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return startServe(t, dir, "--file", "lane.toml", "--scenario", "hidden").url + "/"
}

// inferred is one probe's outcome.
type inferred struct {
	h                hidden
	family           string
	rateErr, sizeErr float64
	sent             int
	rateIn, sizeIn   bool
}

// probe runs ratelab infer --probe on h and reads its JSON.
func probe(t *testing.T, h hidden) inferred {
	url := ""
	switch h.product {
	case "nginx":
		url = realserver.StartNginx(t, h.nginx).Base() + "/f?k=probe"
	case "haproxy":
		url = realserver.StartHAProxy(t, h.ha).Base() + "/f?k=probe"
	default:
		url = serveLane(t, h)
	}
	code, stdout, stderr := ratelab(t, "infer", "--probe", url, "--format", "json")
	if code != 0 {
		t.Fatalf("%s: infer --probe exit %d: %s", h, code, stderr)
	}
	var out struct {
		Sent     int `json:"sent"`
		Families []struct {
			Family     string   `json:"family"`
			Consistent bool     `json:"consistent"`
			Rate       *float64 `json:"rate_per_s"`
			RateLow    *float64 `json:"rate_low"`
			RateHigh   *float64 `json:"rate_high"`
			Size       *int64   `json:"burst"`
			SizeLow    *int64   `json:"burst_low"`
			SizeHigh   *int64   `json:"burst_high"`
		} `json:"families"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%s: infer's JSON: %v\n%s", h, err, stdout)
	}
	r := inferred{h: h, sent: out.Sent, rateErr: math.Inf(1), sizeErr: math.Inf(1)}
	if len(out.Families) > 0 && out.Families[0].Consistent && out.Families[0].Rate != nil {
		f := out.Families[0]
		r.family = f.Family
		r.rateErr = math.Abs(*f.Rate-h.rate) / h.rate
		r.sizeErr = math.Abs(float64(*f.Size-h.size)) / float64(h.size)
		r.rateIn = *f.RateLow <= h.rate*1.001 && (f.RateHigh == nil || h.rate <= *f.RateHigh*1.001)
		r.sizeIn = *f.SizeLow <= h.size && (f.SizeHigh == nil || h.size <= *f.SizeHigh)
	}
	return r
}

// The inference harness: ratelab infer --probe on at least 30 configurations it
// is not told — ratelab's lanes through serve, real nginx and real HAProxy on
// loopback — finds the family of at least 90% of them with at most 300
// requests each (the budget never exceeded), with a median error of at most 5%
// on the rate and on the burst. The table is logged (go test -v).
func TestInferFindsHiddenLimiters(t *testing.T) {
	if raceBuild {
		t.Skip("timing-based: the probes' pacing under the race detector is not the program's; it runs in the README's go test ./...")
	}
	configs := hiddenConfigs(20261128)
	if testing.Short() {
		configs = slices.DeleteFunc(configs, func(h hidden) bool { return h.product == "serve" && h.alg != algorithms.TokenBucketName })
	}
	results := make([]inferred, len(configs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 3) // three probes at a time: each mostly waits
	for i, h := range configs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			t.Run(fmt.Sprintf("%02d", i), func(t *testing.T) { results[i] = probe(t, h) })
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	// a server not installed skips its probes (fails them in CI)
	results = slices.DeleteFunc(results, func(r inferred) bool { return r.h.product == "" })
	right := 0
	var rateErrs, sizeErrs []float64
	var b strings.Builder
	fmt.Fprintf(&b, "%-62s %-16s %-16s %8s %9s %8s %5s\n", "configuration", "truth", "inferred", "rate err", "burst err", "in intvl", "sent")
	for _, r := range results {
		if r.sent > infer.DefaultBudget {
			t.Errorf("%s: %d requests sent, over the budget of %d", r.h, r.sent, infer.DefaultBudget)
		}
		if r.family == string(r.h.family) {
			right++
			rateErrs = append(rateErrs, r.rateErr)
			sizeErrs = append(sizeErrs, r.sizeErr)
		}
		fmt.Fprintf(&b, "%-62s %-16s %-16s %7.1f%% %8.1f%% %8s %5d\n", r.h, r.h.family, r.family, 100*r.rateErr, 100*r.sizeErr, inside(r), r.sent)
	}
	t.Logf("\n%s", b.String())
	if len(results) < 30 && !testing.Short() {
		t.Skipf("only %d of %d configurations could be probed (a server is not installed)", len(results), len(configs))
	}
	if right*10 < len(results)*9 {
		t.Errorf("the family is right in %d of %d configurations, under 90%%", right, len(results))
	}
	if m := median(rateErrs); m > 0.05 {
		t.Errorf("median rate error %.1f%%, over 5%%", 100*m)
	}
	if m := median(sizeErrs); m > 0.05 {
		t.Errorf("median burst error %.1f%%, over 5%%", 100*m)
	}
	t.Logf("family right in %d of %d; median rate error %.2f%%, burst error %.2f%%", right, len(results), 100*median(rateErrs), 100*median(sizeErrs))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.Inf(1)
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	return s[len(s)/2]
}

// inside says whether the inferred intervals held the true rate and size.
func inside(r inferred) string {
	yes := func(b bool) string {
		if b {
			return "y"
		}
		return "n"
	}
	return yes(r.rateIn) + "/" + yes(r.sizeIn)
}
