package scenarios

import (
	"strings"
	"testing"
	"time"

	"ratelab/present"
	"ratelab/sim"
)

// traceScenario is a scenario replaying t.log with extra settings.
func traceScenario(header, client string) string {
	return "[[scenario]]\nname = \"s\"\n" + header + "\n[scenario.policy]\nlimit = 10\n\n[[scenario.client]]\nname = \"log\"\npattern = \"trace\"\nfile = \"t.log\"\n" + client + "\n"
}

// a Common Log spread over three days, out of order, with one line that is not a
// log line
const threeDays = `1.1.1.1 - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 1
2.2.2.2 - - [10/Oct/2000:13:55:35 -0700] "GET /b HTTP/1.1" 200 1
not a log line
1.1.1.1 - - [12/Oct/2000:13:55:40 -0700] "GET /a HTTP/1.1" 200 1
3.3.3.3 - - [13/Oct/2000:13:55:35 -0700] "GET /c HTTP/1.1" 200 1
`

func TestATraceSetsTheDurationAndMayBeLong(t *testing.T) {
	c, err := parse(t, traceScenario("", ""), map[string]string{"t.log": threeDays})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("s", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	// the first second (13:55:35) is the origin; the last row is 3 days later
	if want := 72*time.Hour + time.Second; cfg.Duration != want {
		t.Errorf("duration %s, want the trace's span %s", cfg.Duration, want)
	}
	if cfg.Tick != time.Minute {
		t.Errorf("tick %s, want 1m for three days", cfg.Tick)
	}
	tr := cfg.Clients[0].Pattern.(sim.Trace)
	r := tr.Report
	if r.Rows != 4 || r.PastEnd != 0 || r.Unparsed != 1 || len(r.Shown) != 1 || !strings.HasPrefix(r.Shown[0], "t.log:3: no [time] after the host") {
		t.Errorf("report %+v", r)
	}
	var notes strings.Builder
	present.WriteTraceNotes(&notes, cfg)
	if want := "  trace t.log (clf): 4 requests replayed; 1 line could not be read and was skipped (--strict makes that an error):\n    t.log:3: no [time] after the host, ident and user fields\n"; notes.String() != want {
		t.Errorf("notes:\n%s\nwant:\n%s", notes.String(), want)
	}
	// the rows replay from the origin, in time order
	rows, _ := tr.Open()
	var got []string
	for {
		row, err := rows.Next()
		if err != nil {
			break
		}
		got = append(got, row.At.String()+" "+row.Key)
	}
	if strings.Join(got, ", ") != "0s 2.2.2.2, 1s 1.1.1.1, 48h0m5s 1.1.1.1, 72h0m0s 3.3.3.3" {
		t.Errorf("rows: %v", got)
	}
	if _, err := c.Compile("s", Overrides{Strict: true}); err == nil || !strings.Contains(err.Error(), "t.log:3: no [time] after the host, ident and user fields (with --strict every line must be readable)") {
		t.Errorf("strict: %v", err)
	}
}

func TestTraceRowsAfterTheEndAreCounted(t *testing.T) {
	c, err := parse(t, traceScenario(`duration = "49h"`, `key = "ip+path"`), map[string]string{"t.log": threeDays})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := c.Compile("s", Overrides{})
	r := cfg.Clients[0].Pattern.(sim.Trace).Report
	if r.Rows != 3 || r.PastEnd != 1 || r.CutoffMS != 49*3600*1000 {
		t.Errorf("report %+v; want 3 rows replayed and 1 past the end", r)
	}
	if len(cfg.Keys) != 2 || cfg.Keys[0].Name != "2.2.2.2 /b" {
		t.Errorf("keys %v; want ip+path of the replayed rows only", cfg.Keys)
	}
	var notes strings.Builder
	present.WriteTraceNotes(&notes, cfg)
	if !strings.Contains(notes.String(), "3 requests replayed; 1 row at or after the end (49h0m0s) not replayed") {
		t.Errorf("notes: %s", notes.String())
	}
	if _, err := parse(t, traceScenario(`duration = "50d"`, ""), map[string]string{"t.log": threeDays}); err == nil {
		t.Error("a duration beyond seven weeks was accepted")
	}
}

func TestTraceOutOfOrderBeyondTheWindow(t *testing.T) {
	_, err := parse(t, traceScenario("", `reorder_window = "10s"`), map[string]string{"t.log": threeDays + "4.4.4.4 - - [13/Oct/2000:13:55:00 -0700] \"GET / HTTP/1.1\" 200 1\n"})
	if err == nil || !strings.Contains(err.Error(), "t.log:6: time 2000-10-13T20:55:00Z is 35s behind the latest time read before it (2000-10-13T20:55:35Z, line 5), more than the reorder window of 10s; raise reorder_window") {
		t.Errorf("%v", err)
	}
}
