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
	case ex.Limit == nil && ex.Burst == nil && ex.HandChange():
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
	// the answer, and on the changed run the parts replaced, are placed where
	// the exercise writes them
	answerPos := pos.clone()
	answerPos.move(i, []any{"claim", len(s.Claims)}, []any{"exercise", "answer"})
	if both {
		if unchanged, err = compile(src, answerPos, i, &with, o); err != nil {
			return nil, nil, err
		}
	}
	limit, burst := ex.Policy(s.Policy)
	if limit > 0 {
		o.Limit = limit
	}
	if burst > 0 {
		o.Burst = burst
	}
	if err := replaceParts(src, answerPos, i, &with); err != nil {
		return nil, nil, err
	}
	if changed, err = compile(src, answerPos, i, &with, o); err != nil {
		return nil, nil, err
	}
	for _, run := range []*sim.Config{changed, unchanged} {
		if run != nil && !slices.ContainsFunc(run.Claims, func(c sim.Claim) bool { return c.ID == ExerciseID }) {
			return nil, nil, fmt.Errorf("%s: scenario %q: exercise: its answer is about %s, which this run does not have as one lane (--lanes leaves it out, or a product configuration makes it several); keep it in --lanes, or answer about a lane the run has", place("answer"), s.Name, strings.Join(ex.Answer.laneNames(), ", "))
		}
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

// HandChange says the exercise's change is the default policy's alone, which
// the UI's { } and [ ] keys make.
func (ex *ExerciseSpec) HandChange() bool {
	return len(ex.Lanes) == 0 && len(ex.Clients) == 0 && ex.Backend == nil
}

// Policy is the default policy's limit and burst the exercise sets, 0 for
// what it leaves; written is the scenario's policy as the file writes it: a
// burst it leaves out is the limit, so a new limit brings it along.
func (ex *ExerciseSpec) Policy(written *PolicySpec) (limit, burst int64) {
	if ex.Limit != nil {
		limit = *ex.Limit
		if ex.Burst == nil && written != nil && written.Burst == 0 {
			burst = limit
		}
	}
	if ex.Burst != nil {
		burst = *ex.Burst
	}
	return limit, burst
}

// replaceParts puts the exercise's lanes, clients and backend in place of the
// scenario's own in s (a copy, whose slices it clones), and moves pos so that
// a replaced part's places are where the exercise writes it: an error in it
// names its own line.
func replaceParts(src Source, pos *positions, i int, s *Scenario) error {
	ex := s.Exercise
	if ex.HandChange() {
		return nil
	}
	if len(ex.Lanes) > 0 && len(s.Lanes) == 0 {
		return fmt.Errorf("%s: scenario %q: exercise: the scenario writes no [[scenario.lane]] (it runs every algorithm with the policy), so an exercise's lane has none to replace; write the scenario's lanes, or change the policy (limit, burst)", pos.place(src.Name, i, "exercise", "lane", 0), s.Name)
	}
	var err error
	if s.Lanes, err = replaceByName(src, pos, i, s.Name, "lane", s.Lanes, ex.Lanes, LaneSpec.shownName); err != nil {
		return err
	}
	if s.Clients, err = replaceByName(src, pos, i, s.Name, "client", s.Clients, ex.Clients, func(c ClientSpec) string { return c.Name }); err != nil {
		return err
	}
	if ex.Backend != nil {
		s.Backend = ex.Backend
		pos.move(i, []any{"backend"}, []any{"exercise", "backend"})
	}
	return nil
}

// replaceByName is own (a copy) with each of with in place of the part of its
// name, and pos moved to place it at [[scenario.exercise.<kind>]]: a name own
// lacks, or one replaced twice, is an error there.
func replaceByName[T any](src Source, pos *positions, i int, scenario, kind string, own, with []T, name func(T) string) ([]T, error) {
	own = slices.Clone(own)
	names := make([]string, len(own))
	for j, part := range own {
		names[j] = name(part)
	}
	replaced := map[string]bool{}
	for k, part := range with {
		n, place := name(part), pos.place(src.Name, i, "exercise", kind, k)
		j := slices.Index(names, n)
		switch {
		case replaced[n]:
			return nil, fmt.Errorf("%s: scenario %q: exercise: %s %q is replaced twice; keep one [[scenario.exercise.%s]] for it", place, scenario, kind, n, kind)
		case j < 0:
			return nil, fmt.Errorf("%s: scenario %q: exercise: %s %q is not one of the scenario's %ss (%s); an exercise's %s replaces the %s of its name", place, scenario, kind, n, kind, strings.Join(names, ", "), kind, kind)
		}
		replaced[n] = true
		own[j] = part
		pos.move(i, []any{kind, j}, []any{"exercise", kind, k})
	}
	return own, nil
}
