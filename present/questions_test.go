package present

import (
	"math"
	"testing"
	"time"

	"ratelab/sim"
)

// The run's answer in words: the number (with its tolerance), the right choice
// with the value it holds (a percentage when the choices write one), the lane;
// and, when no one choice fits, why not.
func TestAnswerText(t *testing.T) {
	inf := math.Inf(1)
	cfg := &sim.Config{Lanes: []sim.LaneConfig{{Name: "fw"}, {Name: "tb"}}, Tiers: []sim.Tier{{}}, Duration: 3 * time.Second,
		Claims: []sim.Claim{{ID: "c", Lanes: []int{0}, Metric: "accepted", Op: "==", Value: 200, Than: -1, Scope: -1}}}
	shares := []sim.Choice{{Text: "under 5%", Lane: -1, Range: sim.Range{Lo: -inf, Hi: 0.05, HiOpen: true}}, {Text: "5% or more", Lane: -1, Range: sim.Range{Lo: 0.05, Hi: inf}}}
	lanes := []sim.Choice{{Text: "fw", Lane: 0}, {Text: "tb", Lane: 1}}
	cfg.Questions = []sim.Question{
		{At: time.Second, Ask: "How many?", Lane: 0},
		{At: time.Second, Ask: "How many, roughly?", Lane: 0, Tolerance: 5},
		{At: time.Second, Ask: "What share?", Lane: 0, Choices: shares},
		{At: time.Second, Ask: "Which?", Lane: -1, Choices: lanes},
	}
	claim := sim.ClaimResult{Claim: cfg.Claims[0], Holds: true}
	for _, tc := range []struct {
		a    sim.Answer
		text string
	}{
		{sim.Answer{Question: 0, Value: 200}, "200"},
		{sim.Answer{Question: 0, Undefined: true}, "none: the value is a ratio over 0 on this run"},
		{sim.Answer{Question: 1, Value: 200}, "200 (±5)"},
		{sim.Answer{Question: 2, Value: 0.02431, Right: []int{0}}, "a) under 5% — the run: 2.43%"},
		{sim.Answer{Question: 2, Value: 0.02, Right: nil}, "none of the choices: the run's value is 2%"},
		{sim.Answer{Question: 3, Right: []int{1}}, "b) tb"},
		{sim.Answer{Question: 3, Right: []int{0, 1}}, "no single one: claim [c] holds on a) fw and b) tb"},
		{sim.Answer{Question: 3}, "none: claim [c] holds on none of these lanes on this run"},
	} {
		tc.a.Claim = claim
		if got := AnswerText(cfg, tc.a); got != tc.text {
			t.Errorf("question %d, answer %+v: %q, want %q", tc.a.Question, tc.a, got, tc.text)
		}
	}
	a := sim.Answer{Question: 3, Right: []int{1}, Claim: claim}
	if got, want := AnswerLine(cfg, a), "? at 1.000s: Which? a) fw  b) tb → b) tb (the claim [c] ✓)"; got != want {
		t.Errorf("AnswerLine = %q, want %q", got, want)
	}
}
