package present

import (
	"fmt"
	"strings"

	"ratelab/internal/format"
	"ratelab/sim"
)

// A claim's result in words: the mark, the numbers behind it, and the line the
// table, the UI's lesson page and the tests print.

// Mark is ✓ when the claim holds on the run, ✗ when it does not.
func Mark(r sim.ClaimResult) string {
	if r.Holds {
		return "✓"
	}
	return "✗"
}

// Evidence is the numbers behind the result, e.g. "peak_window_ratio:
// fixed-window 2 >= 2": each lane's value, compared with the number or with
// Times × another lane's, and "undefined (a ratio over 0)" where there is none.
func Evidence(cfg *sim.Config, r sim.ClaimResult) string {
	var parts []string
	for i, lane := range r.Lanes {
		if i < len(r.Undefined) && r.Undefined[i] {
			parts = append(parts, cfg.Lanes[lane].Name+" undefined (a ratio over 0)")
			continue
		}
		want := format.Number(r.Want[i])
		if r.Than >= 0 {
			want = fmt.Sprintf("%s (%s × %s's)", want, format.Number(r.Times), cfg.Lanes[r.Than].Name)
		}
		parts = append(parts, fmt.Sprintf("%s %s %s", cfg.Lanes[lane].Name, format.Number(r.Got[i]), r.Op+" "+want))
	}
	return r.Metric + ": " + strings.Join(parts, "; ")
}

// ClaimLine is the claim on one line: the mark, the sentence, the evidence, and
// the policy it was written for when the run's differs.
func ClaimLine(cfg *sim.Config, r sim.ClaimResult) string {
	s := fmt.Sprintf("%s %s (%s)", Mark(r), r.Says, Evidence(cfg, r))
	switch {
	case r.Adjusted:
		s += fmt.Sprintf(" — written for %s", r.Policy)
	case r.Unexercised:
		s += " — written for the run without the exercise's change"
	}
	return s
}
