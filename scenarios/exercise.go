package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"ratelab/sim"
)

// A lesson's exercise: change this, predict that. The change is to the
// default policy (its limit, its burst, or both: what the UI's { } and [ ] keys
// change), or to lanes, clients or the backend, each written whole in place of
// the scenario's own (a lane's options, a product's setting, a client's rate or
// retry policy: what ratelab run --exercise changes). The prediction is a
// question in words, and its answer a claim about the changed run, which must
// hold there and not on the unchanged run (the change is what the learner
// predicts the effect of); a test checks both for every shipped exercise.

// ExerciseSpec is a lesson's exercise.
type ExerciseSpec struct {
	Change string `toml:"change,omitempty"` // required: the change in words ("the burst to 50")
	Limit  *int64 `toml:"limit,omitempty"`  // the default policy's new limit, and/or
	Burst  *int64 `toml:"burst,omitempty"`  // its new burst, and/or
	// Lanes replace the scenario's lanes of the same name (a lane's name,
	// else its algorithm), every key as in [[scenario.lane]]; Clients replace
	// its clients of the same name; Backend replaces its backend. The change
	// is one of these at least.
	Lanes   []LaneSpec   `toml:"lane,omitempty"`
	Clients []ClientSpec `toml:"client,omitempty"`
	Backend *BackendSpec `toml:"backend,omitempty"`
	Predict string       `toml:"predict,omitempty"` // required: what to predict, as a question
	// Answer is the claim that answers it on the changed run; its id is
	// "exercise", and says may be left out (the prediction is the sentence).
	Answer ClaimSpec `toml:"answer,omitempty"`
}

// ExerciseID is the id of an exercise's answer among a compiled run's claims.
const ExerciseID = "exercise"

// Exercise compiles the exercise of the scenario called name: changed is the
// run with the exercise's change applied and its answer as the last claim,
// unchanged the scenario's own run with the same claim; o applies to both (its
// Limit and Burst give way to the exercise's on the changed run).
func (c *Catalogue) Exercise(name string, o Overrides) (changed, unchanged *sim.Config, err error) {
	i, err := c.Index(name)
	if err != nil {
		return nil, nil, err
	}
	if c.Scenarios[i].Exercise == nil {
		var with []string
		for _, s := range c.Scenarios {
			if s.Exercise != nil {
				with = append(with, s.Name)
			}
		}
		if len(with) == 0 {
			return nil, nil, fmt.Errorf("scenario %q has no exercise, and none in %s has one ([scenario.exercise])", name, c.Source.Name)
		}
		return nil, nil, fmt.Errorf("scenario %q has no exercise; these have one: %s", name, strings.Join(with, ", "))
	}
	return compileExercise(c.Source, c.pos, i, &c.Scenarios[i], o, true)
}

