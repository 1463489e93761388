package infer

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// A client's log, for offline inference: one request a line, JSON Lines or
// CSV (with a header), with these fields:
//
//   - time: when it was sent, RFC 3339 or Unix seconds (a number; with a
//     fraction, or in ms, µs or ns when too large for seconds);
//   - status: the HTTP status of the answer;
//   - latency_ms (optional): how long the answer took, which tells a queue's
//     holds;
//   - headers (optional, JSON Lines): the answer's headers, an object, read for
//     the limits they claim (checked, never trusted).
//
// Other fields are ignored. Refused says which statuses are refusals.

// MaxLogLines is the most requests a client log may have: the fit scans every
// variant's grid over every request (about 5 s for 10,000 on two cores), so a
// longer log is cut to its last part by the user, where the limit is met.
const MaxLogLines = 20_000

// maxLineBytes is the longest line a client log may have.
const maxLineBytes = 1 << 20

// ReadLog reads a client log (JSON Lines when its first non-blank byte is "{",
// else CSV). name is for errors, which give the line and the fix.
func ReadLog(name string, r io.Reader, refused func(int) bool) ([]Observation, error) {
	br := bufio.NewReader(&lineLimit{r: r, name: name})
	first, _ := br.Peek(1)
	for len(first) == 1 && (first[0] == ' ' || first[0] == '\n' || first[0] == '\r' || first[0] == '\t') {
		br.ReadByte()
		first, _ = br.Peek(1)
	}
	if len(first) == 1 && first[0] == '{' {
		return readJSONL(name, br, refused)
	}
	return readCSV(name, br, refused)
}

type logLine struct {
	Time    json.RawMessage   `json:"time"`
	Status  int               `json:"status"`
	Latency *float64          `json:"latency_ms"`
	Headers map[string]string `json:"headers"`
}

func readJSONL(name string, r io.Reader, refused func(int) bool) ([]Observation, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLineBytes+1)
	var obs []Observation
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if len(obs) >= MaxLogLines {
			return nil, fmt.Errorf("%s: more than %d requests; give the part of the log around the refusals (the last %d lines, say)", name, MaxLogLines, MaxLogLines)
		}
		var l logLine
		if err := json.Unmarshal([]byte(text), &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %v (each line is one JSON object: {\"time\": …, \"status\": 429})", name, line, err)
		}
		o, err := observation(string(l.Time), l.Status, l.Latency, refused)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if len(l.Headers) > 0 {
			o.Header = http.Header{}
			for k, v := range l.Headers {
				o.Header.Set(k, v)
			}
		}
		obs = append(obs, o)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return obs, nil
}

func readCSV(name string, r io.Reader, refused func(int) bool) ([]Observation, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: no header line (%v); a CSV log starts with time,status[,latency_ms]", name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	ti, ok1 := col["time"]
	si, ok2 := col["status"]
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%s:1: the header names no time or no status column; a CSV log starts with time,status[,latency_ms]", name)
	}
	li, hasLatency := col["latency_ms"]
	var obs []Observation
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		if len(obs) >= MaxLogLines {
			return nil, fmt.Errorf("%s: more than %d requests; give the part of the log around the refusals (the last %d lines, say)", name, MaxLogLines, MaxLogLines)
		}
		if ti >= len(rec) || si >= len(rec) {
			return nil, fmt.Errorf("%s:%d: %d fields, fewer than the header's", name, line, len(rec))
		}
		status, err := strconv.Atoi(strings.TrimSpace(rec[si]))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: status %q is not a number", name, line, rec[si])
		}
		var latency *float64
		if hasLatency && li < len(rec) && strings.TrimSpace(rec[li]) != "" {
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[li]), 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: latency_ms %q is not a number", name, line, rec[li])
			}
			latency = &v
		}
		o, err := observation(strings.TrimSpace(rec[ti]), status, latency, refused)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		obs = append(obs, o)
	}
	return obs, nil
}

