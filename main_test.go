package main

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ratelab/internal/check"
)

// The root package is the command line; the tests that run it as a program (the
// built binary: commands, files, terminals, signals) are in e2e/. These are unit
// tests of run itself, with writers a process cannot be given.

var update = flag.Bool("update", false, "rewrite the golden files (the man page)")

// ratelab runs the command line in-process and returns its exit code and output.
func ratelab(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// failing is a standard output that cannot be written (a full disk).
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// Usage errors go to standard error, and output that cannot be written to
// standard output is exit 1, however well the command went.
func TestStandardOutput(t *testing.T) {
	var out, errOut strings.Builder
	if code := run([]string{"list", "--bogus"}, &out, &errOut); code != 2 || out.Len() != 0 || !strings.Contains(errOut.String(), "flag provided but not defined: --bogus") {
		t.Errorf("list --bogus: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	out.Reset()
	errOut.Reset()
	if code := run([]string{"version", "--bogus"}, &out, &errOut); code != 2 || out.Len() != 0 {
		t.Errorf("version --bogus: exit %d, stdout %q", code, out.String())
	}
	for _, args := range [][]string{{"version"}, {"list"}, {"run", "--scenario", "bursty-user"}, {"run", "--scenario", "bursty-user", "--csv", "-"}} {
		errOut.Reset()
		if code := run(args, failing{}, &errOut); code != 1 || !strings.Contains(errOut.String(), "writing standard output: no space left on device") {
			t.Errorf("%s to a full standard output: exit %d, %q", strings.Join(args, " "), code, errOut.String())
		}
	}
}

// version prints the release this file declares, then the Go that built it.
func TestVersion(t *testing.T) {
	var out, errOut strings.Builder
	if code := run([]string{"version"}, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "ratelab "+version+" ") {
		t.Errorf("version: exit %d: %q %q", code, out.String(), errOut.String())
	}
}

// The binary embeds data only: the catalogue and each file its scenarios read,
// no source (an embed of the folder traces/ took the package's Go files and
// tests along).
func TestEmbeddedIsTheCatalogueAndItsFiles(t *testing.T) {
	c, err := loadCatalogue("")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"scenarios.toml"}
	for _, s := range c.Scenarios {
		for _, cl := range s.Clients {
			if cl.File != "" && !slices.Contains(want, cl.File) {
				want = append(want, cl.File)
			}
		}
	}
	var got []string
	fs.WalkDir(embedded, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			got = append(got, path)
		}
		return err
	})
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("embedded %v; want the catalogue and the files it reads, %v", got, want)
	}
}

// No source file is longer than a reader can hold: 450 lines, tests aside. A
// file that grows past it is split by concept (one concept per file).
func TestSourceFilesStayShort(t *testing.T) {
	const most = 450
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != ".":
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := bytes.Count(data, []byte("\n")); n > most {
			t.Errorf("%s has %d lines; split it by concept to at most %d", path, n, most)
		}
		return nil
	})
	check.Setup(t, err)
}
