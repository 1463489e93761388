package ui

import (
	"strings"

	"charm.land/bubbles/v2/list"

	"ratelab/scenarios"
)

// scenarioItem is one scenario in the picker.
type scenarioItem struct {
	index int
	s     scenarios.Scenario
}

func (i scenarioItem) Title() string { return i.s.Name }

// Description is the scenario's title, then the start of its lesson.
func (i scenarioItem) Description() string {
	return strings.TrimSpace(i.s.Title) + " · " + strings.Join(strings.Fields(i.s.Lesson), " ")
}

// FilterValue is what the filter matches: the name and the title (the lessons are
// long enough to match any few letters).
func (i scenarioItem) FilterValue() string { return i.s.Name + " " + i.s.Title }

// newPicker lists the catalogue's scenarios, filterable with /.
func newPicker(c *scenarios.Catalogue, st Styles, isDark bool) list.Model {
	items := make([]list.Item, len(c.Scenarios))
	for i, s := range c.Scenarios {
		items[i] = scenarioItem{index: i, s: s}
	}
	l := list.New(items, list.NewDefaultDelegate(), 80, 20)
	l.Title = "Scenarios — enter to open, / to filter, esc to go back"
	l.KeyMap.Quit.SetEnabled(false) // q is a letter for the filter here; ctrl+c still quits
	l.Filter = substringFilter
	l.SetShowStatusBar(true)
	// The list's own help is off: its full help (?) makes the list taller than the
	// size it was given, and the title already says which keys do what.
	l.SetShowHelp(false)
	l.KeyMap.ShowFullHelp.SetEnabled(false)
	l.KeyMap.CloseFullHelp.SetEnabled(false)
	return restylePicker(l, isDark)
}

// restylePicker applies the background's styles to the picker.
func restylePicker(l list.Model, isDark bool) list.Model {
	l.Styles = list.DefaultStyles(isDark)
	d := list.NewDefaultDelegate()
	d.Styles = list.NewDefaultItemStyles(isDark)
	l.SetDelegate(d)
	return l
}

// substringFilter keeps the items whose name or title contains the term (any case),
// in catalogue order: a fuzzy match would find "herd" in most titles.
func substringFilter(term string, targets []string) []list.Rank {
	term = strings.ToLower(term)
	var ranks []list.Rank
	for i, t := range targets {
		at := strings.Index(strings.ToLower(t), term)
		if at < 0 {
			continue
		}
		matched := make([]int, 0, len(term))
		for j := range len([]rune(term)) {
			matched = append(matched, len([]rune(t[:at]))+j)
		}
		ranks = append(ranks, list.Rank{Index: i, MatchedIndexes: matched})
	}
	return ranks
}