// observation makes one of a line's fields.
func observation(at string, status int, latencyMS *float64, refused func(int) bool) (Observation, error) {
	t, err := parseTime(strings.Trim(at, `"`))
	if err != nil {
		return Observation{}, err
	}
	if status == 0 {
		return Observation{}, fmt.Errorf("no status; give the HTTP status of each answer (status)")
	}
	if status < 100 || status > 599 {
		return Observation{}, fmt.Errorf("status %d is not an HTTP status (100 to 599)", status)
	}
	o := Observation{At: t, Status: status, Refused: refused(status)}
	if latencyMS != nil {
		if !(*latencyMS >= 0 && *latencyMS < 1e9) {
			return Observation{}, fmt.Errorf("latency_ms %g is not a duration in ms", *latencyMS)
		}
		o.Latency = time.Duration(*latencyMS * float64(time.Millisecond))
	}
	return o, nil
}

// parseTime reads an instant: RFC 3339, or Unix seconds, ms, µs or ns by size.
func parseTime(s string) (time.Duration, error) {
	if s == "" {
		return 0, fmt.Errorf("no time; give the time each request was sent (RFC 3339 or Unix seconds)")
	}
	if d, ok := unixTime(s); ok {
		if d > time.Duration(time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()) {
			return 0, fmt.Errorf("time %s is after 2200", s)
		}
		return d, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err == nil && t.Year() > 2200 {
		err = fmt.Errorf("after 2200")
	}
	if err != nil {
		return 0, fmt.Errorf("time %q is neither RFC 3339 (2026-11-28T10:00:00.123Z) nor Unix seconds", s)
	}
	if t.Before(time.Unix(0, 0)) || t.Year() > 2200 {
		return 0, fmt.Errorf("time %q is before 1970 or after 2200", s)
	}
	return time.Duration(t.UnixNano()), nil
}

// WriteLog writes observations as a client log in JSON Lines (the format
// ReadLog reads): time in Unix seconds with nanoseconds, status, latency_ms,
// and each answer's headers when known.
func WriteLog(w io.Writer, obs []Observation) error {
	bw := bufio.NewWriter(w)
	for _, o := range obs {
		line := map[string]any{
			"time":       json.Number(strconv.FormatFloat(o.At.Seconds(), 'f', 9, 64)),
			"status":     o.Status,
			"latency_ms": json.Number(strconv.FormatFloat(float64(o.Latency)/float64(time.Millisecond), 'f', 3, 64)),
		}
		if len(o.Header) > 0 {
			h := map[string]string{}
			for k := range o.Header {
				h[k] = o.Header.Get(k)
			}
			line["headers"] = h
		}
		b, err := json.Marshal(line)
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// unixTime reads a Unix time written as a decimal number, exactly (no float):
// seconds, ms, µs or ns by the size of its whole part.
func unixTime(s string) (time.Duration, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(whole) > 19 || strings.Trim(whole, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		return 0, false
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, false
	}
	var unit time.Duration
	switch {
	case w < 1e11:
		unit = time.Second
	case w < 1e14:
		unit = time.Millisecond
	case w < 1e17:
		unit = time.Microsecond
	default:
		unit = time.Nanosecond
	}
	if w > int64(math.MaxInt64/unit) {
		return 0, false
	}
	d := time.Duration(w) * unit
	// the fraction, to the nanosecond
	for i, scale := 0, unit/10; i < len(frac) && scale > 0; i, scale = i+1, scale/10 {
		d += time.Duration(frac[i]-'0') * scale
	}
	return d, true
}

// lineLimit passes r through, failing once a line runs past maxLineBytes (a
// file of no line breaks, /dev/zero), before a reader buffers it whole.
type lineLimit struct {
	r    io.Reader
	name string
	line int   // bytes since the last line break
	n    int64 // lines so far
}

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for _, c := range p[:n] {
		if c == '\n' {
			l.line = 0
			l.n++
			continue
		}
		if l.line++; l.line > maxLineBytes {
			return 0, fmt.Errorf("%s:%d: a line longer than %d bytes; a client log has a request a line", l.name, l.n+1, maxLineBytes)
		}
	}
	return n, err
}
