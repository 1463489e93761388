package e2e

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"charm.land/bubbles/v2/key"

	"ratelab/internal/check"
	"ratelab/scenarios"
	"ratelab/ui"
)

// The README is a tour and docs/ the reference (DESIGN convention 13); these tests
// keep both true: the examples run, the references name everything the code has,
// the links lead somewhere. Other pages' facts are checked where the code is:
// TestReadmeChart (report_test.go), TestNotInCSVIsOnlyWhatTheJSONHas
// (recompute_test.go).

// page is a page of the repository, by its path from the repository's root.
func page(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// docSection is the section of the page at path under heading (a whole line,
// "## CSV"), up to the next heading of the same level or higher; lines in code
// blocks are not headings.
func docSection(t *testing.T, path, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(page(t, path), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no section %q", path, heading)
	}
	level := strings.IndexByte(heading, ' ')
	var b strings.Builder
	fenced := false
	for _, line := range strings.SplitAfter(rest, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if n := headingLevel(line); !fenced && n > 0 && n <= level {
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// headingLevel is the number of #s of a Markdown heading line, 0 for any other.
func headingLevel(line string) int {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n >= len(line) || line[n] != ' ' {
		return 0
	}
	return n
}

// The README stays a tour: at most 200 lines, the two set-up commands, and each
// main job in the tour (the reference is in docs/).
func TestReadmeIsATour(t *testing.T) {
	readme := page(t, "README.md")
	if n := strings.Count(readme, "\n"); n > 200 {
		t.Errorf("the README has %d lines; at most 200 (the reference goes to docs/)", n)
	}
	setup := docSection(t, "README.md", "## Set-up")
	_, block, _ := strings.Cut(setup, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	var commands []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		commands = append(commands, strings.TrimSpace(cmd))
	}
	if !reflect.DeepEqual(commands, []string{"go run .", "go test ./..."}) {
		t.Errorf("the set-up shows %q; want the two commands go run . and go test ./...", commands)
	}
	tour := docSection(t, "README.md", "## A five-minute tour")
	for _, job := range []string{"**Watch.**", "**Run.**", "**Report.**", "**Tune.**", "**Redis.**"} {
		if !strings.Contains(tour, job) {
			t.Errorf("the tour has no %s", job)
		}
	}
}

// pending are pages the docs link to that are being written elsewhere, with
// where; once a page exists, its entry must go (the test says so).
var pending = map[string]string{}

// mdLink is a Markdown link or image: its target is the first group.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every relative link of the README and of docs/ leads to a file of the
// repository, and a #fragment to a heading of that page.
func TestDocsLinksResolve(t *testing.T) {
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil || len(pages) < 8 {
		t.Fatalf("docs/ has %d pages (%v)", len(pages), err)
	}
	pages = append([]string{"../README.md"}, pages...)
	for path, why := range pending {
		if _, err := os.Stat(filepath.Join("..", path)); err == nil {
			t.Errorf("%s exists now: remove it from pending (%s)", path, why)
		}
	}
	for _, p := range pages {
		from, _ := filepath.Rel("..", p)
		data, _ := os.ReadFile(p)
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			path := from
			if file != "" {
				path = filepath.Join(filepath.Dir(from), file)
			}
			if _, ok := pending[path]; ok {
				continue
			}
			content, err := os.ReadFile(filepath.Join("..", path))
			if err != nil {
				t.Errorf("%s links to %s: %v", from, target, err)
				continue
			}
			if fragment != "" && !hasAnchor(string(content), fragment) {
				t.Errorf("%s links to %s: %s has no heading whose anchor is #%s", from, target, path, fragment)
			}
		}
	}
}

// hasAnchor says a heading of the Markdown page has the anchor GitHub gives it:
// lower case, spaces as dashes, punctuation but dashes and underscores dropped.
func hasAnchor(markdown, anchor string) bool {
	fenced := false
	for _, line := range strings.Split(markdown, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		n := headingLevel(line)
		if fenced || n == 0 {
			continue
		}
		var slug strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(line[n:])) {
			switch {
			case r == ' ':
				slug.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				slug.WriteRune(r)
			}
		}
		if slug.String() == anchor {
			return true
		}
	}
	return false
}

// The README's Commands table has a row for every command ratelab help lists.
func TestReadmeNamesEveryCommand(t *testing.T) {
	t.Parallel()
	code, out, errOut := ratelab(t, "help")
	if code != 0 {
		t.Fatalf("ratelab help: exit %d: %s", code, errOut)
	}
	table := docSection(t, "README.md", "## Commands")
	_, commands, _ := strings.Cut(out, "\nCommands:\n")
	commands, _, _ = strings.Cut(commands, "\n\n")
	listed := regexp.MustCompile(`(?m)^  (?:\[(\w+)\]|(\w+))  `).FindAllStringSubmatch(commands, -1)
	if len(listed) < 7 {
		t.Fatalf("ratelab help lists %d commands:\n%s", len(listed), out)
	}
	for _, m := range listed {
		name := m[1] + m[2]
		if !strings.Contains(table, "`ratelab "+name) {
			t.Errorf("the README's commands table has no ratelab %s", name)
		}
	}
}

// The tour's excerpt of ratelab run is what the command prints: every line but
// the … that stands for the lines left out.
func TestReadmeRunExcerpt(t *testing.T) {
	t.Parallel()
	const command = "$ ratelab run --scenario boundary-burst\n"
	_, excerpt, ok := strings.Cut(docSection(t, "README.md", "## A five-minute tour"), command)
	if !ok {
		t.Fatalf("the tour does not show %q", command)
	}
	excerpt, _, _ = strings.Cut(excerpt, "```")
	code, out, errOut := ratelab(t, "run", "--scenario", "boundary-burst")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		lines[line] = true
	}
	shown := 0
	for _, line := range strings.Split(strings.TrimSuffix(excerpt, "\n"), "\n") {
		if line == "…" {
			continue
		}
		shown++
		if !lines[line] {
			t.Errorf("the README shows a line the command does not print:\n%s", line)
		}
	}
	if shown < 3 {
		t.Errorf("the excerpt shows %d lines", shown)
	}
}

// Every key the UI answers to is in docs/ui.md, in backticks, as its help shows it.
func TestDocsNameEveryKey(t *testing.T) {
	doc := page(t, "docs/ui.md")
	keys := reflect.ValueOf(ui.DefaultKeyMap())
	for i := 0; i < keys.NumField(); i++ {
		help := keys.Field(i).Interface().(interface{ Help() key.Help }).Help()
		for _, k := range strings.Fields(help.Key) {
			if !strings.Contains(doc, "`"+k+"`") {
				t.Errorf("docs/ui.md does not name %s (%s: %s)", k, keys.Type().Field(i).Name, help.Desc)
			}
		}
	}
}

// The scenario file of docs/scenarios.md runs as written.
func TestDocsScenarioFileRuns(t *testing.T) {
	t.Parallel()
	section := docSection(t, "docs/scenarios.md", "## Scenario files")
	_, rest, _ := strings.Cut(section, "```toml\n")
	example, _, _ := strings.Cut(rest, "```")
	path := filepath.Join(t.TempDir(), "my.toml")
	check.Setup(t, os.WriteFile(path, []byte(example), 0o644))
	if code, out, errOut := ratelab(t, "run", "--file", path, "--scenario", "my-api"); code != 0 {
		t.Fatalf("the example of docs/scenarios.md: exit %d\n%s%s", code, out, errOut)
	}
}

// Every key of the scenario schema is in docs/scenarios.md's reference.
func TestDocsDocumentEveryScenarioKey(t *testing.T) {
	section := docSection(t, "docs/scenarios.md", "## Scenario files")
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if f.Anonymous {
				walk(f.Type)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if name == "" {
				continue
			}
			if name != "scenario" && !regexp.MustCompile(`\b`+regexp.QuoteMeta(name)+`\b`).MatchString(section) {
				t.Errorf("docs/scenarios.md's reference does not mention %s (in %s)", name, typ.Name())
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(scenarios.File{}))
	if len(seen) < 8 {
		t.Errorf("walked only %d tables of the schema", len(seen))
	}
}

// docs/scenarios.md has a row for every shipped scenario, and for no other.
func TestDocsNameEveryScenario(t *testing.T) {
	table := docSection(t, "docs/scenarios.md", "## The shipped scenarios")
	rows := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\|").FindAllStringSubmatch(table, -1)
	var documented []string
	for _, r := range rows {
		documented = append(documented, r[1])
	}
	if names := catalogue(t).Names(); !reflect.DeepEqual(documented, names) {
		t.Errorf("docs/scenarios.md lists %v; the catalogue has %v, in this order", documented, names)
	}
}
