package algorithms

import (
	"reflect"
	"testing"

	"ratelab/internal/sourcecheck"
)

// The recipe for adding an algorithm (docs/adding-an-algorithm.md) stays true: it
// describes every field of Info, and every file, function and test it names
// exists.
func TestRecipeStaysTrue(t *testing.T) {
	r := sourcecheck.ReadRecipe(t, "..", "docs/adding-an-algorithm.md")
	r.Rows(t, reflect.TypeFor[Info]())
	// files and folders: `algorithms/registry.go`, `scenarios/enums.go`…
	r.Paths(t, []string{"algorithms", "scenarios", "docs"})
	// functions and tests of the repository it names: `newSplit`, `TestPortedAlgorithms`…
	r.Defined(t, "`((?:Test|new|set|call|bucket|reply)[A-Z][A-Za-z]*|OptionsSpec\\.options)`")
}
