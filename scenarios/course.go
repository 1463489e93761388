package scenarios

import (
	"fmt"
	"strings"
)

// The catalogue is a course: each lesson names its part (Scenario.Part), the
// file lists them in the order to take them, ratelab list shows each one's
// part, and the UI's n goes on to the next lesson. A lesson may end with an
// exercise (exercise.go).

// Part is a part of the course: "basics", "windows-and-buckets",
// "queues-and-meters", "retries-and-herds", "distributed-and-stores",
// "products" or "your-traffic".
type Part struct{ choice[int] }

var parts = []word[int]{
	{name: "basics", value: 1, gloss: "what a limit promises"},
	{name: "windows-and-buckets", value: 2, gloss: "counting against refilling"},
	{name: "queues-and-meters", value: 3, gloss: "waiting against refusing, several limits at once"},
	{name: "retries-and-herds", value: 4, gloss: "what clients do back"},
	{name: "distributed-and-stores", value: 5, gloss: "many nodes, clocks and a store"},
	{name: "products", value: 6, gloss: "the limiters people deploy"},
	{name: "your-traffic", value: 7, gloss: "logs and traces"},
}

func (p *Part) UnmarshalText(b []byte) error { return p.read(b, "part", parts) }

// Level is the part's place in the course, 1 to 7; 0 when the file gives none.
func (p Part) Level() int { return p.Value() }

// Heading is the part as the course lists it: "2 windows and buckets".
func (p Part) Heading() string {
	if !p.Set() {
		return ""
	}
	return fmt.Sprintf("%d %s", p.Level(), strings.ReplaceAll(p.String(), "-", " "))
}
