package algorithms

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The recipe for adding an algorithm (docs/adding-an-algorithm.md) stays true: it
// describes every field of Info, and every file, function and test it names
// exists.
func TestRecipeStaysTrue(t *testing.T) {
	doc, err := os.ReadFile("../docs/adding-an-algorithm.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	info := reflect.TypeFor[Info]()
	for i := 0; i < info.NumField(); i++ {
		if f := info.Field(i); !strings.Contains(text, "| `"+f.Name+"` |") {
			t.Errorf("the recipe's table of Info's fields has no row for %s", f.Name)
		}
	}
	// files and folders: `algorithms/registry.go`, `scenarios/enums.go`…
	for _, m := range regexp.MustCompile("`((?:algorithms|scenarios|docs)/[^`<> ]*)`").FindAllStringSubmatch(text, -1) {
		if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
			t.Errorf("the recipe names %s, which does not exist", m[1])
		}
	}
	// functions and tests of the repository it names: `newSplit`, `TestPortedAlgorithms`…
	var sources strings.Builder
	filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			b, _ := os.ReadFile(path)
			sources.Write(b)
		}
		return nil
	})
	for _, m := range regexp.MustCompile("`((?:Test|new|set|call|bucket|reply)[A-Z][A-Za-z]*|OptionsSpec\\.options)`").FindAllStringSubmatch(text, -1) {
		name := m[1]
		if _, method, ok := strings.Cut(name, "."); ok {
			name = method
		}
		if !strings.Contains(sources.String(), "func "+name+"(") && !strings.Contains(sources.String(), ") "+name+"(") {
			t.Errorf("the recipe names %s, which no Go file defines", m[1])
		}
	}
}
