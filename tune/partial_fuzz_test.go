package tune

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/tracegen"
	"ratelab/traces"
)

// partialSeeds are real partial sweeps of a small generated log (two minutes,
// some lines unreadable): its two partitions of a two-way sweep, a partial of
// every key with its layered pairs, and one of nginx's lane with its knobs
// (delays counted), in that order, as tune --partition writes them.
var partialSeeds = sync.OnceValues(func() ([][]byte, error) {
	var log bytes.Buffer
	if _, err := tracegen.Write(&log, tracegen.Spec{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Duration: 2 * time.Minute, Seed: 3,
		Users: 150, UserPages: 1.0 / 30, Abusers: 1, AbuserRate: 8, Crawlers: 1, CrawlerRate: 2, Slowest: time.Second}); err != nil {
		return nil, err
	}
	log.WriteString("not a log line\n\x1b[2Jnor this\n")
	data := log.Bytes()
	periods := []time.Duration{time.Second, time.Minute}
	sweeps := []struct {
		part Partition
		o    Options
	}{
		{Partition{0, 2}, Options{Points: 2, Periods: periods, Goal: TradeOffGoal, Single: true}},
		{Partition{1, 2}, Options{Points: 2, Periods: periods, Goal: TradeOffGoal, Single: true}},
		{Partition{0, 1}, Options{Points: 2, Periods: periods, Goal: TradeOffGoal}},
		{Partition{0, 1}, Options{Points: 2, Periods: periods, Goal: TradeOffGoal, Single: true, Algorithms: []algorithms.Name{algorithms.NginxName},
			Variants: []Variant{{Nodelay: true}, {}, {DelayHalf: true}}}},
	}
	var out [][]byte
	for _, s := range sweeps {
		tr, err := LoadWith("access.log", func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
			traces.Options{}, LoadOptions{Budget: 1 << 30, Partition: s.part, Periods: periods})
		if err != nil {
			return nil, err
		}
		p, err := RunPartial(context.Background(), tr, s.o)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := p.Write(&b); err != nil {
			return nil, err
		}
		out = append(out, b.Bytes())
	}
	return out, nil
})

// mergeAndReport reads data as a partial named name and, when it reads, merges
// it with the partials of its sweep that others gives (by partition), and
// renders the report every way tune merge prints it. It returns the report,
// or the first error.
func mergeAndReport(name string, data []byte, others map[Partition]*Partial) (*Report, error) {
	p, err := ReadPartial(name, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	parts, names := []*Partial{p}, []string{name}
	for k := range len(others) { // (not up to the N the partial claims)
		if o := others[Partition{k, p.Partition.N}]; o != nil && k != p.Partition.K {
			parts, names = append(parts, o), append(names, o.Partition.String())
		}
	}
	rep, err := Merge(parts, names)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := rep.WriteTable(&b, 60); err != nil {
		return nil, err
	}
	if err := rep.WriteCSV(&b); err != nil {
		return nil, err
	}
	if err := rep.WriteJSON(&b); err != nil {
		return nil, err
	}
	rep.Lanes(6)
	return rep, nil
}

// FuzzPartial: a partial sweep is a file anyone may have damaged, so no bytes
// at all make tune merge panic — reading them, merging them with the real
// partials of the other partitions, or reporting the merge —, and what merges
// reports shares from 0 to 1. The seeds are real partials; besides the bytes
// the fuzzer changes, the number at (counted from the file's first) is set to
// value, so that the partial stays JSON and its checks are what is tried.
//
//	go test -run '^$' -fuzz '^FuzzPartial$' -fuzztime 20000x ./tune
func FuzzPartial(f *testing.F) {
	seeds, err := partialSeeds()
	if err != nil {
		f.Fatal(err)
	}
	others := map[Partition]*Partial{}
	for i, s := range seeds[:2] {
		p, err := ReadPartial(fmt.Sprint("seed ", i), bytes.NewReader(s))
		if err != nil {
			f.Fatal(err)
		}
		others[p.Partition] = p
	}
	for i, s := range seeds {
		// without the seal, as an older ratelab wrote them: the fuzzer's
		// changes reach the fields' checks instead of stopping at the seal
		if body, sealed, err := unseal("seed", s); err == nil && sealed {
			s = body
		}
		f.Add(s, uint16(0), int64(partialVersion))
		f.Add(s, uint16(40*i+7), int64(-1))
		f.Add(s, uint16(300*i+11), int64(1)<<40)
	}
	f.Fuzz(func(t *testing.T, data []byte, at uint16, value int64) {
		data = setNumber(data, int(at), value)
		rep, err := mergeAndReport("fuzz.json", data, others)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json") && !strings.Contains(err.Error(), "partition") && !strings.Contains(err.Error(), "partials") {
				t.Errorf("an error that names neither the file nor the partitions: %v", err)
			}
			return
		}
		for _, r := range rep.Results {
			for _, v := range []float64{r.DeniedShare, r.MedianKeyDenied, r.P99KeyDenied, r.OrdinaryDenied, r.HeavyAdmitted, r.WorstKindAdmitted, r.DelayedShare} {
				if !(v >= 0 && v <= 1) {
					t.Fatalf("%s: a share of %v", r.Limits, v)
				}
			}
		}
	})
}

