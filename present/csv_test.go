package present

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

func TestCSVFields(t *testing.T) {
	for in, want := range map[string]string{"plain": "plain", "a,b": `"a,b"`, `say "hi"`: `"say ""hi"""`, " pad": `" pad"`, "": ""} {
		if got := CSVField(in); got != want {
			t.Errorf("CSVField(%q) = %s, want %s", in, got, want)
		}
	}
	for d, want := range map[time.Duration]string{0: "0.000", 1500 * time.Microsecond: "1.500", 12345678 * time.Microsecond: "12345.678", -time.Millisecond: "-1.000"} {
		if got := string(appendMillis(nil, d)); got != want {
			t.Errorf("appendMillis(%v) = %s, want %s", d, got, want)
		}
	}
	for v, want := range map[float64]string{0: "0", 0.5: "0.5", 2.0 / 3: "0.666667", -1e-9: "0", 99: "99"} {
		if got := string(appendDecimal(nil, v)); got != want {
			t.Errorf("appendDecimal(%g) = %s, want %s", v, got, want)
		}
	}
}

func TestExactMillis(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0.000000", time.Nanosecond: "0.000001", 1500*time.Millisecond + 3: "1500.000003",
		-286752 * time.Microsecond: "-286.752000", 999999: "0.999999",
	} {
		if got := string(appendExactMillis(nil, d)); got != want {
			t.Errorf("%d ns: %s, want %s", int64(d), got, want)
		}
	}
}

// A client's name that CSV must quote makes request_id one quoted cell, as
// CSVField(name+"-"+n) quotes it: a reader gets the name, "-" and the number
// back, and every row has the header's cells.
func TestRequestIDCellOfNamesToQuote(t *testing.T) {
	names := []string{"plain", `a,b "c"`, " spacey ", "trail ", "line\nbreak", ""}
	var clients []sim.Client
	for _, n := range names {
		clients = append(clients, sim.Client{Name: n})
	}
	p := algorithms.Policy{Limit: 10, Period: time.Second, Burst: 10}
	cfg := newConfig(p, time.Second, []sim.LaneConfig{lane("tb", "token-bucket")}, clients...)
	var rows []sim.Row
	for c := range names {
		for _, n := range []int64{1, 7, 12345} {
			rows = append(rows, sim.Row{Client: c, Request: n, Attempt: 1, Cost: 1, Allowed: true, Shard: -1})
		}
	}
	var b bytes.Buffer
	w, err := NewRequestWriter(&b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	text := b.String()
	records, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatalf("the request CSV does not read back: %v\n%s", err, text)
	}
	column := slices.Index(records[0], "request_id")
	for i, row := range rows {
		record := records[i+1]
		if len(record) != len(records[0]) {
			t.Errorf("row %d has %d cells under %d columns", i+1, len(record), len(records[0]))
			continue
		}
		if want := fmt.Sprintf("%s-%d", names[row.Client], row.Request); record[column] != want {
			t.Errorf("request_id of client %q, request %d: %q, want %q", names[row.Client], row.Request, record[column], want)
		}
	}
	if !strings.Contains(text, `,"a,b ""c""-7",`) || !strings.Contains(text, `," spacey -1",`) || !strings.Contains(text, ",trail -1,") {
		t.Errorf("request_id cells not quoted as CSVField(name-n) quotes them:\n%s", text)
	}
}
