package products

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The recipe for adding a product (docs/adding-a-product.md) stays true: it
// describes every field of Info and of Target, and every file, folder, test
// and helper it names exists (but its dry run's hypothetical acme).
func TestRecipeStaysTrue(t *testing.T) {
	doc, err := os.ReadFile("../docs/adding-a-product.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	for _, typ := range []reflect.Type{reflect.TypeFor[Info](), reflect.TypeFor[Target]()} {
		for i := 0; i < typ.NumField(); i++ {
			if f := typ.Field(i); !strings.Contains(text, "| `"+f.Name+"` |") {
				t.Errorf("the recipe's table of %s's fields has no row for %s", typ.Name(), f.Name)
			}
		}
	}
	// files and folders: `products/all/all.go`, `algorithms/registry.go`…
	for _, m := range regexp.MustCompile("`((?:products|algorithms|scenarios|docs)/[^`<> ]*)`").FindAllStringSubmatch(text, -1) {
		if strings.Contains(m[1], "acme") {
			continue
		}
		if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
			t.Errorf("the recipe names %s, which does not exist", m[1])
		}
	}
	// tests and helpers: `TestSamplesAreToldByTheirContent`,
	// `configtest.ReadBack`, `products.EachLimit`, `Mapping.Key`…
	var sources strings.Builder
	filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			b, _ := os.ReadFile(path)
			sources.Write(b)
		}
		return nil
	})
	src := sources.String()
	for _, m := range regexp.MustCompile("`(?:products|configtest|List|Config|Mapping|Snippet)\\.([A-Z][A-Za-z]*)`|`(Test[A-Z][A-Za-z]*)`").FindAllStringSubmatch(text, -1) {
		name := m[1] + m[2]
		if !strings.Contains(src, "func "+name+"(") && !strings.Contains(src, ") "+name+"(") && !strings.Contains(src, "func "+name+"[") &&
			!strings.Contains(src, "type "+name+" ") && !strings.Contains(src, "\t"+name+" ") {
			t.Errorf("the recipe names %s, which no Go file defines", m[0])
		}
	}
}
