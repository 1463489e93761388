package scenarios

import (
	"strings"
	"testing"
)

// TestLessonCitesItsClaims: a lesson with claims cites only them, a citation
// of none is refused naming it; a lesson with no claims cites none, so its
// brackets are text (a lesson written from a log names files like
// "x [a].log" and keys).
func TestLessonCitesItsClaims(t *testing.T) {
	claim := "[[scenario.claim]]\nid = \"a\"\nsays = \"s\"\nlane = \"token-bucket\"\nmetric = \"accepted\"\nop = \">=\"\nvalue = 0\n"
	lesson := func(text string) string {
		return strings.Replace(minimal, "duration = \"2s\"\n", "duration = \"2s\"\nlesson = \""+text+"\"\n", 1)
	}
	if _, err := parse(t, lesson("holds [a], see (also [a])")+claim, nil); err != nil {
		t.Errorf("a lesson citing its claim: %v", err)
	}
	if _, err := parse(t, lesson("holds [a] and [nope]")+claim, nil); err == nil || !strings.Contains(err.Error(), "the lesson cites [nope], which is not a claim") {
		t.Errorf("a citation of no claim: %v", err)
	}
	if _, err := parse(t, lesson("replays 'x [a].log' for the key [203.0.113.1]"), nil); err != nil {
		t.Errorf("a lesson with no claims: %v", err)
	}
}
