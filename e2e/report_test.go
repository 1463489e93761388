package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"ratelab/internal/check"
	"strings"
	"testing"
)

// readmeChart is the chart the README and docs/charts-and-reports.md show, and
// the command that makes it (both pages name both).
const (
	readmeChart   = "docs/boundary-burst.png"
	readmeCommand = "ratelab run --scenario boundary-burst --lanes fixed-window,sliding-log,token-bucket --plot charts"
)

// The README's chart is what its command makes, byte for byte: the command still
// runs, and the picture in the repository is up to date. Rewrite it with
// go test -run TestReadmeChart -update.
func TestReadmeChart(t *testing.T) {
	sequentialOnly(t)
	t.Parallel()
	for _, shows := range []struct{ page, link string }{
		{"README.md", readmeChart},
		{"docs/charts-and-reports.md", filepath.Base(readmeChart)},
	} {
		if text := page(t, shows.page); !strings.Contains(text, readmeCommand) || !strings.Contains(text, "]("+shows.link+")") {
			t.Fatalf("%s does not show %s with the command %q", shows.page, shows.link, readmeCommand)
		}
	}
	dir := filepath.Join(t.TempDir(), "charts")
	args := strings.Fields(strings.TrimPrefix(readmeCommand, "ratelab "))
	args[len(args)-1] = dir
	if code, _, errOut := ratelab(t, args...); code != 0 {
		t.Fatalf("%s: exit %d: %s", readmeCommand, code, errOut)
	}
	made, err := os.ReadFile(filepath.Join(dir, "comparison-zoom.png"))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		check.Setup(t, os.WriteFile(filepath.Join("..", readmeChart), made, 0o644))
	}
	committed, err := os.ReadFile(filepath.Join("..", readmeChart))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(made, committed) {
		t.Errorf("%s is not what %q makes now; run go test -run TestReadmeChart -update", readmeChart, readmeCommand)
	}
}

// Bad output folders are refused before anything runs, with a message naming the
// folder and the fix and exit code 2, and leave nothing behind; a folder ratelab
// wrote is replaced whole.
func TestPlotAndReportFolders(t *testing.T) {
	sequentialOnly(t)
	t.Parallel()
	base := t.TempDir()
	other := filepath.Join(base, "other")
	check.Setup(t, os.Mkdir(other, 0o755))
	check.Setup(t, os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644))
	file := filepath.Join(base, "file")
	check.Setup(t, os.WriteFile(file, []byte("x"), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--scenario", "boundary-burst", "--plot", other}, "is not empty and ratelab did not write it (it has no .ratelab file); give a new or empty folder"},
		{[]string{"report", "--scenario", "boundary-burst", "--out", other}, "is not empty and ratelab did not write it"},
		{[]string{"run", "--scenario", "boundary-burst", "--plot", file}, "is not a folder; give the path of a new or empty folder"},
		{[]string{"report", "--scenario", "boundary-burst", "--out", filepath.Join(base, "missing", "r")}, "does not exist; create it first"},
		{[]string{"report", "--scenario", "boundary-burst", "--out", filepath.Join(file, "r")}, "is a file, not a folder"},
		{[]string{"report", "--scenario", "boundary-burst", "--out", ""}, "--out is empty"},
		{[]string{"report"}, "--scenario is required"},
	} {
		code, _, errOut := ratelab(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(other, "notes.txt")); string(b) != "mine" {
		t.Error("a refused folder was changed")
	}

	out := filepath.Join(base, "report")
	var first []byte
	for i := range 2 { // the second time over the first, which ratelab wrote
		code, stdout, errOut := ratelab(t, "report", "--scenario", "boundary-burst", "--lanes", "fixed-window,token-bucket", "--out", out)
		if code != 0 {
			t.Fatalf("report %d: exit %d: %s", i, code, errOut)
		}
		if !strings.Contains(stdout, "index.html") {
			t.Errorf("report %d said %q", i, stdout)
		}
		page, err := os.ReadFile(filepath.Join(out, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = page
			check.Setup(t, os.WriteFile(filepath.Join(out, "stale.txt"), nil, 0o644))
		} else if !bytes.Equal(page, first) {
			t.Error("the same report twice gave two different pages")
		}
	}
	for _, name := range []string{"index.html", "requests.csv", "series.csv", ".ratelab", "figures/comparison-zoom.svg", "figures/comparison-zoom.png"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "stale.txt")); err == nil {
		t.Error("the folder was written into, not replaced whole: stale.txt is still there")
	}
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("a temporary folder was left behind: %s", e.Name())
		}
	}
}
