package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/products/all"
	"ratelab/scenarios"
	"ratelab/sim"
	"ratelab/traces"
)

// completeCommand is the hidden command the completion scripts call:
//
//	ratelab __complete SHELL WORD…
//
// with the words of the command line after "ratelab", up to and including the
// word being completed (empty when the cursor is after a space). It prints what
// may come there (see completion.write). Everything a script needs to know —
// the commands, their flags, which flags take which values, the scenario and
// algorithm names — is answered here, from the commands' own flag sets and the
// registries, so the three scripts are thin and never out of date.
const completeCommand = "__complete"

// complete answers a __complete call.
func complete(args []string, stdout io.Writer) int {
	if len(args) == 0 || !slices.Contains(shells, args[0]) {
		return 2
	}
	c := completeWords(args[1:], args[0] == "bash")
	c.write(stdout, args[0] != "bash")
	return 0
}

// completion is what may come at the word being completed: words to offer, or
// the shell's own file or folder names.
type completion struct {
	kind  completionKind
	words []candidate
	// more says a word offered is a list item after which another may follow
	// (--lanes a,b): the shell adds no space after it.
	more bool
}

type completionKind int

const (
	kindWords completionKind = iota
	kindFiles
	kindDirs
)

// candidate is a word to offer and what it is, for the shells that show it.
type candidate struct{ word, about string }

// write prints the completion for a script: a first line saying what it is
// ("words", "words nospace", "files" or "dirs"), then a word a line, with its
// description after a tab when about (zsh and fish show it; bash cannot).
func (c completion) write(w io.Writer, about bool) {
	switch c.kind {
	case kindFiles:
		fmt.Fprintln(w, "files")
		return
	case kindDirs:
		fmt.Fprintln(w, "dirs")
		return
	}
	if c.more {
		fmt.Fprintln(w, "words nospace")
	} else {
		fmt.Fprintln(w, "words")
	}
	for _, cand := range c.words {
		if about && cand.about != "" {
			fmt.Fprintf(w, "%s\t%s\n", cand.word, oneLine(cand.about))
		} else {
			fmt.Fprintln(w, cand.word)
		}
	}
}

// oneLine is s's first sentence on one line, at most 70 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > 70 {
		s = string(r[:69]) + "…"
	}
	return s
}

// completeWords is what may come at the last of words, the command line after
// "ratelab". bash splits --flag=value into three words (--flag, =, value); with
// bashWords they are joined back, and a value is offered without the "--flag="
// before it, which bash keeps as words of their own.
func completeWords(words []string, bashWords bool) completion {
	words, split := joinEquals(words)
	if len(words) == 0 {
		words = []string{""}
	}
	cur := words[len(words)-1]
	if len(words) == 1 && !strings.HasPrefix(cur, "-") {
		return offer(cur, commandCandidates())
	}
	name, before := "tui", words[:len(words)-1]
	if !strings.HasPrefix(words[0], "-") {
		name, before = words[0], words[1:len(words)-1]
	}
	if name == "help" {
		if len(before) == 0 {
			return offer(cur, commandCandidates())
		}
		return completion{}
	}
	h, err := helpOf(name)
	if err != nil {
		return completion{} // not a command: nothing to offer
	}
	line := readLine(h.flags, before)
	if line.pending != nil { // the word is the value of the flag before it
		return line.complete(name, line.pending, cur, "")
	}
	if flagName, value, ok := strings.Cut(cur, "="); ok && strings.HasPrefix(flagName, "-") {
		f := h.flags.Lookup(strings.TrimLeft(flagName, "-"))
		if f == nil || isSwitch(f) {
			return completion{}
		}
		prefix := flagName + "="
		if bashWords && split {
			prefix = ""
		}
		return line.complete(name, f, value, prefix)
	}
	if strings.HasPrefix(cur, "-") {
		var cands []candidate
		if len(words) == 1 { // ratelab --…: the UI's flags, and these
			cands = append(cands, candidate{"--help", "what ratelab does and its commands"}, candidate{"--version", "the version, the commit and whether its tree was modified"})
		}
		for _, f := range helpFlags(h.flags) {
			if !line.given[f.name] {
				cands = append(cands, candidate{"--" + f.name, f.usage})
			}
		}
		return offer(cur, cands)
	}
	switch name { // the commands that take arguments
	case "scenarios":
		c := line.catalogue()
		if c == nil {
			return completion{}
		}
		var cands []candidate
		for _, s := range c.Scenarios {
			if !slices.Contains(line.args, s.Name) {
				cands = append(cands, candidate{s.Name, s.Title})
			}
		}
		return offer(cur, cands)
	case "completion":
		if len(line.args) == 0 {
			return offer(cur, plain(shells))
		}
	}
	return completion{}
}