// jsonNumber is a whole number in JSON, after what comes before one.
var jsonNumber = regexp.MustCompile(`[:\[,]-?[0-9]+`)

// setNumber is data with its at-th whole number (from 0, those past the last
// counted again from the first) set to value; data when it has none.
func setNumber(data []byte, at int, value int64) []byte {
	found := jsonNumber.FindAllIndex(data, -1)
	if len(found) == 0 {
		return data
	}
	m := found[at%len(found)]
	out := append(slices.Clone(data[:m[0]+1]), strconv.FormatInt(value, 10)...)
	return append(out, data[m[1]:]...)
}

// The damages the issue found, and others of each kind the checks cover:
// each is refused naming the file and the field, where tune merge panicked
// (index out of range, makeslice: len out of range) or reported shares past
// one; the partials undamaged merge.
func TestDamagedPartials(t *testing.T) {
	seeds, err := partialSeeds()
	if err != nil {
		t.Fatal(err)
	}
	others := map[Partition]*Partial{}
	for _, s := range seeds[:2] {
		p, err := ReadPartial("seed", bytes.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		others[p.Partition] = p
	}
	for i, s := range seeds {
		if _, err := mergeAndReport("part.json", s, others); err != nil {
			t.Fatalf("seed %d, undamaged: %v", i, err)
		}
	}
	for _, tc := range []struct {
		name, old, new, field string
		seed                  int
	}{
		{"a key index one digit off", `"Heaviest":`, `"Heaviest":9`, "Classes.Heaviest", 2},
		{"a partition count no sweep makes", `"N":2}`, `"N":1000000000000000}`, "partition.N", 0},
		{"a standout past the keys", `"Keys":[2,`, `"Keys":[70,`, "Classes.Over[1].Keys[0]", 0},
		{"more periods than a key's classes hold", `"Overs":2`, `"Overs":7`, "Totals.Overs", 0},
		{"a shown line missing", `"Unparsed":2`, `"Unparsed":3`, "Trace.Stats.Shown", 0},
		{"a format no reader has", `"Format":{"Format":2`, `"Format":{"Format":9`, "Trace.Format.Format", 0},
		{"how the format was told, past the three ways", `"By":2`, `"By":7`, "Trace.Format.By", 0},
		{"a grid past --points", `"Rates":[`, `"Rates":[` + strings.Repeat("1,", 70), "Grids[0].Rates", 0},
		{"an algorithm nobody wrote", `"Algorithms":["fixed-window"`, `"Algorithms":["fixed-windows"`, "Grids[0].Algorithms[0]", 0},
		{"a policy the grid does not sweep", `"Limits":[{"Algorithm":"fixed-window","Limit":1,`, `"Limits":[{"Algorithm":"fixed-window","Limit":2,`, "Limits[0]", 0},
		{"more denied than requested", `"Tallies":[{"Denied":`, `"Tallies":[{"Denied":1000000000`, "Tallies[0].Denied", 0},
		{"a negative count", `"Tallies":[{"Denied":`, `"Tallies":[{"Denied":-`, "Tallies[0].Denied", 0},
	} {
		data := string(seeds[tc.seed])
		switch {
		case tc.new == `"Heaviest":9`: // one digit changed
			i := strings.Index(data, tc.old) + len(tc.old)
			data = data[:i] + "9" + data[i+1:]
		case strings.HasPrefix(tc.field, "Classes.Over"): // the classes' keys, not the trace's
			i := strings.Index(data, `"Over":[`)
			data = data[:i] + strings.Replace(data[i:], tc.old, tc.new, 1)
		default:
			if !strings.Contains(data, tc.old) {
				t.Fatalf("%s: the seed has no %s", tc.name, tc.old)
			}
			data = strings.Replace(data, tc.old, tc.new, 1)
		}
		// sealed, the change is refused by the seal; without it (as an older
		// ratelab wrote a partial, or one whose seal was made again), by the
		// field's check
		if _, err := mergeAndReport("part.json", []byte(data), others); err == nil || !strings.Contains(err.Error(), "not as it was written") {
			t.Errorf("%s, sealed: %v; want the seal to refuse it", tc.name, err)
		}
		body, sealed, err := unseal("part.json", seeds[tc.seed])
		if err != nil || !sealed {
			t.Fatalf("seed %d is not sealed: %v", tc.seed, err)
		}
		data = strings.Replace(data, string(seeds[tc.seed][len(body):]), "", 1)
		_, err = mergeAndReport("part.json", []byte(data), others)
		want := "part.json: a damaged partial sweep: " + tc.field + " "
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "; run its tune --partition again") {
			t.Errorf("%s: %v; want %q…", tc.name, err, want)
		}
	}
}
