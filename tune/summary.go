package tune

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"ratelab/internal/printable"
	"ratelab/traces"
)

// A sweep of a log partitioned by key runs in rounds, each a map over the parts
// and a reduce (docs/distributed-tune.md):
//
//  1. scan: each worker reads its part and writes a Summary: every key's volume,
//     peaks, kinds and first appearance, and what each file held — a few
//     dozen bytes a key, whatever the key sent;
//  2. plan: the summaries, merged, are every key of the log, which is what a
//     sweep needs to know about the whole log: the ordinary keys' 99th
//     percentiles and so the bars that make a key heavy, the median, the 99th
//     percentile and the heaviest key, the grids. The Plan holds those, a few
//     kilobytes, and no key but those a report names;
//  3. sweep: each worker replays its part through the plan's policies, its keys
//     classed by the plan's bars, and writes a Partial;
//  4. merge: the partials add up into the report; when layered pairs are
//     swept, which pairs depends on every key's results, so the merge plans
//     one more round of sweeps (Plan.Round 1) whose partials merge into the
//     report with the pairs.
//
// No worker reads another's requests, and the report is the one a run over
// every file of the log prints, byte for byte.

// summaryVersion is the Summary format's version.
const summaryVersion = 1

// Summary is what a worker's part of a log says about its keys.
type Summary struct {
	Version int `json:"ratelab_tune_summary"`
	// Part is the worker's part, K of N.
	Part Partition
	// Read says how the log was read (the format, key, time fields, spread,
	// exclusions…): every part of one sweep is read alike.
	Read string
	// Name names the whole log (the directory or pattern of its parts).
	Name string
	// Files are the files the worker read, with their stats.
	Files   []FileRead
	Count   int64
	MaxCost int64
	Spread  traces.Spread
	// Periods are the periods each key's peaks were measured over.
	Periods []time.Duration
	// Keys are the part's keys, in the order they first appear.
	Keys []SummaryKey `json:"-"`
}

// SummaryKey is one key of a Summary.
type SummaryKey struct {
	Key    string
	Seen   seen
	Volume int64
	// Kinds are its kind (an index in Rules) when it does not stand out over
	// any period, and when it does (see KindOf).
	Kinds [2]uint8
	// Peaks are its peaks over Summary.Periods.
	Peaks []int64
}

// ReadFingerprint is what of o a sweep's parts must share to be one log's.
func ReadFingerprint(o traces.Options) string {
	o.AllowEmpty, o.Details = false, false
	b, _ := json.Marshal(o)
	return string(b)
}

// Scan reads a worker's part of a log and summarizes its keys, their peaks
// measured over the standard periods and any more given.
func Scan(src Source, o traces.Options, part Partition, periods []time.Duration) (*Summary, error) {
	t, err := LoadSource(src, o, LoadOptions{CountOnly: true, FirstSeen: true, Profiles: true, Periods: periods, AllowEmpty: true})
	if err != nil {
		return nil, err
	}
	defer t.Close()
	s := &Summary{Version: summaryVersion, Part: part, Read: ReadFingerprint(o), Name: src.Name, Files: t.files, Count: t.Count, MaxCost: t.maxCost, Spread: o.Spread}
	for _, pp := range t.peaks {
		s.Periods = append(s.Periods, pp.period)
	}
	for k, key := range t.Keys {
		sk := SummaryKey{Key: key, Seen: t.firstSeen[k], Volume: t.Volume[k]}
		plain, _ := KindOf(&t.Profiles[k], false)
		out, _ := KindOf(&t.Profiles[k], true)
		sk.Kinds = [2]uint8{uint8(plain), uint8(out)}
		for _, pp := range t.peaks {
			sk.Peaks = append(sk.Peaks, pp.peak[k])
		}
		s.Keys = append(s.Keys, sk)
	}
	return s, nil
}