// joinEquals joins bash's --flag = value (three words) back into --flag=value,
// and says whether the last word was so joined.
func joinEquals(words []string) ([]string, bool) {
	var out []string
	split := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "=" && len(out) > 0 && strings.HasPrefix(out[len(out)-1], "-") && !strings.Contains(out[len(out)-1], "=") {
			out[len(out)-1] += "="
			split = true
			if i+1 < len(words) {
				out[len(out)-1] += words[i+1]
				i++
			}
			continue
		}
		out = append(out, w)
		split = false
	}
	return out, split
}

// commandLine is what the words before the one being completed say: the flags
// given (and their values), the arguments, and a flag still waiting for its value.
type commandLine struct {
	given   map[string]bool
	values  map[string]string
	args    []string
	pending *flag.Flag
}

// readLine reads words as fs would, without failing on a flag it does not know.
func readLine(fs *flag.FlagSet, words []string) commandLine {
	l := commandLine{given: map[string]bool{}, values: map[string]string{}}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			l.args = append(l.args, words[i+1:]...)
			break
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			l.args = append(l.args, w)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		l.given[name] = true
		switch {
		case hasValue:
			l.values[name] = value
		case isSwitch(f):
		case i+1 < len(words):
			l.values[name] = words[i+1]
			i++
		default:
			l.pending = f
		}
	}
	return l
}

// complete is what may follow flag f of command cmd, for the word cur, each word
// offered after prefix ("--lanes=" for the --flag=value form).
func (l commandLine) complete(cmd string, f *flag.Flag, cur, prefix string) completion {
	value, _ := flag.UnquoteUsage(f)
	switch {
	case f.Name == "scenario":
		c := l.catalogue()
		if c == nil {
			return completion{}
		}
		var cands []candidate
		for _, s := range c.Scenarios {
			cands = append(cands, candidate{s.Name, s.Title})
		}
		return offerAfter(prefix, cur, cands)
	case f.Name == "lanes":
		return l.list(prefix, cur, l.laneNames())
	case f.Name == "algorithms":
		return l.list(prefix, cur, plain(algorithms.Limiters()))
	case f.Name == "strategies":
		return l.list(prefix, cur, plain(algorithms.Strategies))
	case f.Name == "shard-picks":
		return l.list(prefix, cur, plain(algorithms.ShardPicks))
	case f.Name == "format" && cmd == "run":
		return offerAfter(prefix, cur, plain(runFormats))
	case f.Name == "format":
		return offerAfter(prefix, cur, plain(traces.FormatNames()))
	case f.Name == "config-format":
		return offerAfter(prefix, cur, plain(all.Products.Names()))
	case f.Name == "target":
		return offerAfter(prefix, cur, plain(targetNames()))
	case f.Name == "time-format":
		return offerAfter(prefix, cur, plain(traces.TimeFormatNames()))
	case f.Name == "spread":
		return offerAfter(prefix, cur, plain(traces.SpreadNames()))
	case value == "DIR":
		return completion{kind: kindDirs}
	case value == "FILE" || value == "PATH":
		return completion{kind: kindFiles}
	}
	return completion{}
}

// completionBudget is how long completing one word may spend reading the files
// a --file names (a scenario file, the traces and configurations it reads): a
// shell's tab must not hang on a FIFO, a slow disk or a long log, so past it
// what those files would offer is not offered. The embedded catalogue, which
// cannot block, is read without it.
const completionBudget = 2 * time.Second

