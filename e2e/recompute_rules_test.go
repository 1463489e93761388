package e2e

import (
	"fmt"
	"strconv"
)

// rulesFromCSV is what the request CSV's rule columns say of a lane's rules
// (JSON rules): each rule's decided refusals by name, and the rules that
// refused in all, the decisive one and also_refusing's others. Which others
// refused is a count, not names: the tallies' fires are recomputed as a sum.
type rulesFromCSV struct {
	names   []string
	decided map[string]int64
	refused int64
}

// row counts a row's rule columns.
func (r *rulesFromCSV) row(rec map[string]string) error {
	if rec["rule"] == "" {
		if rec["also_refusing"] != "" {
			return fmt.Errorf("also_refusing %q without a rule", rec["also_refusing"])
		}
		return nil
	}
	also, err := strconv.ParseInt(rec["also_refusing"], 10, 64)
	if err != nil {
		return fmt.Errorf("also_refusing: %v", err)
	}
	if r.decided == nil {
		r.decided = map[string]int64{}
	}
	r.decided[rec["rule"]]++
	r.refused += 1 + also
	return nil
}

// sameRules compares the CSV's rules with the JSON's: every rule in the lane's
// order, its decided refusals, and the refused summed over the rules.
func sameRules(r *rulesFromCSV, fromJSON any) bool {
	list, ok := fromJSON.([]any)
	if !ok || len(list) != len(r.names) {
		return false
	}
	var refused int64
	for i, v := range list {
		m, _ := v.(map[string]any)
		d, _ := m["decides"].(float64)
		f, _ := m["fires"].(float64)
		if m["rule"] != r.names[i] || int64(d) != r.decided[r.names[i]] {
			return false
		}
		refused += int64(f)
	}
	return refused == r.refused
}
