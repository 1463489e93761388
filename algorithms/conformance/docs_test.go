package conformance

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docs/peers.md names, for each peer, the version compared and the test that
// compares it: the versions are the ones this test binary is built with, and the
// tests exist here.
func TestPeersDocNamesTheVersionsAndTestsThatRun(t *testing.T) {
	doc, err := os.ReadFile("../../docs/peers.md")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	required := map[string]string{} // module path → version, from go.mod's require lines
	for _, line := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && strings.HasPrefix(f[1], "v") && strings.Contains(f[0], ".") {
			required[f[0]] = f[1]
		}
	}
	versions := 0
	for _, m := range regexp.MustCompile("\\[`([a-z0-9./_-]+)`\\]\\([^)]*\\) (v[0-9.]+)").FindAllStringSubmatch(string(doc), -1) {
		path, version := m[1], m[2]
		found := false
		for module, v := range required {
			if path == module || strings.HasPrefix(path, module+"/") {
				found = true
				if v != version {
					t.Errorf("docs/peers.md compares %s %s; go.mod requires %s", path, version, v)
				}
			}
		}
		if !found {
			t.Errorf("docs/peers.md names %s %s, which go.mod does not require", path, version)
		}
		versions++
	}
	if versions < 5 {
		t.Errorf("docs/peers.md gives the version of %d libraries; want the five it compares", versions)
	}

	var source strings.Builder
	files, _ := filepath.Glob("*_test.go")
	deployments, _ := filepath.Glob("../../deploy/*_test.go") // the deployments' protocols
	for _, f := range append(files, deployments...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		source.Write(b)
	}
	named := regexp.MustCompile("`(Test[A-Za-z]+)`").FindAllStringSubmatch(string(doc), -1)
	if len(named) < 8 {
		t.Errorf("docs/peers.md names %d tests", len(named))
	}
	for _, m := range named {
		if !strings.Contains(source.String(), "\nfunc "+m[1]+"(t *testing.T)") {
			t.Errorf("docs/peers.md names %s, which is not a test in algorithms/conformance or deploy", m[1])
		}
	}
}
