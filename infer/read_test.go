package infer

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"
)

func refusedStatus(s int) bool { return s == 429 || s == 503 }

// A client log is read in JSON Lines or CSV, times in RFC 3339 or Unix seconds,
// ms, µs or ns by size; a bad line is an error that names its line and the fix.
func TestReadLog(t *testing.T) {
	jsonl := `{"time": "2026-11-28T10:00:00.5Z", "status": 200, "latency_ms": 1.5}
{"time": 1795860000.75, "status": 429, "headers": {"RateLimit-Policy": "\"a\";q=10;w=60"}}

{"time": 1795860001000, "status": 503}
`
	obs, err := ReadLog("c.jsonl", strings.NewReader(jsonl), refusedStatus)
	if err != nil {
		t.Fatal(err)
	}
	want := []Observation{
		{At: time.Duration(time.Date(2026, 11, 28, 10, 0, 0, 5e8, time.UTC).UnixNano()), Status: 200, Latency: 1500 * time.Microsecond},
		{At: 1795860000750 * time.Millisecond, Status: 429, Refused: true},
		{At: 1795860001000 * time.Millisecond, Status: 503, Refused: true},
	}
	if len(obs) != len(want) {
		t.Fatalf("%d observations, want %d", len(obs), len(want))
	}
	for i := range want {
		o, w := obs[i], want[i]
		if o.At != w.At || o.Status != w.Status || o.Refused != w.Refused || o.Latency != w.Latency {
			t.Errorf("line %d: %+v, want %+v", i+1, o, want[i])
		}
	}
	if c := ClaimsFrom(Headers(obs)); len(c) != 1 || c[0].Quota != 10 || c[0].Window != time.Minute {
		t.Errorf("claims %+v, want a quota of 10 per minute", c)
	}
	csv := "time,status,latency_ms\n1795860000,200,0.4\n1795860000.1,429,\n"
	obs, err = ReadLog("c.csv", strings.NewReader(csv), refusedStatus)
	if err != nil || len(obs) != 2 || !obs[1].Refused || obs[0].Latency != 400*time.Microsecond {
		t.Fatalf("CSV: %+v, %v", obs, err)
	}
	for _, bad := range []struct{ name, text, says string }{
		{"c.jsonl", "{\"time\": 1, \"status\": 200}\n{\"time\": 2, \"status\": 2000}\n", "c.jsonl:2: status 2000"},
		{"c.jsonl", "{\"time\": \"yesterday\", \"status\": 200}\n", "c.jsonl:1: time \"yesterday\""},
		{"c.jsonl", "{\"time\": 1, \"status\": 200}\n{nope\n", "c.jsonl:2:"},
		{"c.csv", "when,status\n1,200\n", "no time or no status column"},
		{"c.csv", "time,status\n1,abc\n", "c.csv:2: status \"abc\""},
		{"c.jsonl", "{\"status\": 200}\n", "c.jsonl:1: no time"},
		{"c.jsonl", "{\"time\": 1, \"status\": 200, \"latency_ms\": -3}\n", "latency_ms -3"},
	} {
		_, err := ReadLog(bad.name, strings.NewReader(bad.text), refusedStatus)
		if err == nil || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("%q: error %v, want one saying %q", bad.text, err, bad.says)
		}
	}
}

// What a probe saves, WriteLog, reads back the same.
func TestWriteLogReadsBack(t *testing.T) {
	h := http.Header{}
	h.Set("X-RateLimit-Limit", "20")
	obs := []Observation{
		{At: 1795860000123456789, Status: 200, Latency: 2500 * time.Microsecond, Header: h},
		{At: 1795860000223456789, Status: 429, Refused: true, Latency: 300 * time.Microsecond},
	}
	var b bytes.Buffer
	if err := WriteLog(&b, obs); err != nil {
		t.Fatal(err)
	}
	back, err := ReadLog("saved", &b, refusedStatus)
	if err != nil {
		t.Fatal(err)
	}
	for i := range obs {
		d := back[i].At - obs[i].At
		if d < -time.Microsecond || d > time.Microsecond || back[i].Status != obs[i].Status || back[i].Refused != obs[i].Refused || back[i].Latency != obs[i].Latency {
			t.Errorf("observation %d: %+v read back as %+v", i, obs[i], back[i])
		}
	}
	if back[0].Header.Get("X-RateLimit-Limit") != "20" {
		t.Errorf("headers read back as %v", back[0].Header)
	}
}

// The headers' claims are checked, not trusted: a quota per window holds when a
// consistent hypothesis has that rate (within the rounding of a whole-second
// window) or that size, and fails otherwise.
func TestClaimsAreChecked(t *testing.T) {
	tr := truths()[0] // a token bucket of 5/s and 8
	rep := Analyze(synthetic(tr, 1, 80), 0, []Claim{
		{Header: "RateLimit-Policy", Quota: 5, Window: time.Second},
		{Header: "X-RateLimit-Limit", Quota: 8},
		{Header: "RateLimit-Policy", Quota: 50, Window: time.Second},
	})
	for i, holds := range []bool{true, true, false} {
		if rep.Claims[i].Holds != holds {
			t.Errorf("claim %+v: holds %v, want %v", rep.Claims[i], rep.Claims[i].Holds, holds)
		}
	}
	if rep.Claims[2].Why == "" {
		t.Error("a claim that fails says nothing of what was found")
	}
}
