package e2e

import (
	"slices"
	"sync"
	"testing"

	"ratelab/present"
	"ratelab/scenarios"
	"ratelab/sim"
)

// sweepSeeds are the seeds every shipped claim is checked on: 1..50, or 1..3
// under -short (the full run has the rest).
func sweepSeeds() []uint64 {
	n := 50
	if testing.Short() {
		n = 3
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds
}

// runSeeded runs a shipped scenario to its end in memory on seed, with edit (if
// not nil) applied to its compiled configuration first.
func runSeeded(t *testing.T, c *scenarios.Catalogue, name string, seed uint64, edit func(*sim.Config)) (*sim.Config, []sim.ClaimResult) {
	t.Helper()
	cfg, err := c.Compile(name, scenarios.Overrides{Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(cfg)
	}
	return cfg, claimsAtEnd(t, cfg)
}

// claimsAtEnd runs cfg to its end in memory and judges its claims.
func claimsAtEnd(t *testing.T, cfg *sim.Config) []sim.ClaimResult {
	t.Helper()
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	return r.ClaimsOn(r.Metrics())
}

// A lesson holds whatever the seed: every shipped claim is checked on seeds 1..50
// in memory (1..3 under -short); seed 1 on Redis is TestEveryClaimHoldsOnRedis's
// (package session). A claim that fails on some seed prints the seed and the
// numbers, so the run that broke it can be replayed with ratelab run --seed.
func TestClaimsHoldOnEverySeed(t *testing.T) {
	c := catalogue(t)
	var mu sync.Mutex
	checks, failed := 0, 0
	t.Cleanup(func() { t.Logf("%d claim checks over %d seeds, %d failed", checks, len(sweepSeeds()), failed) })
	for _, name := range c.Names() {
		if _, ok := handsOn[name]; ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, seed := range sweepSeeds() {
				cfg, results := runSeeded(t, c, name, seed, nil)
				n, bad := 0, 0
				for _, res := range results {
					n++
					if !res.Holds {
						bad++
						t.Errorf("seed %d: claim %s does not hold: %s", seed, res.ID, present.ClaimLine(cfg, res))
					}
				}
				mu.Lock()
				checks, failed = checks+n, failed+bad
				mu.Unlock()
			}
		})
	}
}

// Every shipped question has an answer on every seed 1..50 (1..3 under -short),
// and the same one: its claim holds on the run so far at the question's
// instant, a question of choices has exactly one right choice, the same on
// every seed, and a number is defined; every wrong answer (each wrong choice,
// a number too low or too high) carries its own feedback. The log prints each
// question's answer on seed 1 and its range over the seeds.
func TestQuestionsAnsweredOnEverySeed(t *testing.T) {
	c := catalogue(t)
	asked := 0
	for _, name := range c.Names() {
		cfg, err := c.Compile(name, scenarios.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		if len(cfg.Questions) == 0 {
			continue
		}
		asked += len(cfg.Questions)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lo, hi := map[int]float64{}, map[int]float64{}
			laneLo, laneHi := map[int][]float64{}, map[int][]float64{} // a question of lanes: each choice's value
			first := map[int]string{}
			for _, seed := range sweepSeeds() {
				cfg, err := c.Compile(name, scenarios.Overrides{Seed: &seed})
				if err != nil {
					t.Fatal(err)
				}
				r, err := sim.NewRun(cfg, sim.Memory)
				if err != nil {
					t.Fatal(err)
				}
				if err := r.AdvanceTo(cfg.Duration); err != nil {
					t.Fatal(err)
				}
				r.Close()
				answers := r.Answers()
				if len(answers) != len(cfg.Questions) {
					t.Fatalf("seed %d: %d answers to %d questions", seed, len(answers), len(cfg.Questions))
				}
				for _, a := range answers {
					q := cfg.Questions[a.Question]
					line := present.AnswerLine(cfg, a)
					switch right, ok := a.Choice(); {
					case !a.Claim.Holds:
						t.Errorf("seed %d: the claim does not hold at the question's instant: %s\n%s", seed, present.ClaimLine(cfg, a.Claim), line)
					case len(q.Choices) > 0 && !ok:
						t.Errorf("seed %d: no single right choice: %s", seed, line)
					case len(q.Choices) == 0 && a.Undefined:
						t.Errorf("seed %d: no number answers it: %s", seed, line)
					case len(q.Choices) > 0 && seed > 1 && q.Choices[right].Text != first[a.Question]:
						t.Errorf("seed %d: the right choice is %q; on seed 1 it was %q", seed, q.Choices[right].Text, first[a.Question])
					case len(q.Choices) > 0 && seed == 1:
						first[a.Question] = q.Choices[right].Text
						for j, ch := range q.Choices {
							if j != right && ch.Why == "" {
								t.Errorf("question at %s: the wrong choice %q says nothing of the misconception behind it (why)", q.At, ch.Text)
							}
						}
					case len(q.Choices) == 0 && seed == 1 && (q.WhyLow == "" || q.WhyHigh == ""):
						t.Errorf("question at %s: a number too low or too high gets no word on the misconception behind it (why.low, why.high)", q.At)
					}
					if seed == 1 {
						t.Logf("%s", line)
						lo[a.Question], hi[a.Question] = a.Value, a.Value
					}
					lo[a.Question], hi[a.Question] = min(lo[a.Question], a.Value), max(hi[a.Question], a.Value)
					if laneLo[a.Question] == nil {
						laneLo[a.Question], laneHi[a.Question] = slices.Clone(a.Values), slices.Clone(a.Values)
					}
					for i, v := range a.Values {
						laneLo[a.Question][i], laneHi[a.Question][i] = min(laneLo[a.Question][i], v), max(laneHi[a.Question][i], v)
					}
				}
			}
			for i, q := range cfg.Questions {
				if !q.LaneChoices() {
					t.Logf("question at %s: its value over seeds 1..%d ranges from %s to %s", q.At, len(sweepSeeds()), present.Value(q, lo[i]), present.Value(q, hi[i]))
					continue
				}
				for j, ch := range q.Choices {
					t.Logf("question at %s: %s's %s over seeds 1..%d ranges from %s to %s", q.At, ch.Text, cfg.Claims[q.Claim].Metric, len(sweepSeeds()), present.Value(q, laneLo[i][j]), present.Value(q, laneHi[i][j]))
				}
			}
		})
	}
	if asked < 5 {
		t.Errorf("the catalogue asks %d questions; the lessons ask at least five", asked)
	}
}
