package atomicdir

import (
	"os"
	"path/filepath"
	"ratelab/internal/check"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// leftovers are the temporary folders left in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestCommitAbortAndReplace(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "charts")

	// aborted: nothing appears, nothing is left
	d, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(d.Path(), "a.svg"), "half")
	d.Abort()
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an aborted folder appeared: %v", err)
	}
	if Committed() {
		t.Error("Committed before any Commit")
	}

	// committed: the folder with the marker, readable by others
	d, err = Create(out)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(d.Path(), "a.svg"), "one")
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("the folder appeared before Commit")
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if !Committed() {
		t.Error("not Committed after a Commit")
	}
	if b, _ := os.ReadFile(filepath.Join(out, "a.svg")); string(b) != "one" {
		t.Errorf("a.svg = %q", b)
	}
	if info, _ := os.Stat(out); info.Mode().Perm() != 0o755 {
		t.Errorf("the folder's mode is %v, want 0755", info.Mode().Perm())
	}

	// written again: replaced whole (its old files gone)
	d, err = Create(out)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(d.Path(), "b.svg"), "two")
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "a.svg")); !os.IsNotExist(err) {
		t.Error("the replaced folder kept an old file")
	}
	if _, err := os.Stat(filepath.Join(out, Marker)); err != nil {
		t.Error(err)
	}
	if l := leftovers(t, base); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

func TestRefused(t *testing.T) {
	base := t.TempDir()
	mine := filepath.Join(base, "mine")
	check.Setup(t, os.Mkdir(mine, 0o755))
	write(t, filepath.Join(mine, "thesis.tex"), "precious")
	file := filepath.Join(base, "file")
	write(t, file, "x")
	empty := filepath.Join(base, "empty")
	check.Setup(t, os.Mkdir(empty, 0o755))
	link := filepath.Join(base, "link")
	check.Setup(t, os.Symlink(empty, link))
	for _, tc := range []struct{ path, want string }{
		{mine, "is not empty and ratelab did not write it (it has no .ratelab file)"},
		{file, "is not a folder"},
		{link, "link is a symbolic link; give the folder it leads to"},
		{filepath.Join(base, "new\nline", "x"), `new\nline it goes in does not exist`}, // a name on one line
		{filepath.Join(base, "no", "such"), "does not exist; create it first"},
		{filepath.Join(file, "sub"), "is a file, not a folder"},
	} {
		if _, err := Create(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Create(%s) = %v, want %q", tc.path, err, tc.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(mine, "thesis.tex")); string(b) != "precious" {
		t.Error("a refused folder was changed")
	}
	// an empty folder is taken
	d, err := Create(empty)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	// a folder filled by someone else between Create and Commit is not replaced
	other := filepath.Join(base, "other")
	d, err = Create(other)
	if err != nil {
		t.Fatal(err)
	}
	check.Setup(t, os.Mkdir(other, 0o755))
	write(t, filepath.Join(other, "theirs"), "x")
	if err := d.Commit(); err == nil {
		t.Error("Commit replaced a folder someone else filled meanwhile")
	}
	d.Abort()
	if l := leftovers(t, base); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}
