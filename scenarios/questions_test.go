package scenarios

import (
	"math"
	"strings"
	"testing"
	"time"

	"ratelab/sim"
)

// quizzed is minimal with a claim counting from 0.5 s to 1 s, over two lanes,
// and a question on it at 1 s (lines 21 to 25); extra is added to the question.
func quizzed(extra string) string {
	return minimal + `[[scenario.claim]]
id = "acc"
says = "s"
lanes = ["fixed-window", "gcra"]
metric = "accepted"
op = ">="
value = 1
from = "500ms"
to = "1s"
[[scenario.question]]
at = "1s"
ask = "How many?"
claim = "acc"
show = "the table"
` + extra
}

// with replaces old by new in the question's scenario.
func with(old, new, extra string) string { return strings.Replace(quizzed(extra), old, new, 1) }

// A question's problems are found when the file is read, each placed at its
// line and column, naming the question and the fix.
func TestQuestionErrors(t *testing.T) {
	lane := "lane = \"gcra\"\n"
	for _, tc := range []struct{ name, doc, want string }{
		{"unknown claim", with(`claim = "acc"`, `claim = "acx"`, lane), `dir/test.toml:24:9: scenario "s": question 1 (at 1s): no claim "acx" in this scenario; the claims are: acc; did you mean "acc"?`},
		{"no claim", with("claim = \"acc\"\n", "", lane), `dir/test.toml:21:1: scenario "s": question 1 (at 1s): claim is missing: the id of the claim whose value on the run answers it; the claims are: acc`},
		{"no claims at all", minimal + "[[scenario.question]]\nat = \"1s\"\nask = \"?\"\nclaim = \"x\"\nshow = \"s\"\n", `question 1 (at 1s): no claim "x" in this scenario; add a [[scenario.claim]] measuring the answer`},
		{"at past the end", with(`at = "1s"`, `at = "3s"`, lane), `dir/test.toml:22:6: scenario "s": question 1 (at 3s): at 3s is past the end of the run, 2s; ask within it`},
		{"at missing", with("at = \"1s\"\n", "", lane), `dir/test.toml:21:1: scenario "s": question 1 (at 0s): at must be a virtual time after the start and at most the duration, 2s (got "0s")`},
		{"at before the claim's end", with(`at = "1s"`, `at = "900ms"`, lane), `dir/test.toml:22:6: scenario "s": question 1 (at 900ms): claim "acc" counts until 1s, so its answer is not known at 900ms; ask at = "1s" or later`},
		{"at before the claim's start", with(`at = "1s"`, `at = "500ms"`, lane), `question 1 (at 500ms): claim "acc" counts from 500ms, and nothing is counted by 500ms; ask after 500ms`},
		{"at a fraction of a microsecond", with(`at = "1s"`, `at = "1.0000001s"`, lane), `question 1 (at 1.0000001s): at must be a whole number of microseconds`},
		{"at as a number", with(`at = "1s"`, `at = 1`, lane), `dir/test.toml:22:6: scenario.question.at: "1" is not a duration`},
		{"no ask", with("ask = \"How many?\"\n", "", lane), `question 1 (at 1s): ask is missing: the question to put to the learner`},
		{"no show", with("show = \"the table\"\n", "", lane), `question 1 (at 1s): show is missing: a sentence saying where on screen the answer can be seen`},
		{"ask with an escape", with(`ask = "How many?"`, `ask = "How\u001b[2J many?"`, lane), `dir/test.toml:23:7: scenario "s": question 1 (at 1s): ask "How\x1b[2J many?" holds a control character (U+001B)`},
		{"several lanes, none named", quizzed(""), `dir/test.toml:24:9: scenario "s": question 1 (at 1s): claim "acc" is about several lanes (fixed-window, gcra); say whose value answers, with lane = "…"`},
		{"a lane the claim is not about", quizzed(`lane = "sliding-log"`), `dir/test.toml:26:8: scenario "s": question 1 (at 1s): claim "acc" is about fixed-window, gcra, not "sliding-log"; name one of its lanes`},
		{"no such lane", quizzed(`lane = "gcrx"`), `dir/test.toml:26:8: scenario "s": question 1 (at 1s): no lane or algorithm "gcrx"; the lanes are: fixed-window, sliding-log, sliding-counter, leaky-bucket, token-bucket, gcra, x-time-rate; did you mean "gcra"?`},
		{"one choice", quizzed(lane + `choices = ["1"]`), `dir/test.toml:27:11: scenario "s": question 1 (at 1s): give from 2 to 9 choices (got 1), or none for a number`},
		{"ten choices", quizzed(lane + `choices = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]`), `give from 2 to 9 choices (got 10)`},
		{"choices that overlap", quizzed(lane + `choices = ["100 to 200", "150 or more"]`), `dir/test.toml:27:26: scenario "s": question 1 (at 1s): choice "150 or more": it overlaps choice "100 to 200": a value could be in both; make the ranges apart`},
		{"touching ends overlap", quizzed(lane + `choices = ["5% to 25%", "25% to 50%"]`), `choice "25% to 50%": it overlaps choice "5% to 25%"`},
		{"neither lane nor range", quizzed(lane + `choices = ["lots", "few"]`), `dir/test.toml:27:12: scenario "s": question 1 (at 1s): choice "lots": it is neither a lane of this scenario (fixed-window, sliding-log, sliding-counter, leaky-bucket, token-bucket, gcra, x-time-rate) nor a range of numbers ("lots" is not a number); write a lane's name, or a range: "200", "100–199"`},
		{"a range upside down", quizzed(lane + `choices = ["200 to 100", "300"]`), `choice "200 to 100": it is neither a lane of this scenario (fixed-window, sliding-log, sliding-counter, leaky-bucket, token-bucket, gcra, x-time-rate) nor a range of numbers (its low end, 200, is above its high end, 100)`},
		{"a choice twice", quizzed(lane + `choices = ["1", "2", " 1"]`), `choice " 1": it is given twice; give each choice once`},
		{"an empty choice", quizzed(lane + `choices = ["1", ""]`), `dir/test.toml:27:17: scenario "s": question 1 (at 1s): a choice is empty`},
		{"lanes and ranges mixed", quizzed(`choices = ["gcra", "5"]`), `dir/test.toml:26:20: scenario "s": question 1 (at 1s): choice "5": the choices mix lanes and ranges of numbers; give all lanes, or all ranges`},
		{"lanes, with a claim about two", quizzed(`choices = ["gcra", "fixed-window"]`), `dir/test.toml:24:9: scenario "s": question 1 (at 1s): a question of lanes needs a claim about one lane, the right choice (claim "acc" names 2: fixed-window, gcra)`},
		{"lanes and lane", quizzed(lane + `choices = ["gcra", "fixed-window"]`), `dir/test.toml:26:8: scenario "s": question 1 (at 1s): the choices are lanes, and the answer is the one on which claim "acc" holds: remove lane`},
		{"lanes without the claim's", with(`lanes = ["fixed-window", "gcra"]`, `lane = "gcra"`, `choices = ["sliding-log", "fixed-window"]`), `dir/test.toml:26:11: scenario "s": question 1 (at 1s): claim "acc" is about "gcra", which is not among the choices; offer it`},
		{"a choice compared with itself", with("lanes = [\"fixed-window\", \"gcra\"]\nmetric = \"accepted\"\nop = \">=\"\nvalue = 1", "lane = \"gcra\"\nmetric = \"accepted\"\nop = \">=\"\nthan = \"sliding-log\"", `choices = ["sliding-log", "gcra"]`), `claim "acc" compares with "sliding-log", so that choice would be compared with itself; offer another lane`},
		{"tolerance with choices", quizzed(lane + "choices = [\"1\", \"2\"]\ntolerance = 1"), `dir/test.toml:28:13: scenario "s": question 1 (at 1s): tolerance is for a question answered with a number; this one has choices: remove it`},
		{"tolerance below zero", quizzed(lane + "tolerance = -1"), `dir/test.toml:27:13: scenario "s": question 1 (at 1s): tolerance must be a number >= 0 (got -1)`},
		{"tolerance nan", quizzed(lane + "tolerance = nan"), `tolerance must be a number >= 0 (got NaN)`},
		{"unknown key", quizzed(lane + "answer = 200"), `dir/test.toml:27:1: unknown key "answer" in [scenario.question]; known keys: at, ask, claim, lane, choices, tolerance, show`},
	} {
		_, err := parse(t, tc.doc, nil)
		if err == nil {
			t.Errorf("%s: no error, want %q", tc.name, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got: %v\nwant: %s", tc.name, err, tc.want)
		}
	}
}

// Questions are compiled in the order asked (by instant, then as written), each
// with the lane whose value answers it and its choices read; --lanes drops one
// whose claim or lanes it left out.
func TestQuestionsCompile(t *testing.T) {
	doc := quizzed("lane = \"gcra\"\ntolerance = 2.5\n") + `[[scenario.question]]
at = "2s"
ask = "Which?"
claim = "one"
choices = ["sliding-log", "gcra"]
show = "s"
[[scenario.question]]
at = "1500ms"
ask = "How many, roughly?"
claim = "acc"
lane = "fixed-window"
choices = [5, "6 to 10", "over 10"]
show = "s"
[[scenario.claim]]
id = "one"
says = "s"
lane = "gcra"
metric = "accepted"
op = ">"
value = 0
`
	c, err := parse(t, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("s", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	lane := func(name string) int {
		for i, l := range cfg.Lanes {
			if l.Name == name {
				return i
			}
		}
		return -2
	}
	qs := cfg.Questions
	if len(qs) != 3 || qs[0].At != time.Second || qs[1].At != 1500*time.Millisecond || qs[2].At != 2*time.Second {
		t.Fatalf("questions %+v; want three, at 1s, 1.5s and 2s", qs)
	}
	if q := qs[0]; q.Lane != lane("gcra") || q.Tolerance != 2.5 || cfg.Claims[q.Claim].ID != "acc" || q.Ask != "How many?" || q.Show != "the table" || len(q.Choices) != 0 {
		t.Errorf("the question at 1s: %+v", q)
	}
	inf := math.Inf(1)
	want := []sim.Choice{{Text: "5", Lane: -1, Range: sim.Range{Lo: 5, Hi: 5}}, {Text: "6 to 10", Lane: -1, Range: sim.Range{Lo: 6, Hi: 10}}, {Text: "over 10", Lane: -1, Range: sim.Range{Lo: 10, Hi: inf, LoOpen: true}}}
	if q := qs[1]; q.Lane != lane("fixed-window") || len(q.Choices) != 3 || q.Choices[0] != want[0] || q.Choices[1] != want[1] || q.Choices[2] != want[2] {
		t.Errorf("the question at 1.5s: %+v", q)
	}
	if q := qs[2]; q.Lane != -1 || !q.LaneChoices() || q.Choices[0].Lane != lane("sliding-log") || q.Choices[1].Lane != lane("gcra") || cfg.Claims[q.Claim].ID != "one" {
		t.Errorf("the question of lanes: %+v", q)
	}

	cfg, err = c.Compile("s", Overrides{Lanes: []string{"fixed-window", "gcra"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Questions) != 2 || cfg.Questions[0].At != time.Second || cfg.Questions[1].At != 1500*time.Millisecond {
		t.Errorf("--lanes fixed-window,gcra kept %+v; want the questions at 1s and 1.5s (the third offers sliding-log)", cfg.Questions)
	}
	cfg, err = c.Compile("s", Overrides{Lanes: []string{"sliding-log"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Questions) != 0 {
		t.Errorf("--lanes sliding-log kept %+v; want none (their claims are about other lanes)", cfg.Questions)
	}
}

// Ranges read as a person writes them, each end included or not as the words
// say; a value is in one when it is within it.
func TestRanges(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		text string
		want sim.Range
		in   []float64
		out  []float64
	}{
		{"200", sim.Range{Lo: 200, Hi: 200}, []float64{200}, []float64{199.99, 201}},
		{"1,000 to 1,999", sim.Range{Lo: 1000, Hi: 1999}, []float64{1000, 1999}, []float64{999, 2000}},
		{"100–199", sim.Range{Lo: 100, Hi: 199}, []float64{100, 150}, []float64{99, 200}},
		{"100-199", sim.Range{Lo: 100, Hi: 199}, nil, nil},
		{"-5-5", sim.Range{Lo: -5, Hi: 5}, []float64{-5, 0, 5}, []float64{-6}},
		{"-3", sim.Range{Lo: -3, Hi: -3}, nil, nil},
		{"< 100", sim.Range{Lo: -inf, Hi: 100, HiOpen: true}, []float64{99.9, -1e9}, []float64{100}},
		{"<= 100", sim.Range{Lo: -inf, Hi: 100}, []float64{100}, []float64{100.01}},
		{"≤100", sim.Range{Lo: -inf, Hi: 100}, nil, nil},
		{"under 5%", sim.Range{Lo: -inf, Hi: 0.05, HiOpen: true}, []float64{0.0499}, []float64{0.05}},
		{"at most 40", sim.Range{Lo: -inf, Hi: 40}, nil, nil},
		{"40 or fewer", sim.Range{Lo: -inf, Hi: 40}, []float64{40}, []float64{41}},
		{"> 500", sim.Range{Lo: 500, Hi: inf, LoOpen: true}, []float64{500.5}, []float64{500}},
		{"over 500", sim.Range{Lo: 500, Hi: inf, LoOpen: true}, nil, nil},
		{"more than 1e3", sim.Range{Lo: 1000, Hi: inf, LoOpen: true}, nil, nil},
		{">= 2", sim.Range{Lo: 2, Hi: inf}, []float64{2}, []float64{1.99}},
		{"at least 2", sim.Range{Lo: 2, Hi: inf}, nil, nil},
		{"2,000 or more", sim.Range{Lo: 2000, Hi: inf}, []float64{2000}, []float64{1999}},
		{"5% to 40%", sim.Range{Lo: 0.05, Hi: 0.4}, []float64{0.05, 0.4}, []float64{0.04, math.NaN()}},
	} {
		got, err := parseRange(tc.text)
		if err != nil || got != tc.want {
			t.Errorf("parseRange(%q) = %+v, %v; want %+v", tc.text, got, err, tc.want)
			continue
		}
		for _, v := range tc.in {
			if !got.Contains(v) {
				t.Errorf("%q does not contain %g", tc.text, v)
			}
		}
		for _, v := range tc.out {
			if got.Contains(v) {
				t.Errorf("%q contains %g", tc.text, v)
			}
		}
	}
	for _, bad := range []string{"", "lots", "over", "1 to", "to 5", "5 to 1", "nan", "inf", "1e400", "--5"} {
		if r, err := parseRange(bad); err == nil {
			t.Errorf("parseRange(%q) = %+v, want an error", bad, r)
		}
	}
	// apart or not
	for _, tc := range []struct {
		a, b    string
		overlap bool
	}{
		{"under 5%", "5% to 40%", false},
		{"5% to 40%", "over 40%", false},
		{"5% to 40%", "40% or more", true},
		{"40 or fewer", "41 to 100", false},
		{"200", "200 or more", true},
		{"< 200", "over 199", true},
	} {
		a, _ := parseRange(tc.a)
		b, _ := parseRange(tc.b)
		if a.Overlaps(b) != tc.overlap || b.Overlaps(a) != tc.overlap {
			t.Errorf("%q and %q overlap: %v, want %v", tc.a, tc.b, a.Overlaps(b), tc.overlap)
		}
	}
}
