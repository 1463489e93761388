package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"ratelab/algorithms"
	"ratelab/sim"
)

const exerciseDoc = `
[[scenario]]
name = "ex"
duration = "10s"

[scenario.policy]
limit = 10

[[scenario.lane]]
name = "tb"
algorithm = "token-bucket"

[[scenario.lane]]
algorithm = "fixed-window"

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 5

[scenario.exercise]
change = "the token bucket's burst to 3, the client to 20 a second"
predict = "How many does the token bucket accept?"
%s

[scenario.exercise.answer]
lane = "tb"
metric = "accepted"
op = ">"
value = 0
`

// An exercise's lanes and clients replace the scenario's of the same name
// on the changed run only; the unchanged run keeps its own.
func TestExerciseReplacesLanesAndClients(t *testing.T) {
	doc := strings.Replace(exerciseDoc, "%s", `
[[scenario.exercise.lane]]
name = "tb"
algorithm = "token-bucket"
burst = 3

[[scenario.exercise.client]]
name = "c"
pattern = "constant"
rate = 20
`, 1)
	c, err := parse(t, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	changed, unchanged, err := c.Exercise("ex", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if got := changed.Lanes[0].Policy.Burst; got != 3 {
		t.Errorf("the changed run's token bucket has burst %d, want the exercise's 3", got)
	}
	if got := unchanged.Lanes[0].Policy.Burst; got == 3 {
		t.Errorf("the unchanged run's token bucket took the exercise's burst")
	}
	if changed.Lanes[1].Algorithm != algorithms.Name("fixed-window") {
		t.Errorf("the lane the exercise leaves is %s, want fixed-window", changed.Lanes[1].Algorithm)
	}
	if got, was := changed.Clients[0].Pattern, unchanged.Clients[0].Pattern; got != (sim.Constant{Rate: 20}) || was != (sim.Constant{Rate: 5}) {
		t.Errorf("client pattern: changed %v, unchanged %v; want 20 and 5 a second", got, was)
	}
	if c.Scenarios[0].Lanes[0].Burst != nil || len(c.Scenarios[0].Clients) != 1 || c.Scenarios[0].Clients[0].Rate != 5 {
		t.Errorf("compiling the exercise changed the scenario itself")
	}
}

// A replacement that names no part of the scenario, or is wrong itself, is
// an error at the exercise's own line.
func TestExerciseReplacementErrorsNameTheirLine(t *testing.T) {
	for _, tc := range []struct{ table, want string }{
		{"[[scenario.exercise.lane]]\nname = \"nope\"\nalgorithm = \"gcra\"\n", `test.toml:24:1: scenario "ex": exercise: lane "nope" is not one of the scenario's lanes (tb, fixed-window)`},
		{"[[scenario.exercise.client]]\nname = \"d\"\npattern = \"constant\"\nrate = 1\n", `test.toml:24:1: scenario "ex": exercise: client "d" is not one of the scenario's clients (c)`},
		{"[[scenario.exercise.lane]]\nname = \"tb\"\nalgorithm = \"token-bucket\"\nburst = -4\n", `test.toml:24:1: scenario "ex": lane "tb": burst must be >= 1`},
	} {
		_, err := parse(t, strings.Replace(exerciseDoc, "%s", tc.table, 1), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", strings.SplitN(tc.table, "\n", 2)[0], err, tc.want)
		}
	}
}

// An exercise whose answer --lanes leaves out is an error that says so, not a
// run without it; a lane replaced twice is an error; a policy limit without a
// written burst brings its burst along.
func TestExerciseAnswerKeptAndReplacedOnce(t *testing.T) {
	doc := strings.Replace(exerciseDoc, "%s", "limit = 4\n", 1)
	c, err := parse(t, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Exercise("ex", Overrides{Lanes: []string{"fixed-window"}}); err == nil || !strings.Contains(err.Error(), `its answer is about tb, which this run does not have as one lane`) {
		t.Errorf("--lanes without the answer's lane: %v", err)
	}
	changed, _, err := c.Exercise("ex", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if p := changed.Tiers[0].Policy; p.Limit != 4 || p.Burst != 4 {
		t.Errorf("limit = 4 with no burst written: the changed run's policy is %d, burst %d; want 4, 4", p.Limit, p.Burst)
	}
	twice := strings.Replace(exerciseDoc, "%s", "[[scenario.exercise.lane]]\nname = \"tb\"\nalgorithm = \"token-bucket\"\nburst = 1\n\n[[scenario.exercise.lane]]\nname = \"tb\"\nalgorithm = \"token-bucket\"\nburst = 2\n", 1)
	if _, err := parse(t, twice, nil); err == nil || !strings.Contains(err.Error(), `lane "tb" is replaced twice`) {
		t.Errorf("a lane replaced twice: %v", err)
	}
}

// A lane with limits and no name is known by its limits' names joined, as
// the compiler names it: an exercise replaces that lane, not another
// unnamed one.
func TestExerciseReplacesAnUnnamedLaneOfLimits(t *testing.T) {
	limits := func(table, second string, limit int) string {
		return fmt.Sprintf("[[%s.limits]]\nname = \"a\"\nalgorithm = \"token-bucket\"\nkey = \"a:{key}\"\n\n[[%s.limits]]\nname = %q\nalgorithm = \"token-bucket\"\nkey = \"b:{key}\"\nlimit = %d\n", table, table, second, limit)
	}
	doc := "[[scenario]]\nname = \"ml\"\nduration = \"5s\"\n\n[scenario.policy]\nlimit = 10\n\n" +
		"[[scenario.lane]]\ncombine = \"all-or-nothing\"\n" + limits("scenario.lane", "b", 5) +
		"\n[[scenario.lane]]\ncombine = \"all-or-nothing\"\n" + limits("scenario.lane", "c", 5) +
		"\n[[scenario.client]]\nname = \"u\"\npattern = \"constant\"\nrate = 20\n\n" +
		"[scenario.exercise]\nchange = \"c to 20\"\npredict = \"how many?\"\n\n" +
		"[[scenario.exercise.lane]]\ncombine = \"all-or-nothing\"\n" + limits("scenario.exercise.lane", "c", 20) +
		"\n[scenario.exercise.answer]\nlane = \"a+c\"\nmetric = \"accepted\"\nop = \">\"\nvalue = 0\n"
	c, err := parse(t, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	changed, _, err := c.Exercise("ml", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := changed.Lanes[0], changed.Lanes[1]; a.Name != "a+b" || a.Limits[1].Policy.Limit != 5 || b.Name != "a+c" || b.Limits[1].Policy.Limit != 20 {
		t.Errorf("lanes after the exercise: %s (b %d), %s (c %d); want a+b kept at 5, a+c at 20", a.Name, a.Limits[1].Policy.Limit, b.Name, b.Limits[1].Policy.Limit)
	}
}
