package all

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"ratelab/algorithms"
	"ratelab/internal/sourcecheck"
)

// No product's name is written outside its package and this list: every
// other package names a product through the list (Products: its Info, its
// name) and asks its Info for the fact, so a product's facts live in its
// package, and adding one is its package and a line here
// (docs/adding-a-product.md). The test reads every Go file of the module but
// tests and the algorithms package (which declares the lanes' names, and
// whose TestNamesAreWrittenOnlyInTheRegistry keeps them out of every package
// but products/), and fails on
//
//   - an import of a product's package anywhere but this list;
//   - a product's lane name constant (algorithms.NginxName, and a lane of the
//     product's own, algorithms.TraefikRedisName) outside its package;
//   - a string literal under products/ that holds a product's name as a word
//     (as TestNamesAreWrittenOnlyInTheRegistry reads one) outside its package,
//     or the name of an algorithm that is no product's lane: a product names
//     the lanes it maps to by their constants.
//
// Scenario files, test data, comments and import paths are not read.
func TestProductNamesAreWrittenOnlyInTheirPackages(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	constants := laneConstants(t, filepath.Join(root, "algorithms"))
	type product struct {
		dir  string         // its package's folder, from the module's root
		word *regexp.Regexp // its name, or its own lanes' ("traefik-redis")
	}
	var ps []product
	owner := map[string]int{} // a lane constant's identifier: its product
	for i, p := range Products {
		dir := packageDir(p.Read)
		if dir == "" || dir == "products" {
			t.Fatalf("%s: its reader is not in a package of its own under products/ (%s)", p, dir)
		}
		var names []string
		for ident, value := range constants {
			if value == string(p.Name) || strings.HasPrefix(value, string(p.Name)+"-") {
				names = append(names, value)
				owner[ident] = i
			}
		}
		ps = append(ps, product{dir, sourcecheck.Word(names)})
	}
	// the limiters that are no product's lane
	var others []string
	for _, a := range algorithms.All() {
		if _, ours := owner[constantOf(constants, a.Name)]; !ours && !a.Baseline {
			others = append(others, string(a.Name))
		}
	}
	other := sourcecheck.Word(others)
	for _, f := range sourcecheck.GoFiles(t, root, "algorithms") {
		dir := f.Dir()
		for _, spec := range f.Syntax.Imports {
			ip, _ := strconv.Unquote(spec.Path.Value)
			for _, pr := range ps {
				if ip == "ratelab/"+pr.dir && dir != "products/all" {
					t.Errorf("%s imports %s; name the product through products/all's list", f.Fset.Position(spec.Pos()), ip)
				}
			}
		}
		ast.Inspect(f.Syntax, func(n ast.Node) bool {
			if n, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "algorithms" {
					if i, ok := owner[n.Sel.Name]; ok && dir != ps[i].dir {
						t.Errorf("%s: algorithms.%s is %s's lane, written outside %s; ask the product's Info (Name) instead", f.Fset.Position(n.Pos()), n.Sel.Name, Products[i], ps[i].dir)
					}
				}
			}
			return true
		})
		if !strings.HasPrefix(f.Rel, "products/") {
			continue
		}
		for lit, s := range f.Strings() {
			for i, pr := range ps {
				if dir != pr.dir && pr.word.MatchString(s) {
					t.Errorf("%s: %q spells %s's name outside %s; write it there, or ask its Info", f.Fset.Position(lit.Pos()), s, Products[i], pr.dir)
				}
			}
			if other.MatchString(s) {
				t.Errorf("%s: %q spells an algorithm's name; write its constant, or ask the registry (algorithms.Info) for the fact", f.Fset.Position(lit.Pos()), s)
			}
		}
	}
}

// laneConstants are the algorithms package's name constants (const XName
// Name = "x"): their identifiers and values.
func laneConstants(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if typ, ok := v.Type.(*ast.Ident); !ok || typ.Name != "Name" || len(v.Values) != len(v.Names) {
					continue
				}
				for i, name := range v.Names {
					if lit, ok := v.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						out[name.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		}
	}
	if len(out) < len(Products) {
		t.Fatalf("found %d name constants in %s; the algorithms package declares every lane's", len(out), dir)
	}
	return out
}

// constantOf is the identifier of the constant whose value is name.
func constantOf(constants map[string]string, name algorithms.Name) string {
	for ident, value := range constants {
		if value == string(name) {
			return ident
		}
	}
	return ""
}

// packageDir is the folder, from the module's root, of the package that
// defines fn ("products/nginx").
func packageDir(fn any) string {
	name := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name() // ratelab/products/nginx.read
	name = strings.TrimPrefix(name, "ratelab/")
	if i := strings.LastIndex(name, "/"); i >= 0 {
		if j := strings.Index(name[i:], "."); j >= 0 {
			return name[:i+j]
		}
	}
	return strings.SplitN(name, ".", 2)[0]
}