// compileExercise compiles scenario s's exercise: the changed run, and with
// both, the unchanged one too (a catalogue being read checks the changed one
// only: the unchanged run is the scenario's own, with the answer's lanes).
func compileExercise(src Source, pos *positions, i int, s *Scenario, o Overrides, both bool) (changed, unchanged *sim.Config, err error) {
	ex := s.Exercise
	if ex == nil {
		return nil, nil, fmt.Errorf("scenario %q has no exercise", s.Name)
	}
	place := func(key string) string { return pos.place(src.Name, i, "exercise", key) }
	switch {
	case strings.TrimSpace(ex.Change) == "":
		return nil, nil, fmt.Errorf("%s: scenario %q: exercise: change is missing: the change in words, like \"the burst to 50\"", place("change"), s.Name)
	case strings.TrimSpace(ex.Predict) == "":
		return nil, nil, fmt.Errorf("%s: scenario %q: exercise: predict is missing: what the learner predicts, as a question", place("predict"), s.Name)
	case ex.Limit == nil && ex.Burst == nil && len(ex.Lanes) == 0 && len(ex.Clients) == 0 && ex.Backend == nil:
		return nil, nil, fmt.Errorf("%s: scenario %q: exercise: give the change: the default policy's new limit or burst, or [[scenario.exercise.lane]], [[scenario.exercise.client]] or [scenario.exercise.backend] tables written in place of the scenario's", place("change"), s.Name)
	case ex.Limit != nil && *ex.Limit <= 0, ex.Burst != nil && *ex.Burst <= 0:
		return nil, nil, fmt.Errorf("%s: scenario %q: exercise: limit and burst must be > 0", place("limit"), s.Name)
	case ex.Answer.ID != "" && ex.Answer.ID != ExerciseID:
		return nil, nil, fmt.Errorf("%s: scenario %q: exercise: the answer's id is always %q (got %q); leave it out", place("answer"), s.Name, ExerciseID, ex.Answer.ID)
	case ex.Answer.Metric == "" && ex.Answer.Lane == "" && len(ex.Answer.Lanes) == 0:
		return nil, nil, fmt.Errorf("%s: scenario %q: exercise: the answer is missing: a [scenario.exercise.answer] table with a claim's keys (lane, metric, op, value)", place("predict"), s.Name)
	}
	for _, text := range []struct{ key, s string }{{"change", ex.Change}, {"predict", ex.Predict}} {
		if err := plainExcept(text.key, text.s, "\n\r\t"); err != nil {
			return nil, nil, fmt.Errorf("%s: scenario %q: exercise: %v", place(text.key), s.Name, err)
		}
	}
	with := *s
	answer := ex.Answer
	answer.ID = ExerciseID
	if answer.Says == "" {
		answer.Says = strings.Join(strings.Fields(ex.Predict), " ")
	}
	with.Claims = append(slices.Clone(s.Claims), answer)
	// the answer is placed where the exercise writes it
	answerPos := pos.clone()
	answerPos.move(i, []any{"claim", len(s.Claims)}, []any{"exercise", "answer"})
	if both {
		if unchanged, err = compile(src, answerPos, i, &with, o); err != nil {
			return nil, nil, err
		}
	}
	if ex.Limit != nil {
		o.Limit = *ex.Limit
		if ex.Burst == nil && s.Policy != nil && s.Policy.Burst == 0 && o.Burst == 0 {
			o.Burst = *ex.Limit // a burst left out is the limit, the new one
		}
	}
	if ex.Burst != nil {
		o.Burst = *ex.Burst
	}
	changedPos, err := replaceParts(src, answerPos, i, &with)
	if err != nil {
		return nil, nil, err
	}
	if changed, err = compile(src, changedPos, i, &with, o); err != nil {
		return nil, nil, err
	}
	if err := answerKept(src, pos, i, s, changed, unchanged); err != nil {
		return nil, nil, err
	}
	// the answer is written for the changed run, the lesson's claims for the
	// unchanged one (which the notes beside their results say); the lesson's
	// questions, whose premises are the scenario's own, are not asked of it
	for k := range changed.Claims {
		c := &changed.Claims[k]
		if c.ID == ExerciseID {
			c.Policy = changed.Tiers[0].Policy
		} else {
			c.Unexercised = !ex.HandChange()
		}
	}
	changed.Questions = nil
	return changed, unchanged, nil
}

// answerKept fails when the exercise's answer is not among a run's claims:
// --lanes left its lanes out, or they are a product configuration's several
// lanes, which the answer cannot name one by one.
func answerKept(src Source, pos *positions, i int, s *Scenario, runs ...*sim.Config) error {
	for _, cfg := range runs {
		if cfg == nil {
			continue
		}
		if !slices.ContainsFunc(cfg.Claims, func(c sim.Claim) bool { return c.ID == ExerciseID }) {
			lanes := s.Exercise.Answer.Lanes
			if s.Exercise.Answer.Lane != "" {
				lanes = append([]string{s.Exercise.Answer.Lane}, lanes...)
			}
			return fmt.Errorf("%s: scenario %q: exercise: its answer is about %s, which this run does not have as one lane (--lanes leaves it out, or a product configuration makes it several); keep it in --lanes, or answer about a lane the run has", pos.place(src.Name, i, "exercise", "answer"), s.Name, strings.Join(lanes, ", "))
		}
	}
	return nil
}

