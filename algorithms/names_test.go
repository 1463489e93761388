package algorithms

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ratelab/internal/sourcecheck"
)

// noneElsewhere lists the files outside this package where the word "none" is
// written as a string for something other than the no-limit algorithm, and what
// it means there. The baseline's name is a common word; every other registered
// name is an algorithm's only.
var noneElsewhere = map[string]string{
	"traces/jsonl.go":    "a message: an object with no fields",
	"traces/options.go":  `spread = "none", the trace's timestamps as written`,
	"scenarios/enums.go": `the words of the retry policy, jitter and spread settings`,
	"ui/controls.go":     "the retry control's label when a client does not retry",
	"cmd_trace.go":       "--spread none",
}

// productElsewhere lists the files outside this package where a product lane's
// name (productNames: "nginx", "haproxy") is written in a string for the product
// itself rather than its lane, and what it means there: a product lane is named
// after the product, whose access logs ratelab reads and whose real servers the
// tests run.
var productElsewhere = map[string]string{
	"cmd_tune.go":                       "the tune command's help: an Apache or nginx access log",
	"cmd_serve.go":                      "the serve command's help: the answers of nginx the server",
	"cmd_infer.go":                      "the infer command's help: the arithmetic of nginx the server",
	"infer/family.go":                   "a variant's words: the clock nginx the server reads",
	"infer/text.go":                     "how nginx the server's configuration writes an inferred bucket",
	"internal/realserver/realserver.go": "the servers' binaries and packages",
	"internal/realserver/nginx.go":      "nginx the server: its binary, its files, its configuration's errors",
	"internal/realserver/nginxlog.go":   "nginx the server: its clocks and its log",
	"internal/realserver/haproxy.go":    "HAProxy the server: its binary, its files, its configuration's errors",
}

// productNames are the lanes named after their product, which productElsewhere's
// files may write for the product.
var productNames = []Name{NginxName, HAProxyName}

// productDirs are the folders whose every file writes the products' names for
// the products: internal/producttest runs nginx -t and haproxy -c. The
// products' own folder, products/, is held by its test instead
// (products/all: a product's name in its package only, no other algorithm's).
var productDirs = []string{"internal/producttest/"}

// forProduct says the file at rel may write a product's name for the product.
func forProduct(rel string) bool {
	return productElsewhere[rel] != "" || slices.ContainsFunc(productDirs, func(d string) bool { return strings.HasPrefix(rel, d) })
}

// withoutProducts is s with every product's name taken out.
func withoutProducts(s string) string {
	for _, n := range productNames {
		s = strings.ReplaceAll(s, string(n), "")
	}
	return s
}

// No algorithm's name is spelled outside this package: every other package names
// an algorithm by its constant (TokenBucketName) and asks the registry what it
// can do, so a fact about an algorithm lives in one place. The test reads every
// Go file of the module but tests, and fails on a string literal that is a
// registered name, or that holds a limiter's name among other words (a message
// that lists which algorithms can do something). Scenario files and test data
// are not Go and are not read, nor are import paths (a package may be named
// after a product: ratelab/products/kong), nor products/, which
// TestProductNamesAreWrittenOnlyInTheirPackages (products/all) holds.
func TestNamesAreWrittenOnlyInTheRegistry(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var limiters []string
	for _, a := range registry {
		if !a.Baseline {
			limiters = append(limiters, string(a.Name))
		}
	}
	within := sourcecheck.Word(limiters)
	for _, f := range sourcecheck.GoFiles(t, root, "products") {
		if f.Dir() == "algorithms" {
			continue
		}
		for lit, s := range f.Strings() {
			where := f.Fset.Position(lit.Pos())
			switch {
			case s == string(UnlimitedName):
				if _, ok := noneElsewhere[f.Rel]; !ok {
					t.Errorf("%s: %q is the no-limit algorithm's name; write UnlimitedName, or, if the word means something else here, add the file to noneElsewhere with what it means", where, s)
				}
			case within.MatchString(s) && !(forProduct(f.Rel) && !within.MatchString(withoutProducts(s))):
				t.Errorf("%s: %q spells an algorithm's name; write its constant, or ask the registry (Info) for the fact", where, s)
			}
		}
	}
	for file := range noneElsewhere {
		if _, err := os.Stat(filepath.Join(root, file)); err != nil {
			t.Errorf("noneElsewhere lists %s, which does not exist: remove it", file)
		}
	}
	for file := range productElsewhere {
		if _, err := os.Stat(filepath.Join(root, file)); err != nil {
			t.Errorf("productElsewhere lists %s, which does not exist: remove it", file)
		}
	}
}

// Every registered algorithm has its facts: a name no other has, a short name
// for narrow panels, and options declared once each.
func TestRegistryEntries(t *testing.T) {
	var names, shorts []string
	for _, a := range registry {
		switch {
		case a.Name == "" || slices.Contains(names, string(a.Name)):
			t.Errorf("%q: every algorithm needs a name of its own", a.Name)
		case a.Short == "" || len(a.Short) > 8 || slices.Contains(shorts, a.Short):
			t.Errorf("%s: short name %q must be 1 to 8 characters and its own", a.Name, a.Short)
		case a.build == nil:
			t.Errorf("%s: no constructor", a.Name)
		case a.Baseline && (a.DefaultLane || a.Tuned || a.Redis != nil || a.Split != nil):
			t.Errorf("%s: the no-limit baseline is not a default lane, tuned, ported or split", a.Name)
		}
		names, shorts = append(names, string(a.Name)), append(shorts, a.Short)
		if lim := a.build(Policy{Limit: 1, Period: 1e9}, a.Defaults); lim.Algorithm() != a.Name {
			t.Errorf("%s: its limiter says it is %q", a.Name, lim.Algorithm())
		}
		if err := a.Defaults.Check(a.Name); err != nil {
			t.Errorf("%s: its defaults are refused: %v", a.Name, err)
		}
		var keys []string
		for _, o := range a.Options {
			if o.Key == "" || o.Doc == "" || slices.Contains(keys, o.Key) {
				t.Errorf("%s: option %q needs a key of its own and a doc line", a.Name, o.Key)
			}
			keys = append(keys, o.Key)
		}
	}
}
