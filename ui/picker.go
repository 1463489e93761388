package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/list"
	tea "charm.land/bubbletea/v2"

	"ratelab/scenarios"
)

// picker is the scenario picker: the catalogue as a list, filterable with /.
type picker struct {
	list list.Model
	open bool
}

// scenarioItem is one scenario in the picker.
type scenarioItem struct {
	index int
	s     scenarios.Scenario
	// answered says every question of the scenario's lesson was answered: it
	// hides nothing any more
	answered bool
}

func (i scenarioItem) Title() string { return i.s.Name }

// Description is the scenario's part of the course and title, then the start
// of its lesson; for a lesson that asks questions not all answered yet, the
// title's numbers hidden and no lesson, which would give the answers away
// (spoiler.go).
func (i scenarioItem) Description() string {
	title := strings.TrimSpace(i.s.Title)
	asks := len(i.s.Questions) > 0 && !i.answered
	if asks {
		title = numbers.ReplaceAllString(title, "…") // the title's numbers, not the part's
	}
	if part := i.s.Part.Heading(); part != "" {
		title = part + " · " + title
	}
	if asks {
		return title + " · asks you to predict: open it to see"
	}
	return title + " · " + strings.Join(strings.Fields(i.s.Lesson), " ")
}

// FilterValue is what the filter matches: the name and the title (the lessons are
// long enough to match any few letters).
func (i scenarioItem) FilterValue() string { return i.s.Name + " " + i.s.Title }

// newPicker lists the catalogue's scenarios.
func newPicker(c *scenarios.Catalogue, isDark bool) picker {
	items := make([]list.Item, len(c.Scenarios))
	for i, s := range c.Scenarios {
		items[i] = scenarioItem{index: i, s: s}
	}
	l := list.New(items, list.NewDefaultDelegate(), 80, 20)
	l.Title = "Scenarios — enter to open, / to filter, esc to go back"
	// q (and v, which the list also binds to quit) are letters for the filter
	// here; ctrl+c still quits (the model's ForceQuit, before the picker)
	l.DisableQuitKeybindings()
	l.Filter = substringFilter
	l.SetShowStatusBar(true)
	// The list's own help is off: its full help (?) makes the list taller than the
	// size it was given, and the title already says which keys do what.
	l.SetShowHelp(false)
	l.KeyMap.ShowFullHelp.SetEnabled(false)
	l.KeyMap.CloseFullHelp.SetEnabled(false)
	p := picker{list: l}
	p.restyle(isDark)
	return p
}

// answeredAll shows scenario i's item as one whose questions are all answered.
// Items are in catalogue order (newPicker), so i is the item's place too.
func (p *picker) answeredAll(i int) {
	if item, ok := p.list.Items()[i].(scenarioItem); ok && !item.answered {
		item.answered = true
		p.list.SetItem(i, item)
	}
}

// restyle applies the background's styles.
func (p *picker) restyle(isDark bool) {
	p.list.Styles = list.DefaultStyles(isDark)
	d := list.NewDefaultDelegate()
	d.Styles = list.NewDefaultItemStyles(isDark)
	p.list.SetDelegate(d)
}

// setSize gives the picker the screen below the header.
func (p *picker) setSize(w, h int) { p.list.SetSize(w, max(h, 1)) }

// show opens the picker on scenario index, unfiltered.
func (p *picker) show(index int) {
	p.open = true
	p.list.ResetFilter()
	p.list.Select(index)
}

// update handles a message while the picker is open. It returns the scenario
// chosen with enter (-1 for none); esc closes the picker unless a filter is being
// typed or applied, where it clears the filter first.
func (p *picker) update(msg tea.Msg, keys KeyMap) (chosen int, cmd tea.Cmd) {
	typing := p.list.FilterState() == list.Filtering
	if k, ok := msg.(tea.KeyPressMsg); ok && !typing {
		switch {
		case key.Matches(k, keys.PickBack) && p.list.FilterState() != list.FilterApplied:
			p.open = false
			return -1, nil
		case key.Matches(k, keys.PickOpen):
			if it, ok := p.list.SelectedItem().(scenarioItem); ok {
				p.open = false
				return it.index, nil
			}
		}
	}
	p.list, cmd = p.list.Update(msg)
	return -1, cmd
}

// view is the list.
func (p *picker) view() string { return p.list.View() }

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
