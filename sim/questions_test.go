package sim

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"ratelab/algorithms"
)

// quizConfig is boundary-burst's traffic (140 requests at 0.999 s, 180 at
// 1.001 s, against 100 per second) through a fixed window, a token bucket and a
// sliding log, with claims on what they accept from 0.999 s to 1.002 s and
// questions on them.
func quizConfig() *Config {
	cfg := newConfig(algorithms.Policy{Limit: 100, Period: time.Second}, 3*time.Second,
		[]LaneConfig{lane("fixed-window", algorithms.FixedWindowName), lane("token-bucket", algorithms.TokenBucketName), lane("sliding-log", algorithms.SlidingLogName)},
		Client{Name: "burst", Pattern: Bursts{[]Burst{{At: 999 * time.Millisecond, Count: 140}, {At: 1001 * time.Millisecond, Count: 180}}}})
	cfg.Scopes = []Scope{{From: 999 * time.Millisecond, To: 1002 * time.Millisecond}}
	p := cfg.Tiers[0].Policy
	cfg.Claims = []Claim{
		{ID: "fw", Lanes: []int{0}, Metric: "accepted", Op: "==", Value: 200, Than: -1, Times: 1, Scope: 0, Policy: p},
		{ID: "tb", Lanes: []int{1}, Metric: "accepted", Op: "==", Value: 100, Than: -1, Times: 1, Scope: 0, Policy: p},
		{ID: "lead", Lanes: []int{0}, Metric: "accepted", Op: ">", Than: 1, Times: 1.5, Scope: -1, Policy: p},
	}
	inf := math.Inf(1)
	ranges := func(texts []string, rs ...Range) []Choice {
		var cs []Choice
		for i, r := range rs {
			cs = append(cs, Choice{Text: texts[i], Lane: -1, Range: r})
		}
		return cs
	}
	cfg.Questions = []Question{
		{At: 1002 * time.Millisecond, Ask: "how many?", Claim: 0, Lane: 0},
		{At: 1500 * time.Millisecond, Ask: "how many, roughly?", Claim: 0, Lane: 0,
			Choices: ranges([]string{"under 200", "200", "over 200"}, Range{Lo: -inf, Hi: 200, HiOpen: true}, Range{Lo: 200, Hi: 200}, Range{Lo: 200, Hi: inf, LoOpen: true})},
		{At: 3 * time.Second, Ask: "which?", Claim: 2, Lane: -1,
			Choices: []Choice{{Text: "sliding-log", Lane: 2}, {Text: "token-bucket", Lane: 1}, {Text: "fixed-window", Lane: 0}}},
		{At: 500 * time.Millisecond, Ask: "so far?", Claim: 0, Lane: 0}, // written last, asked first
		{At: 1002 * time.Millisecond, Ask: "none fits", Claim: 1, Lane: 1,
			Choices: ranges([]string{"< 100", "> 100"}, Range{Lo: -inf, Hi: 100, HiOpen: true}, Range{Lo: 100, Hi: inf, LoOpen: true})},
	}
	return cfg
}

// A run answers each question as it passes the question's instant, with the
// claim's value then, whatever steps it advances in; the questions change
// nothing else of the run.
func TestQuestionsAreAnsweredAtTheirInstant(t *testing.T) {
	run := func(cfg *Config, step time.Duration) (*Run, []Row, []Sample) {
		r, err := NewRun(cfg, Memory)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(r.Close)
		var rows []Row
		var samples []Sample
		r.OnRows(func(rs []Row) error { rows = append(rows, rs...); return nil })
		r.OnSeries(func(_ int, s Sample) error { samples = append(samples, s); return nil })
		for at := step; ; at += step {
			if err := r.AdvanceTo(min(at, cfg.Duration)); err != nil {
				t.Fatal(err)
			}
			if at == 1001*time.Millisecond && len(r.Answers()) != 1 {
				t.Errorf("at 1.001s the run has answered %d questions; want the one at 0.5s", len(r.Answers()))
			}
			if at >= cfg.Duration {
				break
			}
		}
		return r, rows, samples
	}
	cfg := quizConfig()
	whole, rows, samples := run(cfg, cfg.Duration)
	answers := whole.Answers()
	if got := len(answers); got != 5 {
		t.Fatalf("%d answers, want 5", got)
	}
	order := []int{3, 0, 4, 1, 2} // by instant, then as written
	for i, a := range answers {
		if a.Question != order[i] {
			t.Errorf("answer %d is to question %d, want %d (by instant, then as written)", i, a.Question, order[i])
		}
	}
	byQ := map[int]Answer{}
	for _, a := range answers {
		byQ[a.Question] = a
	}
	for _, tc := range []struct {
		q     int
		value float64
		holds bool
		right []int
	}{
		{3, 0, false, nil},       // 0.5 s: nothing counted yet; the claim does not hold so far
		{0, 200, true, nil},      // 1.002 s: the two windows' 100 and 100
		{4, 100, true, nil},      // 100 is in neither "< 100" nor "> 100"
		{1, 200, true, []int{1}}, // "200"
		{2, 0, true, []int{2}},   // only the fixed window accepts more than 1.5 × the bucket's
	} {
		a := byQ[tc.q]
		if a.Value != tc.value || a.Claim.Holds != tc.holds || !slices.Equal(a.Right, tc.right) {
			t.Errorf("question %d (%s): value %g, claim holds %v, right %v; want %g, %v, %v", tc.q, cfg.Questions[tc.q].Ask, a.Value, a.Claim.Holds, a.Right, tc.value, tc.holds, tc.right)
		}
	}
	if v := byQ[2].Values; !slices.Equal(v, []float64{100, 100, 200}) {
		t.Errorf("the question of lanes: values %v, want each lane's accepted: 100, 100, 200", v)
	}
	if _, ok := byQ[4].Choice(); ok {
		t.Error("a question no choice fits has a right choice")
	}

	stepped, steppedRows, steppedSamples := run(quizConfig(), 7*time.Millisecond)
	if !reflect.DeepEqual(stepped.Answers(), answers) {
		t.Errorf("advanced 7 ms at a time, the answers differ:\n%+v\nat once:\n%+v", stepped.Answers(), answers)
	}
	plain := quizConfig()
	plain.Questions = nil
	_, plainRows, plainSamples := run(plain, plain.Duration)
	if !reflect.DeepEqual(rows, plainRows) || !reflect.DeepEqual(samples, plainSamples) || !reflect.DeepEqual(steppedRows, plainRows) || !reflect.DeepEqual(steppedSamples, plainSamples) {
		t.Error("the questions changed the run's rows or series")
	}
	if snap := whole.Snapshot(); !reflect.DeepEqual(snap.Answers, answers) {
		t.Errorf("the snapshot's answers %+v, want the run's", snap.Answers)
	}
}
