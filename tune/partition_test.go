package tune

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/check"
	"ratelab/internal/tracegen"
	"ratelab/traces"
)

// report renders a report every way ratelab tune prints it.
func report(t *testing.T, rep *Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := rep.WriteTable(&b, 60); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	var j bytes.Buffer
	if err := rep.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	// the answer replays the requests, which a merged report has not: it is
	// left out of the comparison (a report that can replay writes it, see
	// TestAnswerJSONRoundTrips)
	var m map[string]any
	if err := json.Unmarshal(j.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "answer")
	out, _ := json.MarshalIndent(m, "", "  ")
	return append(b.Bytes(), out...)
}

// A sweep spread over partitions of the keys, each run reading the whole log and
// sweeping its keys only, merges into exactly the report one run gives, byte for
// byte (table, CSV, JSON); and a trace spilled to disk sweeps into exactly the
// report the same trace in memory gives, pairs included.
func TestPartitionsMergeIntoOneRun(t *testing.T) {
	spec := shapeSpec(4)
	spec.Duration, spec.Users = 3*time.Hour, 150
	spec.ScraperEvery = time.Hour
	var buf bytes.Buffer
	if _, err := tracegen.Write(&buf, spec); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	o := Options{Points: 4, Goal: TradeOffGoal, Single: true, Periods: []time.Duration{time.Second, 10 * time.Second, time.Hour}}
	whole, err := LoadWith("access.log", open, traces.Options{}, LoadOptions{Budget: 1 << 30, Periods: o.Periods})
	if err != nil {
		t.Fatal(err)
	}
	one, err := Run(context.Background(), whole, o)
	if err != nil {
		t.Fatal(err)
	}
	want := report(t, one)
	for _, n := range []int{1, 3} {
		var parts []*Partial
		var names []string
		for k := n - 1; k >= 0; k-- { // in any order
			tr, err := LoadWith("access.log", open, traces.Options{}, LoadOptions{Budget: 20000, Partition: Partition{K: k, N: n}, TempDir: t.TempDir(), Periods: o.Periods})
			if err != nil {
				t.Fatal(err)
			}
			p, err := RunPartial(context.Background(), tr, o)
			tr.Close()
			if err != nil {
				t.Fatal(err)
			}
			back := partialThroughFile(t, p)
			parts, names = append(parts, back), append(names, Partition{K: k, N: n}.String())
		}
		merged, err := Merge(parts, names)
		if err != nil {
			t.Fatal(err)
		}
		if got := report(t, merged); !bytes.Equal(got, want) {
			check.Setup(t, os.WriteFile(t.TempDir()+"/got", got, 0o644))
			t.Errorf("%d partitions merged differ from one run:\n%s\n---- one run:\n%s", n, firstDiff(got, want), firstDiff(want, got))
		}
		if n == 3 {
			if _, err := Merge(parts[:2], names[:2]); err == nil {
				t.Error("a merge missing a partition was accepted")
			}
			if _, err := Merge(append(parts, parts[0]), append(names, names[0])); err == nil {
				t.Error("a merge with a partition twice was accepted")
			}
		}
	}
	// spilled to disk, pairs included: the same report as in memory
	o.Single = false
	inMemory, err := Run(context.Background(), whole, o)
	if err != nil {
		t.Fatal(err)
	}
	spilled, err := LoadWith("access.log", open, traces.Options{}, LoadOptions{Budget: 50000, TempDir: t.TempDir(), Periods: o.Periods})
	if err != nil || !spilled.Spilled() {
		t.Fatalf("a 50,000-byte budget did not spill: %v", err)
	}
	defer spilled.Close()
	fromDisk, err := Run(context.Background(), spilled, o)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := report(t, fromDisk), report(t, inMemory); !bytes.Equal(got, want) {
		t.Errorf("spilled differs from in memory:\n%s\n----\n%s", firstDiff(got, want), firstDiff(want, got))
	}
}

// firstDiff is a from the first line it differs from b, a few lines.
func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range la {
		if i >= len(lb) || !bytes.Equal(la[i], lb[i]) {
			return string(bytes.Join(la[i:min(len(la), i+4)], []byte("\n")))
		}
	}
	return "(a prefix)"
}

// A sweep whose policies delay requests (Traefik, within half a token's
// interval) merges into
// the report one run gives too, delays and their quantiles included: a
// partial lost its delays' histogram, and the merge reported every delay as 0.
// (nginx delays too, but its zone expires nodes as requests come, whoever
// sends them, so the state it holds is not a sum over partitions of keys.)
func TestPartitionsMergeDelays(t *testing.T) {
	var buf bytes.Buffer
	if _, err := tracegen.Write(&buf, tracegen.Spec{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Duration: 3 * time.Minute, Seed: 8,
		Users: 150, UserPages: 1.0 / 30, Abusers: 2, AbuserRate: 6, Slowest: time.Second}); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	o := Options{Points: 3, Goal: TradeOffGoal, Single: true, Periods: []time.Duration{time.Second, time.Minute}, Algorithms: []algorithms.Name{algorithms.TraefikName}}
	whole, err := LoadWith("access.log", open, traces.Options{Spread: traces.SpreadUniform, Seed: 1}, LoadOptions{Budget: 1 << 30, Periods: o.Periods})
	if err != nil {
		t.Fatal(err)
	}
	one, err := Run(context.Background(), whole, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(one.Results, func(r Result) bool { return r.DelayP99 > 0 }) {
		t.Fatal("no policy delayed a request: the test tests nothing")
	}
	var parts []*Partial
	for k := range 2 {
		tr, err := LoadWith("access.log", open, traces.Options{Spread: traces.SpreadUniform, Seed: 1}, LoadOptions{Budget: 1 << 30, Partition: Partition{K: k, N: 2}, Periods: o.Periods})
		if err != nil {
			t.Fatal(err)
		}
		p, err := RunPartial(context.Background(), tr, o)
		if err != nil {
			t.Fatal(err)
		}
		back := partialThroughFile(t, p)
		parts = append(parts, back)
	}
	merged, err := Merge(parts, []string{"0/2", "1/2"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := report(t, merged), report(t, one); !bytes.Equal(got, want) {
		t.Errorf("merged differs from one run:\n%s\n---- one run:\n%s", firstDiff(got, want), firstDiff(want, got))
	}
}
