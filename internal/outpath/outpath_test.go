package outpath

import (
	"os"
	"path/filepath"
	"ratelab/internal/check"
	"strings"
	"testing"
)

func TestInside(t *testing.T) {
	dir := t.TempDir()
	check.Setup(t, os.MkdirAll(filepath.Join(dir, "R", "sub"), 0o755))
	check.Setup(t, os.WriteFile(filepath.Join(dir, "R", "sub", "in.toml"), nil, 0o644))
	check.Setup(t, os.WriteFile(filepath.Join(dir, "Rx.toml"), nil, 0o644))
	check.Setup(t, os.Symlink("R", filepath.Join(dir, "link")))
	t.Chdir(dir)
	for _, tc := range []struct {
		folder, path string
		want         bool
	}{
		{"R", "R/sub/in.toml", true},
		{"R/", "R/sub/in.toml", true},
		{".", "R/sub/in.toml", true},
		{"R", "R", true},
		{"link", "R/sub/in.toml", true},            // the folder through a symlink
		{"R", "link/sub/in.toml", true},            // the input through one
		{"R", "Rx.toml", false},                    // a name that only starts the same
		{"R/sub", "R/new.csv", false},              // beside, not inside
		{"R", filepath.Join(dir, "R/x.csv"), true}, // absolute and relative
		{"/", "R/x.csv", true},
	} {
		if got := Inside(tc.folder, tc.path); got != tc.want {
			t.Errorf("Inside(%q, %q) = %v, want %v", tc.folder, tc.path, got, tc.want)
		}
	}
}

func TestDistinct(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	check.Setup(t, os.MkdirAll("R", 0o755))
	check.Setup(t, os.WriteFile("R/in.toml", nil, 0o644))
	for _, tc := range []struct {
		paths []Path
		want  string // "" for none
	}{
		{[]Path{Input("the scenario file (--file)", "R/in.toml"), Folder("--plot", "R")}, "--plot R holds the scenario file (--file), R/in.toml, which this run reads"},
		{[]Path{Folder("--plot", "R"), Input("the scenario file (--file)", "R/in.toml")}, "--plot R holds the scenario file (--file)"},
		{[]Path{Folder("--plot", "R"), File("--csv", "R/rows.csv")}, "--csv R/rows.csv is inside --plot R"},
		{[]Path{Input("the trace (--trace)", "R/in.toml"), Folder("--out", "R/in.toml")}, "--out R/in.toml is the trace (--trace), which this run reads; the folder written there would replace it"},
		{[]Path{Folder("--plot", "R"), Folder("--out", "R/")}, "are the same folder"},
		{[]Path{Folder("--plot", "R"), Folder("--out", "R/report")}, "--out R/report is inside --plot R"},
		{[]Path{File("--csv", "x.csv"), File("--series", "./x.csv")}, "--csv and --series are the same file"},
		{[]Path{Input("a", "R/in.toml"), Input("b", "R/in.toml")}, ""}, // two inputs: read twice, harmless
		{[]Path{Input("the trace", "R/in.toml"), Folder("--plot", "P"), File("--csv", "R/out.csv")}, ""},
	} {
		err := Distinct(tc.paths)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v, want none", tc.paths, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: %v, want %q", tc.paths, err, tc.want)
		}
	}
}
