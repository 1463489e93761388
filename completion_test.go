package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/check"
	"ratelab/products/all"
)

// words of a completion: what ratelab __complete offers, without descriptions.
func (c completion) list() []string {
	var out []string
	for _, w := range c.words {
		out = append(out, w.word)
	}
	return out
}

// completeLine is completeWords on a command line written as one string, the
// word being completed last (a trailing space: an empty word).
func completeLine(line string, bash bool) completion {
	words := strings.Fields(line)
	if line == "" || strings.HasSuffix(line, " ") {
		words = append(words, "")
	}
	return completeWords(words, bash)
}

// What ratelab offers at each point of a command line: commands, flags with two
// dashes, scenario names (of the embedded catalogue, or of the --file given
// before), lane and algorithm names from the registry (each item of a list in
// turn), format values, and the shell's files or folders where a flag takes them.
func TestCompleteWords(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine.toml")
	if err := os.WriteFile(mine, []byte(`[[scenario]]
name = "my-api"
duration = "2s"
[scenario.policy]
limit = 10
[[scenario.lane]]
name = "tb-fast"
algorithm = "token-bucket"
[[scenario.lane]]
name = "slow lane"
algorithm = "gcra"
[[scenario.client]]
name = "c"
pattern = "constant"
rate = 5
`), 0o644); err != nil {
		t.Fatal(err)
	}
	everyAlgorithm := strings.Split(algorithms.Join(algorithms.Names(), ","), ",")
	shipped, err := loadCatalogue("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line string
		bash bool
		kind completionKind
		want []string // the words offered, in order; nil: none
		more bool
	}{
		{line: "ru", want: []string{"run"}},
		{line: "r", want: []string{"run", "report"}},
		{line: "sc", want: []string{"scenarios"}},
		{line: "help c", want: []string{"completion"}},
		{line: "run --sc", want: []string{"--scenario"}},
		{line: "run --scenario retry-storm --se", want: []string{"--seed", "--series"}}, // --scenario is given already
		{line: "--sc", want: []string{"--scenario"}},                                    // the UI's flags, with no command
		{line: "--v", want: []string{"--version"}},
		{line: "run --scenario bou", want: []string{"boundary-burst"}},
		{line: "run --scenario=bou", want: []string{"--scenario=boundary-burst"}},
		{line: "report --scenario retry-storm-b", want: []string{"retry-storm-backoff"}},
		{line: "run --file " + mine + " --scenario ", want: []string{"my-api"}},
		{line: "run --file=" + mine + " --scenario m", want: []string{"my-api"}},
		{line: "run --file " + filepath.Join(dir, "none.toml") + " --scenario ", want: nil}, // a file that is not there: nothing
		{line: "run --lanes ", want: everyAlgorithm, more: true},                            // no scenario yet: the registry's
		{line: "run --lanes tok", want: []string{"token-bucket"}, more: true},
		{line: "run --lanes token-bucket,gc", want: []string{"token-bucket,gcra"}, more: true},
		{line: "run --lanes=token-bucket,gc", want: []string{"--lanes=token-bucket,gcra"}, more: true},
		// with a scenario, its lanes: their algorithms, and their names that a
		// shell word holds as they are
		{line: "run --file " + mine + " --scenario my-api --lanes tb", want: []string{"tb-fast"}, more: true},
		{line: "run --file " + mine + " --scenario my-api --lanes ", want: []string{"token-bucket", "gcra", "tb-fast"}, more: true},
		{line: "run --scenario retry-storm --lanes ", want: []string{"none", "fixed-window", "sliding-counter", "token-bucket", "gcra", "leaky-bucket"}, more: true},
		{line: "run --scenario boundary-burst --lanes n", want: nil, more: true}, // it has no no-limit lane
		{line: "tune --algorithms token-bucket,sl", want: []string{"token-bucket,sliding-log", "token-bucket,sliding-counter"}, more: true},
		{line: "bench --strategies atomic,", want: []string{"atomic,multi", "atomic,watch"}, more: true},
		{line: "bench --shard-picks ", want: algorithms.ShardPicks, more: true},
		{line: "run --format ", want: []string{"table", "json"}},
		{line: "tune --format j", want: []string{"jsonl"}},
		{line: "run --config-format ", want: all.Products.Names()},
		{line: "run --config-format e", want: []string{"envoy-local", "envoy-global"}},
		{line: "tune --target ", want: targetNames()},
		{line: "tune --target e", want: []string{"envoy-local", "envoy-global"}},
		{line: "tui --config-format h", want: []string{"haproxy"}},
		{line: "run --config ", kind: kindFiles},
		{line: "tune --target n", want: []string{"nginx"}},
		{line: "tui --format c", want: []string{"clf", "combined", "common", "csv"}},
		{line: "tune --time-format unix", want: []string{"unix", "unix_ms"}},
		{line: "tune --spread ", want: []string{"none", "uniform"}},
		{line: "run --csv ", kind: kindFiles},
		{line: "run --csv=", kind: kindFiles},
		{line: "run --file ", kind: kindFiles},
		{line: "tune --trace ", kind: kindFiles},
		{line: "scenarios --write ", kind: kindFiles},
		{line: "report --out ", kind: kindDirs},
		{line: "run --plot ", kind: kindDirs},
		{line: "tui --export-dir ", kind: kindDirs},
		{line: "run --seed ", want: nil},    // a number: nothing to offer
		{line: "run --explain ", want: nil}, // a switch takes no value; run takes no arguments
		{line: "frobnicate --", want: nil},  // not a command
		{line: "scenarios --write x.toml bou", want: []string{"boundary-burst"}},
		{line: "scenarios boundary-burst b", want: []string{"bucket-bound", "bursty-user"}}, // not boundary-burst again
		{line: "completion ", want: []string{"bash", "zsh", "fish"}},
		{line: "completion bash ", want: nil},
		// bash splits --flag=value into --flag, =, value: the value alone is
		// offered, which bash puts after the "="
		{line: "run --scenario = bou", bash: true, want: []string{"boundary-burst"}},
		{line: "run --scenario = ", bash: true, want: shipped.Names()},
		{line: "run --lanes = token-bucket,gc", bash: true, want: []string{"token-bucket,gcra"}, more: true},
	} {
		got := completeLine(tc.line, tc.bash)
		if got.kind != tc.kind || !slices.Equal(got.list(), tc.want) || got.more != tc.more {
			t.Errorf("ratelab %s⇥: kind %d %q more %v, want kind %d %q more %v", tc.line, got.kind, got.list(), got.more, tc.kind, tc.want, tc.more)
		}
	}
}

