package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"ratelab/internal/check"
	"ratelab/internal/printable"
)

// Text from files reaches a terminal only as escapes: a log whose heaviest keys
// hold ESC, CSI, OSC and bidi controls, and an nginx.conf whose names and
// arguments do, go through tune (its report, its JSON) and run --trace --config
// (the notes, the table, the verdicts, the JSON), and nothing the commands print
// holds a character a terminal would act on — while the hostile text is there,
// escaped, where it is shown.
func TestTerminalEscapesNeverReachTheTerminal(t *testing.T) {
	sequentialOnly(t)
	t.Parallel()
	dir := t.TempDir()
	// two minutes: 97 ordinary keys at 20 a second in all, and hostile keys
	// at 40 a second each, the first of them 80: the heaviest, whom tune names
	hostile := []string{"clear\x1b[2Jscreen", "csi\u009b31m", "osc\x1b]0;pwned\x07", "evil\u202egnp.exe", "iso\u2066late", "del\x7f"}
	var log strings.Builder
	fmt.Fprintln(&log, "time_ms,key")
	for ms := 0; ms < 120_000; ms += 5 {
		if ms%50 == 0 {
			fmt.Fprintf(&log, "%d,ordinary-%d\n", ms, (ms/50)%97)
		}
		if ms%25 == 0 {
			for _, k := range hostile {
				fmt.Fprintf(&log, "%d,%s\n", ms, k)
			}
		} else if ms%25 == 10 {
			fmt.Fprintf(&log, "%d,%s\n", ms, hostile[0])
		}
	}
	trace := filepath.Join(dir, "log.csv")
	check.Setup(t, os.WriteFile(trace, []byte(log.String()), 0o644))
	conf := filepath.Join(dir, "nginx.conf")
	check.Setup(t, os.WriteFile(conf, []byte("events {}\nhttp {\n  limit_req_zone $binary_remote_addr zone=a\u202e:1m rate=5r/s;\n  limit_conn_zone $binary_remote_addr zone=c:1m;\n  server { listen 8080; location /x\x1b[2J\u202eyz { limit_req zone=a\u202e burst=2; limit_conn c\x1b]0;t\x07 5; } }\n}\n"), 0o644))

	check := func(what, out string) {
		t.Helper()
		if !utf8.ValidString(out) || !printable.Safe(out) {
			i := strings.IndexFunc(out, func(r rune) bool { return !printable.Safe(string(r)) })
			t.Errorf("%s printed a character a terminal acts on, near %q", what, out[max(0, i-40):min(len(out), i+20)])
		}
	}
	code, out, errOut := ratelab(t, "tune", "--trace", trace)
	check("tune (stdout)", out)
	check("tune (stderr)", errOut)
	if code != 0 || !strings.Contains(out, `clear\x1b[2Jscreen`) {
		t.Errorf("tune: exit %d; want the heavy keys shown escaped:\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = ratelab(t, "tune", "--trace", trace, "--json", "-")
	check("tune --json - (stdout)", out)
	check("tune --json - (stderr)", errOut)
	if code != 0 || !strings.Contains(out, `"clear\u001b[2Jscreen"`) {
		t.Errorf("tune --json: exit %d; want the keys as JSON escapes:\n%.2000s\n%s", code, out, errOut)
	}
	for _, format := range []string{"table", "json"} {
		code, out, errOut = ratelab(t, "run", "--trace", trace, "--config", conf, "--format", format)
		check("run --trace --config --format "+format+" (stdout)", out)
		check("run --trace --config --format "+format+" (stderr)", errOut)
		lane := `location /x\x1b[2J\u202eyz`
		if format == "json" { // the escape's backslash, escaped
			lane = `location /x\\x1b[2J\\u202eyz`
		}
		if code != 0 || !strings.Contains(out, lane) || !strings.Contains(errOut, `limit_conn c\x1b]0`) {
			t.Errorf("run --format %s: exit %d; want the configuration's names shown escaped:\n%.3000s\n%s", format, code, out, errOut)
		}
		// a trace's lanes are judged by ordinary denied and heavy admitted, not
		// by a peak for a key: the keys are in the JSON (the watched key, the
		// heavy ones), escaped
		if format == "json" && !strings.Contains(out, `"clear\u001b[2Jscreen"`) {
			t.Errorf("run --format json: want the heaviest key as a JSON escape:\n%.3000s", out)
		}
		if format == "table" && !strings.Contains(out, `watched: clear\x1b[2Jscreen`) {
			t.Errorf("run --format table: want the watched key shown escaped:\n%.3000s", out)
		}
	}
}
