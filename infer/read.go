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

// MaxLogLines is the most lines a client log may have.
const MaxLogLines = 1_000_000

// ReadLog reads a client log (JSON Lines when its first non-blank byte is "{",
// else CSV). name is for errors, which give the line and the fix.
func ReadLog(name string, r io.Reader, refused func(int) bool) ([]Observation, []http.Header, error) {
	br := bufio.NewReader(r)
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

func readJSONL(name string, r io.Reader, refused func(int) bool) ([]Observation, []http.Header, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var obs []Observation
	var hs []http.Header
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if len(obs) >= MaxLogLines {
			return nil, nil, fmt.Errorf("%s: more than %d requests; give a shorter log", name, MaxLogLines)
		}
		var l logLine
		if err := json.Unmarshal([]byte(text), &l); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %v (each line is one JSON object: {\"time\": …, \"status\": 429})", name, line, err)
		}
		o, err := observation(string(l.Time), l.Status, l.Latency, refused)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		obs = append(obs, o)
		if len(l.Headers) > 0 {
			h := http.Header{}
			for k, v := range l.Headers {
				h.Set(k, v)
			}
			hs = append(hs, h)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", name, err)
	}
	return obs, hs, nil
}

func readCSV(name string, r io.Reader, refused func(int) bool) ([]Observation, []http.Header, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: no header line (%v); a CSV log starts with time,status[,latency_ms]", name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	ti, ok1 := col["time"]
	si, ok2 := col["status"]
	if !ok1 || !ok2 {
		return nil, nil, fmt.Errorf("%s:1: the header names no time or no status column; a CSV log starts with time,status[,latency_ms]", name)
	}
	li, hasLatency := col["latency_ms"]
	var obs []Observation
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", name, err)
		}
		if len(obs) >= MaxLogLines {
			return nil, nil, fmt.Errorf("%s: more than %d requests; give a shorter log", name, MaxLogLines)
		}
		if ti >= len(rec) || si >= len(rec) {
			return nil, nil, fmt.Errorf("%s:%d: %d fields, fewer than the header's", name, line, len(rec))
		}
		status, err := strconv.Atoi(strings.TrimSpace(rec[si]))
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: status %q is not a number", name, line, rec[si])
		}
		var latency *float64
		if hasLatency && li < len(rec) && strings.TrimSpace(rec[li]) != "" {
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[li]), 64)
			if err != nil {
				return nil, nil, fmt.Errorf("%s:%d: latency_ms %q is not a number", name, line, rec[li])
			}
			latency = &v
		}
		o, err := observation(strings.TrimSpace(rec[ti]), status, latency, refused)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		obs = append(obs, o)
	}
	return obs, nil, nil
}

// observation makes one of a line's fields.
func observation(at string, status int, latencyMS *float64, refused func(int) bool) (Observation, error) {
	t, err := parseTime(strings.Trim(at, `"`))
	if err != nil {
		return Observation{}, err
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
	if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) && v >= 0 {
		switch {
		case v < 1e11:
			return time.Duration(v * float64(time.Second)), nil
		case v < 1e14:
			return time.Duration(v * float64(time.Millisecond)), nil
		case v < 1e17:
			return time.Duration(v * float64(time.Microsecond)), nil
		case v < 9e18:
			return time.Duration(v), nil
		}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, fmt.Errorf("time %q is neither RFC 3339 (2026-11-28T10:00:00.123Z) nor Unix seconds", s)
	}
	if t.Before(time.Unix(0, 0)) || t.Year() > 2200 {
		return 0, fmt.Errorf("time %q is before 1970 or after 2200", s)
	}
	return time.Duration(t.UnixNano()), nil
}
