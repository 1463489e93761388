// Package sourcecheck is for the tests that read ratelab's own Go source and
// documentation: that a name is written only where it is declared (the
// algorithms' registry, a product's package), and that a recipe of docs/
// names only what exists.
package sourcecheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"iter"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Word matches one of names as a word of its own, not inside a longer name or
// a path: token-bucket in "a token-bucket lane", not in "my-token-bucket".
func Word(names []string) *regexp.Regexp {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return regexp.MustCompile(`(^|[^a-z0-9_-])(` + strings.Join(quoted, "|") + `)($|[^a-z0-9_-])`)
}

// File is a Go file of the module: its path from the module's root, with
// slashes, and its syntax.
type File struct {
	Rel    string
	Fset   *token.FileSet
	Syntax *ast.File
}

// Dir is the folder of the file's package, from the module's root.
func (f File) Dir() string { return path.Dir(f.Rel) }

// Strings yields the file's string literals, unquoted, but its import paths
// (a package may be named after what its name means: ratelab/products/kong).
func (f File) Strings() iter.Seq2[*ast.BasicLit, string] {
	return func(yield func(*ast.BasicLit, string) bool) {
		imports := map[*ast.BasicLit]bool{}
		for _, spec := range f.Syntax.Imports {
			imports[spec.Path] = true
		}
		more := true
		ast.Inspect(f.Syntax, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !more || !ok || lit.Kind != token.STRING || imports[lit] {
				return more
			}
			if s, err := strconv.Unquote(lit.Value); err == nil {
				more = yield(lit, s)
			}
			return more
		})
	}
}

// GoFiles are the module's Go files below root, but tests, hidden folders,
// testdata and the folders skip names (from root). A walk that finds fewer
// than 100 missed the module, and fails t.
func GoFiles(t testing.TB, root string, skip ...string) []File {
	t.Helper()
	fset := token.NewFileSet()
	var files []File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || slices.Contains(skip, rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, File{rel, fset, f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("read %d Go files under %s; the walk missed the module", len(files), root)
	}
	return files
}

// Recipe is a page of docs/ that says how to add something (an algorithm, a
// product), read to hold it true to the code.
type Recipe struct {
	Text string
	Root string // the module's root
}

// ReadRecipe reads the page at path, of the module at root.
func ReadRecipe(t testing.TB, root, path string) Recipe {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	return Recipe{string(doc), root}
}

// Rows fails t for each field of types the recipe has no table row for
// ("| `Field` |").
func (r Recipe) Rows(t testing.TB, types ...reflect.Type) {
	t.Helper()
	for _, typ := range types {
		for i := range typ.NumField() {
			if f := typ.Field(i); !strings.Contains(r.Text, "| `"+f.Name+"` |") {
				t.Errorf("the recipe's table of %s's fields has no row for %s", typ.Name(), f.Name)
			}
		}
	}
}

// Paths fails t for each file or folder the recipe names in backticks, under
// one of dirs, that the module does not hold; a path with a placeholder (<name>)
// or one of hypothetical in it is no file.
func (r Recipe) Paths(t testing.TB, dirs []string, hypothetical ...string) {
	t.Helper()
	for _, m := range regexp.MustCompile("`((?:"+strings.Join(dirs, "|")+")/[^`<> ]*)`").FindAllStringSubmatch(r.Text, -1) {
		if slices.ContainsFunc(hypothetical, func(h string) bool { return strings.Contains(m[1], h) }) {
			continue
		}
		if _, err := os.Stat(filepath.Join(r.Root, m[1])); err != nil {
			t.Errorf("the recipe names %s, which does not exist", m[1])
		}
	}
}

// Defined fails t for each name the recipe writes in backticks and that
// pattern (a regular expression whose first group that matches is the name)
// finds, and that no Go file of the module defines: a func, a method or a
// type.
func (r Recipe) Defined(t testing.TB, pattern string) {
	t.Helper()
	var sources strings.Builder
	filepath.WalkDir(r.Root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			b, _ := os.ReadFile(p)
			sources.Write(b)
		}
		return nil
	})
	src := sources.String()
	for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(r.Text, -1) {
		name := strings.Join(m[1:], "")
		if _, method, ok := strings.Cut(name, "."); ok {
			name = method
		}
		if !strings.Contains(src, "func "+name+"(") && !strings.Contains(src, ") "+name+"(") && !strings.Contains(src, "func "+name+"[") && !strings.Contains(src, "type "+name+" ") {
			t.Errorf("the recipe names %s, which no Go file defines", m[0])
		}
	}
}
