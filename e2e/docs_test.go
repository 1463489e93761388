package e2e

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"ratelab/scenarios"
)

// readmeSection is the README's section under heading, up to the next "## ".
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("the README has no section %q", heading)
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	return section
}

// The README's scenario file runs as written.
func TestReadmeScenarioFileRuns(t *testing.T) {
	section := readmeSection(t, "## Scenario files")
	_, rest, _ := strings.Cut(section, "```toml\n")
	example, _, _ := strings.Cut(rest, "```")
	path := filepath.Join(t.TempDir(), "my.toml")
	os.WriteFile(path, []byte(example), 0o644)
	if code, out, errOut := ratelab(t, "run", "--file", path, "--scenario", "my-api"); code != 0 {
		t.Fatalf("the README's example: exit %d\n%s%s", code, out, errOut)
	}
}

// Every key of the scenario schema is in the README's reference.
func TestReadmeDocumentsEveryScenarioKey(t *testing.T) {
	section := readmeSection(t, "## Scenario files")
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
				t.Errorf("the README's scenario reference does not mention %s (in %s)", name, typ.Name())
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(scenarios.File{}))
	if len(seen) < 8 {
		t.Errorf("walked only %d tables of the schema", len(seen))
	}
}
