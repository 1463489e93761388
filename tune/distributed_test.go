package tune

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"ratelab/internal/tracegen"
	"ratelab/traces"
)

// partsByKey splits an access log's lines into n parts by their first field
// (the client's address, the key), as an engine partitions a log by key; a
// line without one goes to part 0.
func partsByKey(data []byte, n int) [][]byte {
	parts := make([][]byte, n)
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		k := 0
		if i := bytes.IndexByte(line, ' '); i > 0 {
			k = int(keyHash(string(line[:i])) % uint64(n))
		}
		parts[k] = append(parts[k], line...)
	}
	return parts
}

// sourceOf is a source of in-memory files, ranked in the order given.
func sourceOf(name string, files [][]byte, ranks ...int) Source {
	src := Source{Name: name}
	for _, r := range ranks {
		data := files[r]
		src.Files = append(src.Files, SourceFile{Name: fmt.Sprintf("%s/part-%d.log", name, r), Rank: r, Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }})
	}
	return src
}

// A log partitioned by key, swept in rounds — each worker scanning its part,
// a plan from the summaries, each worker sweeping its part by the plan, the
// pairs' round planned from the merged partials and swept the same way —
// merges into exactly the report one run over every part prints, layered
// pairs included, byte for byte: on a log that starts mid-minute, with
// unreadable lines in two parts, requests spread within their second by
// line, and one worker's part spilled to disk.
func TestPartitionedLogSweepsInRoundsAsOneRun(t *testing.T) {
	spec := shapeSpec(5)
	spec.Start = time.Date(2026, 3, 2, 6, 13, 27, 0, time.UTC)
	spec.Duration, spec.Users = 3*time.Hour, 150
	spec.ScraperEvery = time.Hour
	var buf bytes.Buffer
	if _, err := tracegen.Write(&buf, spec); err != nil {
		t.Fatal(err)
	}
	// two clients whose keys are not UTF-8, the heavier the log's heaviest
	// key: JSON strings cannot hold them (see keyJSON)
	end := spec.Start.Add(spec.Duration)
	for i := range 12000 {
		key := "\xff\xfe"
		if i%3 == 0 {
			key = "\xfe\xff"
		}
		fmt.Fprintf(&buf, "%s - - [%s] \"GET /x HTTP/1.1\" 200 1\n", key, end.Add(time.Duration(i)*time.Second/4).Format("02/Jan/2006:15:04:05 -0700"))
	}
	const n = 3
	files := partsByKey(buf.Bytes(), n)
	files[1] = append([]byte("not a log line\n"), files[1]...)
	files[2] = append(files[2], "10.9.9.9 - - [garbage\n"...)
	read := traces.Options{Spread: traces.SpreadUniform, Seed: 7}
	pairs := false
	for _, goal := range []Goal{DefaultGoal, {Name: GoalAbuse}} {
		o := Options{Points: 4, Goal: goal, Holdout: -1}
		whole, err := LoadSource(sourceOf("parts", files, 0, 1, 2), read, LoadOptions{Budget: 1 << 30, Profiles: true})
		if err != nil {
			t.Fatal(err)
		}
		one, err := Run(context.Background(), whole, o)
		if err != nil {
			t.Fatal(err)
		}
		if one.Trace.Stats.Unparsed != 2 || !bytes.Contains(report(t, one), []byte("parts/part-1.log:1")) {
			t.Fatalf("the unreadable lines are not counted and named by their file: %+v", one.Trace.Stats.Shown)
		}
		if heaviest := one.Trace.Keys[one.Classes.Heaviest]; heaviest != "\xff\xfe" {
			t.Fatalf("the heaviest key is %q, not the one that is not UTF-8: the test tests less than it says", heaviest)
		}
		var sums []*Summary
		var names []string
		for k := n - 1; k >= 0; k-- { // in any order
			s, err := Scan(sourceOf("parts", files, k), read, Partition{K: k, N: n}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var file bytes.Buffer
			if err := s.Write(&file); err != nil {
				t.Fatal(err)
			}
			back, err := ReadSummary("scan", &file)
			if err != nil {
				t.Fatal(err)
			}
			sums, names = append(sums, back), append(names, fmt.Sprint("scan-", k))
		}
		plan, err := NewPlan(sums, names, o)
		if err != nil {
			t.Fatal(err)
		}
		var merged *Report
		for round := 0; ; round++ {
			plan = roundTrip(t, plan)
			if plan.Round != round {
				t.Fatalf("round %d's plan says round %d", round, plan.Round)
			}
			var parts []*Partial
			for k := range n {
				budget := int64(1 << 30)
				if k == 1 {
					budget = 2000 // spilled
				}
				tr, err := LoadSource(sourceOf("parts", files, k), read, plan.PartLoad(budget, t.TempDir()))
				if err != nil {
					t.Fatal(err)
				}
				if k == 1 && !tr.Spilled() {
					t.Fatal("a 2,000-byte budget did not spill")
				}
				p, err := SweepPart(context.Background(), tr, plan, Partition{K: k, N: n}, 0, nil)
				tr.Close()
				if err != nil {
					t.Fatal(err)
				}
				back := partialThroughFile(t, p)
				parts = append(parts, back)
			}
			names := []string{"p0", "p1", "p2"}
			if !NeedsPairs(parts) {
				if merged, err = Merge(parts, names); err != nil {
					t.Fatal(err)
				}
				break
			}
			if _, err := Merge(parts, names); err == nil {
				t.Error("the first round of a sweep with pairs merged into a report")
			}
			if plan, err = NextRound(parts, names); err != nil {
				t.Fatal(err)
			}
		}
		pairs = pairs || one.Results[len(one.Results)-1].Layered()
		if got, want := report(t, merged), report(t, one); !bytes.Equal(got, want) {
			t.Errorf("goal %s: the partitioned sweep differs from one run:\n%s\n---- one run:\n%s", goal, firstDiff(got, want), firstDiff(want, got))
		}
	}
	if !pairs {
		t.Error("no run swept a layered pair: the test tests less than it says")
	}
}

// partialThroughFile writes a partial and reads it back, as a merge gets it.
func partialThroughFile(t *testing.T, p *Partial) *Partial {
	t.Helper()
	var file bytes.Buffer
	if err := p.Write(&file); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPartial("partial", &file)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// roundTrip writes a plan and reads it back, as a worker gets it.
func roundTrip(t *testing.T, p *Plan) *Plan {
	t.Helper()
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPlan("plan", &b)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// A stage's file changed on the way — a digit, a line cut off — is refused by
// its seal, naming the file, before any field is believed.
func TestStageFilesAreSealed(t *testing.T) {
	var buf bytes.Buffer
	if _, err := tracegen.Write(&buf, shapeSpec(2)); err != nil {
		t.Fatal(err)
	}
	files := [][]byte{buf.Bytes()}
	s, err := Scan(sourceOf("log", files, 0), traces.Options{}, Partition{K: 0, N: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan([]*Summary{s}, []string{"scan"}, Options{Points: 2, Single: true, Goal: DefaultGoal})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := LoadSource(sourceOf("log", files, 0), traces.Options{}, plan.PartLoad(1<<30, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	part, err := SweepPart(context.Background(), tr, plan, Partition{K: 0, N: 1}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
		read  func(io.Reader) error
	}{
		{"summary", s.Write, func(r io.Reader) error { _, err := ReadSummary("f", r); return err }},
		{"plan", plan.Write, func(r io.Reader) error { _, err := ReadPlan("f", r); return err }},
		{"partial", part.Write, func(r io.Reader) error { _, err := ReadPartial("f", r); return err }},
	} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			t.Fatal(err)
		}
		data := b.Bytes()
		if err := f.read(bytes.NewReader(data)); err != nil {
			t.Fatalf("%s, as written: %v", f.name, err)
		}
		// a digit one more, where a count is
		i := bytes.IndexAny(data[len(data)/2:], "12345678") + len(data)/2
		changed := bytes.Clone(data)
		changed[i]++
		if err := f.read(bytes.NewReader(changed)); err == nil || !bytes.Contains([]byte(err.Error()), []byte("not as it was written")) {
			t.Errorf("%s with a digit changed: %v; want the seal to refuse it", f.name, err)
		}
		cut := data[:bytes.LastIndexByte(bytes.TrimRight(data, "\n"), '\n')+1]
		if err := f.read(bytes.NewReader(cut)); err == nil {
			t.Errorf("%s without its seal: read", f.name)
		}
	}
}
