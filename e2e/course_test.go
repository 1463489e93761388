package e2e

import (
	"testing"

	"ratelab/present"
	"ratelab/scenarios"
	"ratelab/sim"
)

// The catalogue is a course: every scenario belongs to a part, in the
// course's order (basics first, your own traffic last), and every part has
// lessons.
func TestTheCatalogueIsACourse(t *testing.T) {
	c := catalogue(t)
	last, seen := 0, map[int]bool{}
	for _, s := range c.Scenarios {
		level := s.Part.Level()
		switch {
		case level == 0:
			t.Errorf("scenario %s belongs to no part of the course (part = …)", s.Name)
		case level < last:
			t.Errorf("scenario %s (%s) comes after a lesson of a later part: the catalogue is in the course's order", s.Name, s.Part.Heading())
		}
		last, seen[level] = max(last, level), true
	}
	for level := 1; level <= 7; level++ {
		if !seen[level] {
			t.Errorf("part %d of the course has no lesson", level)
		}
	}
}

// Every lesson with traffic of its own has an exercise (the sandbox's only
// client is the learner's hand), and every shipped exercise has the answer it
// says: its answer holds on the changed run on seeds 1..10 (seed 1 with
// -short, the race run's sample), and not on the unchanged run (seed 1), so
// the change is what decides it.
func TestExercisesAnswerWhatTheyAsk(t *testing.T) {
	c := catalogue(t)
	lastSeed := uint64(10)
	if testing.Short() {
		lastSeed = 1 // the race run's sample; the full run takes ten
	}
	n := 0
	for _, s := range c.Scenarios {
		if s.Exercise == nil {
			if !byHandOnly(s) {
				t.Errorf("lesson %s has no exercise ([scenario.exercise]): change this, predict that", s.Name)
			}
			continue
		}
		n++
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= lastSeed; seed++ {
				changed, unchanged, err := c.Exercise(s.Name, scenarios.Overrides{Seed: &seed})
				if err != nil {
					t.Fatal(err)
				}
				res := judgeExercise(t, changed)
				t.Logf("seed %d, %s: %s", seed, s.Exercise.Change, present.ClaimLine(changed, res))
				if !res.Holds {
					t.Errorf("seed %d: with %s, the answer does not hold: %s", seed, s.Exercise.Change, present.ClaimLine(changed, res))
				}
				if seed == 1 {
					if before := judgeExercise(t, unchanged); before.Holds {
						t.Errorf("the answer holds without the change too (%s): the exercise does not test the change", present.ClaimLine(unchanged, before))
					}
				}
			}
		})
	}
	if n < 10 {
		t.Errorf("%d lessons have an exercise; the course gives at least ten", n)
	}
}

// byHandOnly says every client of s sends only what a person sends by hand.
func byHandOnly(s scenarios.Scenario) bool {
	for _, c := range s.Clients {
		if c.Pattern.String() != "hand" {
			return false
		}
	}
	return len(s.Clients) > 0
}

// judgeExercise runs cfg to its end and returns its exercise's answer, judged.
func judgeExercise(t *testing.T, cfg *sim.Config) sim.ClaimResult {
	t.Helper()
	results := claimsAtEnd(t, cfg)
	return results[len(results)-1]
}