// Write writes s as JSON Lines: a line of what the part held, then a line a
// key, [key, at, rank, line, volume, kind, kind standing out, peaks…].
func (s *Summary) Write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	sw := newSealWriter(bw)
	enc := json.NewEncoder(sw)
	if err := enc.Encode(s); err != nil {
		return err
	}
	row := make([]any, 0, 7+len(s.Periods))
	for _, k := range s.Keys {
		row = append(row[:0], keyJSON(k.Key), k.Seen.At, k.Seen.Rank, k.Seen.Line, k.Volume, k.Kinds[0], k.Kinds[1])
		for _, p := range k.Peaks {
			row = append(row, p)
		}
		if err := enc.Encode(row); err != nil {
			return err
		}
	}
	if err := sw.seal(); err != nil {
		return err
	}
	return bw.Flush()
}

// maxLogTime bounds a time a log holds: 200 years from the epoch (a time.Duration
// holds 292).
const maxLogTime = 200 * 365 * 24 * time.Hour

// maxSummaryPeriods bounds the periods a summary measures peaks over.
const maxSummaryPeriods = 4 + maxPeriods // the standard periods, and those swept

// ReadSummary reads a Summary Write wrote; name names it in errors. A summary
// is anyone's file: what is not what a scan writes is refused, naming the line.
func ReadSummary(name string, r io.Reader) (*Summary, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	head, err := br.ReadBytes('\n')
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	h := sha256.New() // the seal's (see seal.go), over the lines as read
	h.Write(head)
	sealed := false
	var s Summary
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s:1: not a summary of ratelab tune scan (%v)", name, err)
	}
	if s.Version != summaryVersion {
		return nil, fmt.Errorf("%s:1: a summary of version %d; this ratelab reads version %d (scan every part with the same ratelab)", name, s.Version, summaryVersion)
	}
	if err := s.checkHead(); err != nil {
		return nil, fmt.Errorf("%s:1: a damaged summary: %v; run its tune scan again", name, err)
	}
	np := len(s.Periods)
	var sum int64
	for line := 2; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(b) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if sealed {
			return nil, fmt.Errorf("%s:%d: a line after the seal; run its tune scan again", name, line)
		}
		if bytes.HasPrefix(b, []byte(sealPrefix)) {
			want := h.Sum(nil)
			var seal struct {
				SHA256 string `json:"sha256"`
			}
			if err := json.Unmarshal(b, &seal); err != nil || seal.SHA256 != hex.EncodeToString(want) {
				return nil, fmt.Errorf("%s: the file is not as it was written (its SHA-256 is not the one it ends with): it was changed or damaged on the way; run its tune scan again", name)
			}
			sealed = true
			continue
		}
		h.Write(b)
		var row []json.RawMessage
		if err := json.Unmarshal(b, &row); err != nil || len(row) != 7+np {
			return nil, fmt.Errorf("%s:%d: not a key's line of a summary (an array of %d values); run its tune scan again", name, line, 7+np)
		}
		var k SummaryKey
		k.Peaks = make([]int64, np)
		if k.Key, err = keyFromJSON(row[0]); err != nil {
			return nil, fmt.Errorf("%s:%d: value 1 of the key's line: %v; run its tune scan again", name, line, err)
		}
		fields := []any{nil, &k.Seen.At, &k.Seen.Rank, &k.Seen.Line, &k.Volume, &k.Kinds[0], &k.Kinds[1]}
		for i := range k.Peaks {
			fields = append(fields, &k.Peaks[i])
		}
		for i, f := range fields {
			if f == nil {
				continue
			}
			if err := json.Unmarshal(row[i], f); err != nil {
				return nil, fmt.Errorf("%s:%d: value %d of the key's line: %v; run its tune scan again", name, line, i+1, err)
			}
		}
		if err := s.checkKey(&k); err != nil {
			return nil, fmt.Errorf("%s:%d: a damaged summary: %v; run its tune scan again", name, line, err)
		}
		sum += k.Volume
		s.Keys = append(s.Keys, k)
	}
	if !sealed {
		return nil, fmt.Errorf("%s: a summary ends with the seal tune scan writes, and this has none: it was cut short; run its tune scan again", name)
	}
	if sum != s.Count {
		return nil, fmt.Errorf("%s: a damaged summary: its keys sent %d requests and it says the part holds %d; run its tune scan again", name, sum, s.Count)
	}
	return &s, nil
}

