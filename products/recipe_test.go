package products

import (
	"reflect"
	"testing"

	"ratelab/internal/sourcecheck"
)

// The recipe for adding a product (docs/adding-a-product.md) stays true: it
// describes every field of Info and of Target, and every file, folder, test
// and helper it names exists (but its dry run's hypothetical acme).
func TestRecipeStaysTrue(t *testing.T) {
	r := sourcecheck.ReadRecipe(t, "..", "docs/adding-a-product.md")
	r.Rows(t, reflect.TypeFor[Info](), reflect.TypeFor[Target]())
	// files and folders: `products/all/all.go`, `algorithms/registry.go`…
	r.Paths(t, []string{"products", "algorithms", "scenarios", "docs"}, "acme")
	// tests and helpers: `TestSamplesAreToldByTheirContent`,
	// `configtest.ReadBack`, `products.EachLimit`, `Mapping.Key`…
	r.Defined(t, "`(?:products|configtest|List|Config|Mapping|Snippet)\\.([A-Z][A-Za-z]*)`|`(Test[A-Z][A-Za-z]*)`")
}
