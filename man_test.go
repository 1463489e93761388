package main

import (
	"flag"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// manFile is the man page kept in the repository, for man -l and packagers.
const manFile = "docs/ratelab.1"

// The man page in the repository is what ratelab man prints: regenerate it with
// go run . man > docs/ratelab.1 (or go test -run TestManPageIsCurrent -update).
func TestManPageIsCurrent(t *testing.T) {
	code, page, errOut := ratelab("man")
	if code != 0 {
		t.Fatalf("ratelab man: exit %d: %s", code, errOut)
	}
	if *update {
		if err := os.WriteFile(manFile, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kept, err := os.ReadFile(manFile)
	if err != nil {
		t.Fatalf("%v (go run . man > %s makes it)", err, manFile)
	}
	if string(kept) != page {
		t.Errorf("%s is not what ratelab man prints: a command's help changed; run go run . man > %s", manFile, manFile)
	}
}

// The man page holds every command, each with every flag its flag set defines
// and that flag's description, escaped for roff.
func TestManPageHasEveryCommandAndFlag(t *testing.T) {
	page, err := manPage()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commandList() {
		section, ok := manSection(page, c.name)
		if !ok {
			t.Errorf("the man page has no section for ratelab %s", c.name)
			continue
		}
		h, err := helpOf(c.name)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		h.flags.VisitAll(func(f *flag.Flag) {
			n++
			_, usage := flag.UnquoteUsage(f)
			if !strings.Contains(section, `\fB`+roff("--"+f.Name)+`\fR`) {
				t.Errorf("ratelab %s: the man page does not list --%s", c.name, f.Name)
			}
			if !strings.Contains(section, roff(usage)) {
				t.Errorf("ratelab %s: the man page does not describe --%s as its help does (%q)", c.name, f.Name, usage)
			}
		})
		if c.name == "run" && n < 10 {
			t.Errorf("ratelab run has only %d flags in the man page", n)
		}
	}
}

// manSection is the man page's part about command name, up to the next.
func manSection(page, name string) (string, bool) {
	_, rest, ok := strings.Cut(page, "\n.SS \"ratelab "+name+"\"\n")
	if !ok {
		return "", false
	}
	section, _, _ := strings.Cut(rest, "\n.SS ")
	section, _, _ = strings.Cut(section, "\n.SH ")
	return section, true
}

// Rendered by groff, the man page says what each command's --help says: the
// usage lines, the description, and every flag with its description and
// default, word for word (spacing aside).
func TestManPageRendersTheHelp(t *testing.T) {
	groff, err := exec.LookPath("groff")
	if err != nil {
		if os.Getenv("RATELAB_CI") == "1" {
			t.Fatal("groff is not installed (Debian: groff-base); CI must render the man page")
		}
		t.Skip("groff is not installed (Debian: groff-base): the man page is not rendered")
	}
	cmd := exec.Command(groff, "-man", "-Tutf8", "-P-cbou", "-ww", manFile)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("groff %s: %v: %s", manFile, err, stderr.String())
	}
	rendered := spaced(string(out))
	for _, c := range commandList() {
		code, help, errOut := ratelab(c.name, "--help")
		if code != 0 || errOut != "" {
			t.Fatalf("ratelab %s --help: exit %d, stderr %q", c.name, code, errOut)
		}
		// the help's paragraphs, and each flag's entry, appear as they read
		usage, flags, _ := strings.Cut(help, "\nFlags:\n")
		for _, p := range strings.Split(usage, "\n\n") {
			if !strings.Contains(rendered, spaced(p)) {
				t.Errorf("ratelab %s: the rendered man page does not hold this part of its help:\n%s", c.name, p)
			}
		}
		for _, entry := range regexp.MustCompile(`(?m)^  --`).Split(flags, -1)[1:] {
			if !strings.Contains(rendered, spaced("--"+entry)) {
				t.Errorf("ratelab %s: the rendered man page does not hold this flag as its help has it:\n--%s", c.name, entry)
			}
		}
	}
}

// spaced is s with every run of white space one space.
func spaced(s string) string { return strings.Join(strings.Fields(s), " ") }

// Every command's --help goes to standard output, exit 0, and writes its flags
// --name (two dashes), as the usage lines and the documentation do, never -name.
func TestHelpWritesFlagsWithTwoDashes(t *testing.T) {
	oneDash := regexp.MustCompile(`(?m)^\s+-[a-z]`)
	for _, c := range commandList() {
		code, out, errOut := ratelab(c.name, "--help")
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "Usage: ratelab ") {
			t.Errorf("ratelab %s --help: exit %d, stdout %.40q, stderr %q", c.name, code, out, errOut)
		}
		if m := oneDash.FindString(out); m != "" {
			t.Errorf("ratelab %s --help writes a flag with one dash: %q", c.name, m)
		}
		h, err := helpOf(c.name)
		if err != nil {
			t.Fatal(err)
		}
		h.flags.VisitAll(func(f *flag.Flag) {
			if !regexp.MustCompile(`(?m)^  --` + regexp.QuoteMeta(f.Name) + `( |$)`).MatchString(out) {
				t.Errorf("ratelab %s --help does not list --%s", c.name, f.Name)
			}
		})
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		if code, out, _ := ratelab(args...); code != 0 || !strings.Contains(out, "Commands:") {
			t.Errorf("ratelab %s: exit %d:\n%s", strings.Join(args, " "), code, out)
		}
	}
	if code, out, _ := ratelab("help", "run"); code != 0 || !strings.HasPrefix(out, "Usage: ratelab run ") {
		t.Errorf("ratelab help run: exit %d:\n%s", code, out)
	}
	// a command help does not know is named, with the nearest or the list
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "rn"}, `ratelab: help: unknown command "rn"; did you mean "run"?`},
		{[]string{"help", "nosuch"}, `ratelab: help: unknown command "nosuch"; the commands are tui, run,`},
		{[]string{"help", "run", "tune"}, "ratelab: help: give one command, one of tui, run,"},
	} {
		if code, out, errOut := ratelab(tc.args...); code != 2 || out != "" || !strings.HasPrefix(errOut, tc.want) {
			t.Errorf("ratelab %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, out, errOut, tc.want)
		}
	}
}

// Every command is in the overview (ratelab --help), by name.
func TestOverviewListsEveryCommand(t *testing.T) {
	for _, c := range commandList() {
		if !regexp.MustCompile(`(?m)^  \[?` + c.name + `\]? +\S`).MatchString(overview()) {
			t.Errorf("the overview does not list %s:\n%s", c.name, overview())
		}
	}
}