// within runs f and returns what it returns, or false when it has not returned
// within d: f goes on in the background, and ends with the process.
func within[T any](d time.Duration, f func() T) (T, bool) {
	done := make(chan T, 1)
	go func() { done <- f() }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case v := <-done:
		return v, true
	case <-timer.C:
		var zero T
		return zero, false
	}
}

// catalogue is the scenarios the line names: the --file given before, or the
// embedded catalogue; nil when the file cannot be read, is not a regular file
// (opening a FIFO would wait for a writer), or takes longer than
// completionBudget to read.
func (l commandLine) catalogue() *scenarios.Catalogue {
	file := l.values["file"]
	if rest, ok := strings.CutPrefix(file, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			file = filepath.Join(home, rest)
		}
	}
	load := func() *scenarios.Catalogue {
		c, err := loadCatalogue(file)
		if err != nil {
			return nil
		}
		return c
	}
	if file == "" {
		return load()
	}
	if info, err := os.Stat(file); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	c, _ := within(completionBudget, load)
	return c
}

// laneNames is what --lanes takes: with a scenario given before, its lanes'
// algorithms and the names of its lanes that a shell word holds as they are (no
// spaces, commas or quotes); otherwise every algorithm's name (the registry's).
func (l commandLine) laneNames() []candidate {
	var cands []candidate
	add := func(word, about string) {
		if !slices.ContainsFunc(cands, func(c candidate) bool { return c.word == word }) {
			cands = append(cands, candidate{word, about})
		}
	}
	if c := l.catalogue(); c != nil && l.values["scenario"] != "" {
		compile := func() *sim.Config {
			cfg, _ := c.Compile(l.values["scenario"], scenarios.Overrides{})
			return cfg
		}
		var cfg *sim.Config
		ok := true
		if l.values["file"] != "" { // a user's file: it reads the scenario's traces, within the budget
			cfg, ok = within(completionBudget, compile)
		} else {
			cfg = compile()
		}
		if ok && cfg != nil {
			for _, lane := range cfg.Lanes {
				add(string(lane.Algorithm), "algorithm")
			}
			for _, lane := range cfg.Lanes {
				if !strings.ContainsAny(lane.Name, " \t,'\"\\$`") {
					add(lane.Name, "lane of "+cfg.Name)
				}
			}
			return cands
		}
	}
	for _, name := range algorithms.Names() {
		add(string(name), "algorithm")
	}
	return cands
}

// list completes the last item of a comma-separated list: the items already
// listed stay, and are not offered again.
func (l commandLine) list(prefix, cur string, items []candidate) completion {
	done, last := "", cur
	if i := strings.LastIndexByte(cur, ','); i >= 0 {
		done, last = cur[:i+1], cur[i+1:]
	}
	listed := strings.Split(done, ",")
	var cands []candidate
	for _, it := range items {
		if !slices.Contains(listed, it.word) && strings.HasPrefix(it.word, last) {
			cands = append(cands, candidate{prefix + done + it.word, it.about})
		}
	}
	return completion{words: cands, more: true}
}

// offer is the candidates that start with cur.
func offer(cur string, cands []candidate) completion {
	return offerAfter("", cur, cands)
}

// offerAfter is the candidates that start with cur, each written after prefix.
func offerAfter(prefix, cur string, cands []candidate) completion {
	var out []candidate
	for _, c := range cands {
		if strings.HasPrefix(c.word, cur) {
			out = append(out, candidate{prefix + c.word, c.about})
		}
	}
	return completion{words: out}
}

// commandCandidates is every command, and help.
func commandCandidates() []candidate {
	var cands []candidate
	for _, c := range commandList() {
		cands = append(cands, candidate{c.name, c.summary})
	}
	return append(cands, candidate{"help", "a command's help"})
}

// plain is names as candidates without descriptions.
func plain[S ~string](names []S) []candidate {
	var cands []candidate
	for _, n := range names {
		cands = append(cands, candidate{string(n), ""})
	}
	return cands
}