// checkHead checks the summary's first line against the bounds a scan keeps.
func (s *Summary) checkHead() error {
	switch {
	case s.Part.N < 1 || s.Part.N > maxPartitions || s.Part.K < 0 || s.Part.K >= s.Part.N:
		return bad("Part", "%s is no part of a sweep", s.Part)
	case s.Count < 0 || s.MaxCost < 0 || s.MaxCost > MaxCost:
		return bad("Count", "%d or MaxCost %d is out of range", s.Count, s.MaxCost)
	case len(s.Periods) < len(StandardPeriods) || len(s.Periods) > maxSummaryPeriods:
		return fmt.Errorf("%d periods; a scan measures %d to %d", len(s.Periods), len(StandardPeriods), maxSummaryPeriods)
	case s.Spread != traces.SpreadNone && s.Spread != traces.SpreadUniform:
		return bad("Spread", "%d is no spread ratelab makes", s.Spread)
	}
	for i, p := range s.Periods {
		if p <= 0 || p%time.Microsecond != 0 || slices.Contains(s.Periods[:i], p) {
			return bad(fmt.Sprintf("Periods[%d]", i), "%d ns is not a period a scan measures", int64(p))
		}
	}
	var rows int64
	for i, f := range s.Files {
		st := f.Stats
		switch {
		case f.Rank < 0 || f.Rank > maxPartitions*1024 || st.Rows < 0 || st.Unparsed < 0 || st.Excluded < 0 || st.Resolution < 0:
			return bad(fmt.Sprintf("Files[%d]", i), "is not a file a scan read")
		case int64(len(st.Shown)) != min(st.Unparsed, traces.MaxUnparsedShown):
			return bad(fmt.Sprintf("Files[%d].Stats.Shown", i), "shows %d of %d lines unread; a scan shows the first %d", len(st.Shown), st.Unparsed, traces.MaxUnparsedShown)
		case st.Rows > 0 && (st.First < 0 || st.Last < st.First || st.Last > maxLogTime):
			return bad(fmt.Sprintf("Files[%d].Stats", i), "has times from %d to %d ns, which no log holds", int64(st.First), int64(st.Last))
		case f.Format.Format < traces.FormatAuto || f.Format.Format > traces.FormatJSONL || f.Format.By < traces.FormatGiven || f.Format.By > traces.FormatByName:
			return bad(fmt.Sprintf("Files[%d].Format", i), "is no format ratelab reads")
		}
		rows += st.Rows
	}
	if rows != s.Count {
		return fmt.Errorf("its files hold %d rows and Count is %d", rows, s.Count)
	}
	return nil
}

// checkKey checks one key against the part it is said to be in.
func (s *Summary) checkKey(k *SummaryKey) error {
	switch {
	case k.Volume < 1 || k.Volume > s.Count:
		return fmt.Errorf("key %q sent %d requests, of %d", printable.String(k.Key), k.Volume, s.Count)
	case int(k.Kinds[0]) >= len(Rules) || int(k.Kinds[1]) >= len(Rules):
		return fmt.Errorf("key %q has kinds %v; there are %d", printable.String(k.Key), k.Kinds, len(Rules))
	case !slices.ContainsFunc(s.Files, func(f FileRead) bool { return f.Rank == k.Seen.Rank }):
		return fmt.Errorf("key %q first appears in the file of rank %d, which the part did not read", printable.String(k.Key), k.Seen.Rank)
	case k.Seen.Line < 1:
		return fmt.Errorf("key %q first appears at line %d", printable.String(k.Key), k.Seen.Line)
	}
	for i, p := range k.Peaks {
		if p < 1 || p > k.Volume {
			return fmt.Errorf("key %q peaks at %d over %s, of %d requests", printable.String(k.Key), p, s.Periods[i], k.Volume)
		}
	}
	return nil
}
