package outputs

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratelab/present"
	"ratelab/scenarios"
	"ratelab/sim"
)

// file is a File in memory that counts its commits and aborts, and fails its
// writes past failAfter bytes (0: never).
type file struct {
	bytes.Buffer
	commits, aborts, failAfter int
}

func (f *file) Write(p []byte) (int, error) {
	if f.failAfter > 0 && f.Len()+len(p) > f.failAfter {
		return 0, errors.New("disk full")
	}
	return f.Buffer.Write(p)
}
func (f *file) Commit() error { f.commits++; return nil }
func (f *file) Abort()        { f.aborts++ }

func run(t *testing.T, name string) *sim.Run {
	t.Helper()
	c, err := scenarios.LoadFS(os.DirFS(".."), "scenarios.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile(name, scenarios.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// A write puts its files in place only when all of it was written: the CSVs
// and the charts whole, then each file committed once; a failed write of one
// CSV, or a signal, commits none.
func TestWriteCommitsOnlyWhatIsWhole(t *testing.T) {
	requests, series := &file{}, &file{}
	charts := filepath.Join(t.TempDir(), "charts")
	w, err := Write(context.Background(), run(t, "boundary-burst"), 3e9, Outputs{Requests: requests, Series: series, Charts: charts})
	if err != nil {
		t.Fatal(err)
	}
	if requests.commits != 1 || series.commits != 1 || !strings.HasPrefix(requests.String(), present.RequestColumns) || !strings.HasPrefix(series.String(), present.SeriesColumns) {
		t.Errorf("commits %d and %d; the CSVs begin %.40q and %.40q", requests.commits, series.commits, requests.String(), series.String())
	}
	if entries, _ := os.ReadDir(charts); len(w.Figures) == 0 || len(entries) != 2*len(w.Figures) {
		t.Errorf("%d figures, %d files in the folder; want an SVG and a PNG of each", len(w.Figures), len(entries))
	}

	requests, series = &file{failAfter: 4096}, &file{}
	if _, err := Write(context.Background(), run(t, "boundary-burst"), 3e9, Outputs{Requests: requests, Series: series}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("a request CSV that cannot be written: %v", err)
	}
	if requests.commits+series.commits != 0 {
		t.Errorf("committed %d and %d after a failed write", requests.commits, series.commits)
	}

	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupted"))
	requests, series = &file{}, &file{}
	if _, err := Write(ctx, run(t, "retry-storm"), 60e9, Outputs{Requests: requests, Series: series}); err == nil {
		t.Error("a signal before the run: no error")
	}
	if requests.commits+series.commits != 0 {
		t.Errorf("committed %d and %d after a signal", requests.commits, series.commits)
	}
}
