package scenarios

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

// FuzzCompileAndRun builds a scenario file from the fuzz input, choosing each
// value from lists that mix the ordinary with the hostile (NaN, infinities,
// denormal and absurdly small or large rates, sigmas and jitters, durations of a
// year), and runs every scenario the compiler accepts under a budget of events.
// Every accepted scenario must finish or report its budget: never loop (a wall
// clock bound catches that), never make a decision at a negative time or after
// the end, never a cost below 1 or a negative retry-after.
func FuzzCompileAndRun(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte("the issue's cases: rate nan, 1e-300, sigma nan, jitter nan"))
	f.Add([]byte{2, 0, 0, 0, 2, 9, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3})
	f.Add([]byte{255, 254, 253, 252, 251, 250, 249, 248, 247, 246, 245, 244, 243, 242, 241, 240})
	f.Fuzz(func(t *testing.T, in []byte) {
		doc := fuzzScenario(&chooser{in: in})
		src := Source{Name: "fuzz.toml", Open: func(string) (io.ReadCloser, error) { return nil, fs.ErrNotExist }}
		c, err := Parse(src, []byte(doc))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.toml") {
				t.Fatalf("an error that does not name the file: %v\n%s", err, doc)
			}
			return
		}
		cfg, err := c.Compile("fuzz", Overrides{})
		if err != nil {
			t.Fatalf("compiled in Parse, not again: %v", err)
		}
		runBounded(t, cfg, doc)
	})
}

// runBounded runs cfg to its end under a budget of events per lane and checks
// every row.
func runBounded(t *testing.T, cfg *sim.Config, doc string) {
	t.Helper()
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		t.Fatalf("NewRun: %v\n%s", err, doc)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r.Bound(ctx, 20_000)
	r.OnRows(func(rows []sim.Row) error {
		for _, row := range rows {
			switch {
			case row.At < 0 || row.At >= cfg.Duration:
				return fmt.Errorf("a decision at %v, outside [0, %v)", row.At, cfg.Duration)
			case row.Cost < 1:
				return fmt.Errorf("a request of cost %d at %v", row.Cost, row.At)
			case row.RetryAfter < 0:
				return fmt.Errorf("a retry-after of %v at %v", row.RetryAfter, row.At)
			}
		}
		return nil
	})
	err = r.AdvanceTo(cfg.Duration)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		t.Fatalf("the run did not end or spend its budget in a minute: %v\n%s", err, doc)
	case err != nil && !errors.Is(err, sim.ErrBudget):
		t.Fatalf("%v\n%s", err, doc)
	}
	for _, l := range r.Lanes {
		for _, s := range l.Series() {
			if s.At <= 0 || s.At > cfg.Duration {
				t.Fatalf("lane %s: a sample at %v, outside (0, %v]\n%s", l.Config.Name, s.At, cfg.Duration, doc)
			}
		}
	}
}

// chooser turns fuzz bytes into choices; past the end of the input every choice
// is the first.
type chooser struct {
	in []byte
	i  int
}

func (c *chooser) pick(options ...string) string {
	if c.i >= len(c.in) {
		return options[0]
	}
	b := c.in[c.i]
	c.i++
	return options[int(b)%len(options)]
}

// hostile numbers, and ordinary ones
var (
	fuzzRates     = []string{"5", "100", "0.5", "1e-300", "5e-324", "1e-10", "1e-5", "nan", "inf", "-inf", "1e308", "0", "-5", "20000", "1.1e-5"}
	fuzzFractions = []string{"0", "0.5", "1", "nan", "inf", "-0.1", "1e-300", "2"}
	fuzzDurations = []string{`"0s"`, `"1ms"`, `"10ms"`, `"1s"`, `"24h"`, `"8760h"`, `"-1s"`, `"1us"`, `"1ns"`, `"2562047h"`}
)