// HandChange says the exercise's change is the default policy's alone, which
// the UI's { } and [ ] keys make.
func (ex *ExerciseSpec) HandChange() bool {
	return len(ex.Lanes) == 0 && len(ex.Clients) == 0 && ex.Backend == nil
}

// replaceParts puts the exercise's lanes, clients and backend in place of the
// scenario's own in s (a copy, whose slices it clones), and returns the
// positions the changed scenario is compiled with: a replaced part's places
// are where the exercise writes it, so an error in it names its own line.
func replaceParts(src Source, pos *positions, i int, s *Scenario) (*positions, error) {
	ex := s.Exercise
	if len(ex.Lanes) == 0 && len(ex.Clients) == 0 && ex.Backend == nil {
		return pos, nil
	}
	moved := pos.clone()
	place := func(path ...any) string { return pos.place(src.Name, i, append([]any{"exercise"}, path...)...) }
	s.Lanes = slices.Clone(s.Lanes)
	if len(ex.Lanes) > 0 && len(s.Lanes) == 0 {
		return nil, fmt.Errorf("%s: scenario %q: exercise: the scenario writes no [[scenario.lane]] (it runs every algorithm with the policy), so an exercise's lane has none to replace; write the scenario's lanes, or change the policy (limit, burst)", place("lane", 0), s.Name)
	}
	replaced := map[string]bool{}
	for k, lane := range ex.Lanes {
		name := laneSpecName(lane)
		if replaced[name] {
			return nil, fmt.Errorf("%s: scenario %q: exercise: lane %q is replaced twice; keep one [[scenario.exercise.lane]] for it", place("lane", k), s.Name, name)
		}
		replaced[name] = true
		j := slices.IndexFunc(s.Lanes, func(l LaneSpec) bool { return laneSpecName(l) == name })
		if j < 0 {
			return nil, fmt.Errorf("%s: scenario %q: exercise: lane %q is not one of the scenario's lanes (%s); an exercise's lane replaces the lane of its name", place("lane", k), s.Name, name, strings.Join(laneSpecNames(s.Lanes), ", "))
		}
		s.Lanes[j] = lane
		moved.move(i, []any{"lane", j}, []any{"exercise", "lane", k})
	}
	s.Clients = slices.Clone(s.Clients)
	for k, client := range ex.Clients {
		if replaced["client "+client.Name] {
			return nil, fmt.Errorf("%s: scenario %q: exercise: client %q is replaced twice; keep one [[scenario.exercise.client]] for it", place("client", k), s.Name, client.Name)
		}
		replaced["client "+client.Name] = true
		j := slices.IndexFunc(s.Clients, func(c ClientSpec) bool { return c.Name == client.Name })
		if j < 0 {
			var names []string
			for _, c := range s.Clients {
				names = append(names, c.Name)
			}
			return nil, fmt.Errorf("%s: scenario %q: exercise: client %q is not one of the scenario's clients (%s); an exercise's client replaces the client of its name", place("client", k), s.Name, client.Name, strings.Join(names, ", "))
		}
		s.Clients[j] = client
		moved.move(i, []any{"client", j}, []any{"exercise", "client", k})
	}
	if ex.Backend != nil {
		s.Backend = ex.Backend
		moved.move(i, []any{"backend"}, []any{"exercise", "backend"})
	}
	return moved, nil
}

// laneSpecName is the name a lane is known by: its name, else its algorithm.
func laneSpecName(l LaneSpec) string {
	if l.Name != "" {
		return l.Name
	}
	return string(l.Algorithm.Value())
}

func laneSpecNames(lanes []LaneSpec) []string {
	names := make([]string, len(lanes))
	for i, l := range lanes {
		names[i] = laneSpecName(l)
	}
	return names
}
