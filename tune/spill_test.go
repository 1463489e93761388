package tune

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ratelab/internal/tracegen"
	"ratelab/traces"
)

// What goes wrong spilling a trace to disk, or reading it back, is a
// *SpillError — a failure of the machine at run time, exit 1 —, which names
// the folder and what to do, and leaves no folder behind: a folder that
// cannot be made, a write that fails (the disk full), a read that fails. A
// trace's own problems are not SpillErrors.
func TestSpillErrors(t *testing.T) {
	var buf bytes.Buffer
	if _, err := tracegen.Write(&buf, tracegen.Spec{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Duration: time.Minute, Seed: 2,
		Users: 50, UserPages: 1.0 / 20, Abusers: 1, AbuserRate: 20, Slowest: time.Second}); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	spillError := func(what string, err error, dir, fix string) {
		t.Helper()
		var se *SpillError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), " in "+dir+" failed: ") || !strings.HasSuffix(err.Error(), "; "+fix) {
			t.Errorf("%s: %v (%T); want a *SpillError naming %s, and %q", what, err, err, dir, fix)
		}
	}
	const room = "free space there, or set TMPDIR to a folder with room"

	missing := filepath.Join(t.TempDir(), "no-such-folder")
	_, err := LoadWith("access.log", open, traces.Options{}, LoadOptions{Budget: 1000, TempDir: missing})
	spillError("a folder that does not exist", err, missing, "set TMPDIR to a folder that exists")

	// the files closed under the spill: every write fails, as on a full disk
	dir := t.TempDir()
	s, err := newSpill(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.files {
		f.Close()
	}
	err = nil
	for i := 0; err == nil && i < 1<<20; i++ {
		err = s.add(uint16(i%spillBuckets), Request{At: int64(i), Cost: 1})
	}
	if err == nil {
		err = s.flush()
	}
	spillError("writes that fail", err, dir, room)
	s.remove()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the spill left %v", entries)
	}

	// read back from files closed under it
	dir = t.TempDir()
	tr, err := LoadWith("access.log", open, traces.Options{}, LoadOptions{Budget: 1000, TempDir: dir})
	if err != nil || !tr.Spilled() {
		t.Fatalf("a budget of 1,000 bytes did not spill: %v", err)
	}
	for _, f := range tr.spill.files {
		f.Close()
	}
	_, err = Run(context.Background(), tr, Options{Points: 2, Goal: TradeOffGoal, Periods: []time.Duration{time.Second}})
	spillError("reads that fail", err, dir, "run it again, or set TMPDIR to another folder")
	tr.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the spill left %v", entries)
	}

	var se *SpillError
	if _, err := LoadWith("access.log", func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("time_ms,key\n")), nil },
		traces.Options{}, LoadOptions{Budget: 1000, TempDir: t.TempDir()}); err == nil || errors.As(err, &se) {
		t.Errorf("an empty trace: %v; want an error of the trace's", err)
	}
}