// The answer a script reads: what it is on the first line, then a word a line,
// described after a tab for zsh and fish.
func TestCompleteOutput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bash", "run", "--scenario", "bou"}, "words\nboundary-burst\n"},
		{[]string{"fish", "run", "--scenario", "bou"}, "words\nboundary-burst\tBoundary burst: 200 requests in 2 ms, and no window saw a violation\n"},
		{[]string{"zsh", "run", "--lanes", "token-bucket,gc"}, "words nospace\ntoken-bucket,gcra\talgorithm\n"},
		{[]string{"bash", "run", "--csv", ""}, "files\n"},
		{[]string{"zsh", "report", "--out", ""}, "dirs\n"},
	} {
		code, out, _ := ratelab(append([]string{completeCommand}, tc.args...)...)
		if code != 0 || out != tc.want {
			t.Errorf("ratelab __complete %s: exit %d\n%q\nwant\n%q", strings.Join(tc.args, " "), code, out, tc.want)
		}
	}
	if code, _, _ := ratelab(completeCommand, "tcsh", "run"); code != 2 {
		t.Errorf("a shell ratelab does not complete in: exit %d, want 2", code)
	}
}

// ratelab completion prints a script for each shell, and refuses another.
func TestCompletionCommand(t *testing.T) {
	for _, sh := range shells {
		code, out, errOut := ratelab("completion", sh)
		if code != 0 || !strings.Contains(out, completeCommand) || errOut != "" {
			t.Errorf("ratelab completion %s: exit %d, stderr %q", sh, code, errOut)
		}
	}
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		if code, _, errOut := ratelab(args...); code != 2 || !strings.Contains(errOut, "bash, zsh, fish") {
			t.Errorf("ratelab %s: exit %d, %q", strings.Join(args, " "), code, errOut)
		}
	}
}

// Completion never blocks the shell's tab: a --file that is a FIFO is not opened
// (that waits for a writer), and a scenario whose trace is one is given up on
// after completionBudget, the registry's names offered instead.
func TestCompletionNeverBlocks(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.toml")
	trace := filepath.Join(dir, "log.csv")
	for _, f := range []string{fifo, trace} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mine := filepath.Join(dir, "mine.toml")
	check.Setup(t, os.WriteFile(mine, []byte("[[scenario]]\nname = \"s\"\n[scenario.policy]\nlimit = 5\n[[scenario.lane]]\nalgorithm = \"gcra\"\n[[scenario.client]]\nname = \"logs\"\npattern = \"trace\"\nfile = \"log.csv\"\n"), 0o644))
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"run --file " + fifo + " --scenario ", nil},
		{"run --file " + mine + " --scenario s --lanes ", strings.Split(algorithms.Join(algorithms.Names(), ","), ",")},
	} {
		done := make(chan completion, 1)
		go func() { done <- completeLine(tc.line, false) }()
		select {
		case c := <-done:
			if got := c.list(); !slices.Equal(got, tc.want) {
				t.Errorf("%q: %v, want %v", tc.line, got, tc.want)
			}
		case <-time.After(4 * completionBudget):
			t.Fatalf("%q: no answer after %s: completion blocked on a FIFO", tc.line, 4*completionBudget)
		}
	}
}