// fuzzScenario is a scenario file named "fuzz" built from c's choices.
func fuzzScenario(c *chooser) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	optional := func(key string, options ...string) {
		if v := c.pick(append([]string{""}, options...)...); v != "" {
			line("%s = %s", key, v)
		}
	}
	line("[[scenario]]")
	line(`name = "fuzz"`)
	// at most 30,000 ticks, and a budget of work: every run takes well under the
	// fuzzer's 10 s a run, even instrumented on a busy machine
	line("duration = %s", c.pick(`"1s"`, `"10ms"`, `"3s"`, `"1ms"`, `"30s"`, `"5ms"`))
	optional("tick", `"1ms"`, `"10ms"`, `"100ms"`, `"1s"`, `"0s"`)
	line("[scenario.policy]")
	line("limit = %s", c.pick("10", "1", "100", "1000000", "3"))
	optional("period", `"1s"`, `"1ms"`, `"1h"`, `"24h"`, `"100000h"`, `"1us"`)
	optional("burst", "1", "5", "1000", "100000")
	optional("retry_after_jitter", fuzzFractions...)
	for n := c.pick("1", "0", "2", "3"); n != "0"; n = c.pick("0", "0", "1") {
		line("[[scenario.lane]]")
		var names []string
		for _, n := range algorithms.Names() {
			names = append(names, string(n))
		}
		line("algorithm = %q", c.pick(names...))
		optional("retry_after_jitter", fuzzFractions...)
		optional("limit", "1", "50")
		if c.pick("", "x") != "" {
			line(`name = "lane-%d"`, c.i)
		}
	}
	if c.pick("", "node") != "" {
		line("[[scenario.node]]")
		line(`name = "a"`)
		optional("offset", `"-300ms"`, `"1h"`, `"-1h"`, `"2h"`)
		optional("drift_ppm", "2000", "-100000", "nan", "1e300", "100000")
	}
	if c.pick("", "backend") != "" {
		line("[scenario.backend]")
		line("concurrency = %s", c.pick("1", "20", "0"))
		line("service_time = %s", c.pick(fuzzDurations...))
		optional("queue", "0", "10", "-1")
		optional("timeout", fuzzDurations...)
	}
	for i := 0; i < 1 || (i < 2 && c.pick("", "more") != ""); i++ {
		line("[[scenario.client]]")
		line(`name = "c%d"`, i)
		switch c.pick("constant", "poisson", "ramp", "bursts", "closed-loop") {
		case "constant":
			line(`pattern = "constant"`)
			line("rate = %s", c.pick(fuzzRates...))
			optional("per", `"1s"`, `"1ns"`, `"1ms"`, `"24h"`, `"100000h"`)
		case "poisson":
			line(`pattern = "poisson"`)
			line("rate = %s", c.pick(fuzzRates...))
			optional("per", `"1s"`, `"1ns"`, `"24h"`)
		case "ramp":
			line(`pattern = "ramp"`)
			line("rate = %s", c.pick(fuzzRates...))
			line("rate_to = %s", c.pick(fuzzRates...))
		case "bursts":
			line(`pattern = "bursts"`)
			line("bursts = [{ at = %s, count = %s, spread = %s }]", c.pick(fuzzDurations...), c.pick("1", "100", "100000", "0"), c.pick(fuzzDurations...))
		case "closed-loop":
			line(`pattern = "closed-loop"`)
			line("concurrency = %s", c.pick("1", "64", "0"))
			optional("think", fuzzDurations...)
			optional("spread", fuzzDurations...)
		}
		optional("start", `"0s"`, `"500us"`, `"1s"`)
		optional("stop", `"1ms"`, `"1s"`, `"2s"`)
		optional("latency", fuzzDurations...)
		optional("keys", "10", "1000")
		optional("deliveries", "2", "100")
		switch c.pick("", "cost", "uniform", "lognormal") {
		case "cost":
			line("cost = %s", c.pick("1", "3", "1000000", "0", "-1"))
		case "uniform":
			line(`cost_distribution = { distribution = "uniform", min = %s, max = %s }`, c.pick("1", "0", "5"), c.pick("5", "1", "1000000000"))
		case "lognormal":
			line(`cost_distribution = { distribution = "lognormal", median = %s, sigma = %s, max = %s }`,
				c.pick("2", "nan", "inf", "1e300", "1e-300", "0"), c.pick("1", "nan", "inf", "1e300", "0", "-1", "5e-324"), c.pick("5", "1"))
		}
		if c.pick("", "retry") != "" {
			line(`retry = { policy = %q, delay = %s, cap = %s, jitter = %q, max_attempts = %s }`,
				c.pick("immediate", "retry-after", "exponential", "fixed", "none"), c.pick(fuzzDurations...),
				c.pick(`"10s"`, `"24h"`, `"8760h"`, `"0s"`), c.pick("none", "full", "equal"), c.pick("5", "1000", "1", "0"))
		}
	}
	return b.String()
}
