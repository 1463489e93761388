package traces

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"ratelab/internal/tracegen"
)

type nopCloser struct{ io.Reader }

func (nopCloser) Close() error { return nil }

// readAll reads every row of data with o, and the error that ended the read
// (nil at the end of the file).
func readAll(t *testing.T, name, data string, o Options) ([]Row, Stats, error) {
	t.Helper()
	r, err := Open(name, nopCloser{strings.NewReader(data)}, o)
	if err != nil {
		return nil, Stats{}, err
	}
	var rows []Row
	for {
		row, err := r.Next()
		if err == io.EOF {
			return rows, r.Stats(), nil
		}
		if err != nil {
			return rows, r.Stats(), err
		}
		rows = append(rows, row)
	}
}

func show(rows []Row) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%d %s %d @%d\n", r.At/time.Microsecond, r.Key, r.Cost, r.Line)
	}
	return b.String()
}

const combined = `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"
10.0.0.2 - - [10/Oct/2000:13:55:37 -0700] "POST /api/items?id=3 HTTP/1.1" 201 - "-" "curl/8.0"
10.0.0.2 - - [10/Oct/2000:20:55:35 +0000] "GET /say \"hi\" HTTP/1.1" 200 12
`

// 10/Oct/2000:13:55:36 -0700 is 20:55:36 UTC: 971211336 s after the epoch.
const oct10 int64 = 971211336

func TestCommonAndCombinedLogLines(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"", fmt.Sprintf("%d 10.0.0.2 1 @3\n%d 127.0.0.1 1 @1\n%d 10.0.0.2 1 @2\n", (oct10-1)*1e6, oct10*1e6, (oct10+1)*1e6)},
		{"user", ""},
		{"ip+path", fmt.Sprintf("%d 10.0.0.2 /say 1 @3\n%d 127.0.0.1 /apache_pb.gif 1 @1\n%d 10.0.0.2 /api/items 1 @2\n", (oct10-1)*1e6, oct10*1e6, (oct10+1)*1e6)},
		{"method", fmt.Sprintf("%d GET 1 @3\n%d GET 1 @1\n%d POST 1 @2\n", (oct10-1)*1e6, oct10*1e6, (oct10+1)*1e6)},
	} {
		rows, st, err := readAll(t, "a.log", combined, Options{Format: FormatCLF, Key: tc.key})
		if tc.key == "user" {
			// only frank has a user: the others are "-", which is a value
			if err != nil || len(rows) != 3 || rows[1].Key != "frank" || rows[0].Key != "-" {
				t.Errorf("key user: %v %q", err, show(rows))
			}
			continue
		}
		if err != nil {
			t.Fatalf("key %q: %v", tc.key, err)
		}
		if got := show(rows); got != tc.want {
			t.Errorf("key %q:\n%s\nwant:\n%s", tc.key, got, tc.want)
		}
		if !st.Dated || st.Rows != 3 || st.Unparsed != 0 || st.First != time.Duration(oct10-1)*time.Second || st.Resolution != time.Second {
			t.Errorf("key %q: stats %+v", tc.key, st)
		}
	}
}

func TestUnreadableLinesAreCountedShownOrStrict(t *testing.T) {
	data := "garbage\n" + combined + "1.2.3.4 - - [99/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 1\n\n1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] unquoted\n"
	rows, st, err := readAll(t, "a.log", data, Options{Format: FormatCLF})
	if err != nil || len(rows) != 3 {
		t.Fatalf("%v, %d rows", err, len(rows))
	}
	if st.Unparsed != 3 || len(st.Shown) != 3 {
		t.Fatalf("unparsed %d, shown %v; want 3", st.Unparsed, st.Shown)
	}
	for i, want := range []string{"1: not a Common/Combined Log line: no space after the host", "5: time [99/Oct/2000:13:55:36 -0700] is not", "7: no quoted \"request\" after the time"} {
		if got := fmt.Sprintf("%d: %s", st.Shown[i].Line, st.Shown[i].Why); !strings.HasPrefix(got, want) {
			t.Errorf("problem %d: %q, want %q…", i, got, want)
		}
	}
	_, _, err = readAll(t, "a.log", data, Options{Format: FormatCLF, Strict: true})
	if err == nil || !strings.HasPrefix(err.Error(), "a.log:1: not a Common/Combined Log line") || !strings.Contains(err.Error(), "--strict") {
		t.Errorf("strict: %v", err)
	}
	many := strings.Repeat("x\n", 20) + combined
	_, st, _ = readAll(t, "a.log", many, Options{Format: FormatCLF})
	if st.Unparsed != 20 || len(st.Shown) != MaxUnparsedShown {
		t.Errorf("20 bad lines: counted %d, shown %d; want 20 and %d", st.Unparsed, len(st.Shown), MaxUnparsedShown)
	}
}

func TestReorderWindow(t *testing.T) {
	csv := "time_ms,key\n5000,a\n4000,b\n5500,c\n1000,d\n"
	rows, _, err := readAll(t, "t.csv", csv, Options{ReorderWindow: 5 * time.Second})
	if err != nil || show(rows) != "1000000 d 1 @5\n4000000 b 1 @3\n5000000 a 1 @2\n5500000 c 1 @4\n" {
		t.Errorf("within the window: %v\n%s", err, show(rows))
	}
	_, _, err = readAll(t, "t.csv", csv, Options{ReorderWindow: 2 * time.Second})
	want := "t.csv:5: time 1000.000ms is 4.5s behind the latest time read before it (5500.000ms, line 4), more than the reorder window of 2s; raise reorder_window (--reorder-window) to at least that, or sort the file by time"
	if err == nil || err.Error() != want {
		t.Errorf("beyond the window:\n got %v\nwant %s", err, want)
	}
	// the bound is exact: a row exactly the window behind is still in order
	if _, _, err := readAll(t, "t.csv", "time_ms,key\n3000,a\n1000,b\n", Options{ReorderWindow: 2 * time.Second}); err != nil {
		t.Errorf("a row exactly the window behind: %v", err)
	}
}

func TestSpreadUniform(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "10.0.0.%d - - [10/Oct/2000:13:55:3%d -0700] \"GET / HTTP/1.1\" 200 1\n", i%7, i/500)
	}
	none, _, _ := readAll(t, "a.log", b.String(), Options{Format: FormatCLF})
	uni, _, err := readAll(t, "a.log", b.String(), Options{Format: FormatCLF, Spread: SpreadUniform, Seed: 1})
	again, _, _ := readAll(t, "a.log", b.String(), Options{Format: FormatCLF, Spread: SpreadUniform, Seed: 1})
	other, _, _ := readAll(t, "a.log", b.String(), Options{Format: FormatCLF, Spread: SpreadUniform, Seed: 2})
	if err != nil || len(uni) != 1000 {
		t.Fatal(err, len(uni))
	}
	if show(uni) != show(again) {
		t.Error("the same seed spread the rows differently")
	}
	if show(uni) == show(other) {
		t.Error("another seed spread the rows the same way")
	}
	var halves [2][2]int // per second, rows in its first and second half
	for i, r := range uni {
		sec := (r.At - none[0].At) / time.Second
		if sec < 0 || sec > 1 {
			t.Fatalf("row at %v left its second", r.At)
		}
		halves[sec][(r.At-none[0].At)%time.Second/(500*time.Millisecond)]++
		if i > 0 && r.At < uni[i-1].At {
			t.Fatal("spread rows are not in time order")
		}
	}
	for s, h := range halves {
		if h[0] < 200 || h[1] < 200 {
			t.Errorf("second %d: %v rows in its two halves; want about 250 each", s, h)
		}
	}
	for _, r := range none {
		if r.At%time.Second != 0 {
			t.Fatalf("spread none moved a row to %v", r.At)
		}
	}
}

func TestJSONLines(t *testing.T) {
	data := `{"ts":"2000-10-10T20:55:36Z","user":"ann","tokens":3}
{"ts":971211337.5,"user":"bob"}
{"ts":971211338250,"user":42,"tokens":2}
{"ts":"yesterday","user":"ann"}
{"user":"ann"}
{"ts":"2000-10-10T20:55:39.125Z"}
not json
`
	rows, st, err := readAll(t, "a.jsonl", data, Options{Format: FormatJSONL, TimeField: "ts", Key: "user", CostField: "tokens"})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d ann 3 @1\n%d bob 1 @2\n%d 42 2 @3\n", oct10*1e6, oct10*1e6+1_500_000, oct10*1e6+2_250_000)
	if show(rows) != want {
		t.Errorf("rows:\n%s\nwant:\n%s", show(rows), want)
	}
	if st.Unparsed != 4 {
		t.Errorf("unparsed %d; want 4 (%v)", st.Unparsed, st.Shown)
	}
	for i, w := range []string{`ts "yesterday" is not an RFC 3339 time`, `no field "ts" for the time (fields: user)`, `no field "user" for the key (fields: ts)`, "not a JSON object"} {
		if !strings.Contains(st.Shown[i].Why, w) {
			t.Errorf("problem %d: %q, want %q", i, st.Shown[i].Why, w)
		}
	}
	_, _, err = readAll(t, "a.jsonl", data, Options{Format: FormatJSONL, TimeField: "when", Key: "user"})
	if err == nil || !strings.Contains(err.Error(), `a.jsonl: none of its 7 lines could be read as jsonl; the first: a.jsonl:1: no field "when" for the time`) {
		t.Errorf("a time field that does not exist: %v", err)
	}
}

func TestCSVWithAHeaderMapping(t *testing.T) {
	data := "\xEF\xBB\xBFwhen,client,route,weight\n2000-10-10T20:55:36Z,1.2.3.4,/a,2\n971211337,1.2.3.4,/b,1\n"
	rows, _, err := readAll(t, "a.csv", data, Options{TimeField: "when", Key: "client+route", CostField: "weight"})
	want := fmt.Sprintf("%d 1.2.3.4 /a 2 @2\n%d 1.2.3.4 /b 1 @3\n", oct10*1e6, (oct10+1)*1e6)
	if err != nil || show(rows) != want {
		t.Errorf("%v\n%s\nwant:\n%s", err, show(rows), want)
	}
	_, _, err = readAll(t, "a.csv", data, Options{Key: "client"})
	if err == nil || err.Error() != `a.csv:1: the header (when,client,route,weight) has no column "time" for the time; set time_field to one of its columns` {
		t.Errorf("a missing time column: %v", err)
	}
	_, _, err = readAll(t, "a.csv", data, Options{TimeField: "when", Key: "ip"})
	if err == nil || !strings.Contains(err.Error(), `no column "ip" for the key; set key`) {
		t.Errorf("a missing key column: %v", err)
	}
	// ratelab's own format: milliseconds from the start, not dated
	rows, st, err := readAll(t, "t.csv", "\xEF\xBB\xBFtime_ms,key,cost\n0.5,a,2\n", Options{})
	if err != nil || st.Dated || show(rows) != "500 a 2 @2\n" {
		t.Errorf("time_ms,key,cost with a byte-order mark: %v %+v %s", err, st, show(rows))
	}
}

// A file that cannot be read at all is said to be unreadable, and a folder to be
// one, with what to give instead, whether the format is given or not: not a
// file whose lines tell no format (whose advice, to give the format, then
// failed with "read DIR: is a directory").
func TestUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []Options{{}, {Format: FormatCSV}} {
		f, err := os.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Open("logs", f, o)
		if want := "logs is a directory, not a request log; give the log file itself"; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("format %v: a folder: %v; want %q…", o.Format, err, want)
		}
		_, err = Open("x.csv", nopCloser{iotest.ErrReader(syscall.EIO)}, o)
		if want := "x.csv cannot be read: input/output error"; err == nil || err.Error() != want {
			t.Errorf("format %v: an I/O error: %v; want %q", o.Format, err, want)
		}
	}
}

func TestGzipAndEmptyFiles(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(combined))
	w.Close()
	rows, _, err := readAll(t, "a.log.gz", gz.String(), Options{Format: FormatCLF})
	if err != nil || len(rows) != 3 {
		t.Errorf("gzip: %v, %d rows", err, len(rows))
	}
	for _, tc := range []struct {
		data string
		o    Options
		want string
	}{
		{"", Options{}, "e.csv: the file is empty; want a header row"},
		{"time_ms,key\n", Options{}, "e.csv: the trace has no requests; give a file with at least one"},
		{"", Options{Format: FormatCLF}, "e.csv: the trace has no requests"},
		{"\x1f\x8bnot really", Options{}, "e.csv: gzip: "},
	} {
		_, _, err := readAll(t, "e.csv", tc.data, tc.o)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q…", tc.data, err, tc.want)
		}
	}
}

func TestFormatNames(t *testing.T) {
	for name, want := range map[string]Format{"x.log": FormatCLF, "x.log.gz": FormatCLF, "X.JSONL": FormatJSONL, "x.csv.gz": FormatCSV, "access_log.txt": FormatCLF} {
		if f, ok := FormatOf(name); !ok || f != want {
			t.Errorf("FormatOf(%q) = %v, %v; want %v", name, f, ok, want)
		}
	}
	for _, name := range []string{"access_log", "apache_logs.gz", "x.bin"} {
		if f, ok := FormatOf(name); ok {
			t.Errorf("FormatOf(%q) = %v; a name without a known extension says nothing", name, f)
		}
	}
	if _, err := ParseFormat("apache"); err == nil {
		t.Error("ParseFormat accepted apache")
	}
}

// A file whose format is not given is read as its first lines say, whatever its
// name (gzipped or not), and the reader says which format it chose and how; a
// name that says one format over content in another reads the content's.
func TestFormatByContent(t *testing.T) {
	common := "127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] \"GET /apache_pb.gif HTTP/1.0\" 200 2326\n"
	jsonl := `{"time":"2000-10-10T20:55:36Z","key":"a"}` + "\n" + `{"time":"2000-10-10T20:55:37Z","key":"b"}` + "\n"
	csvData := "time_ms,key\n0,a\n5,b\n"
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	for _, tc := range []struct {
		name, data string
		format     Format
		layout     string
		by         FormatSource
	}{
		{"apache_logs", combined, FormatCLF, "Combined Log Format", FormatByContent},
		{"apache_logs.gz", gz(combined), FormatCLF, "Combined Log Format", FormatByContent},
		{"x", common, FormatCLF, "Common Log Format", FormatByContent},
		{"access.log", combined, FormatCLF, "Combined Log Format", FormatByName},
		{"events", jsonl, FormatJSONL, "JSON Lines", FormatByContent},
		{"app.log", jsonl, FormatJSONL, "JSON Lines", FormatByContent},
		{"trace", csvData, FormatCSV, "CSV with the header time_ms,key", FormatByContent},
		{"t.csv", csvData, FormatCSV, "CSV with the header time_ms,key", FormatByName},
		{"x", "\n\n" + "garbage line\n" + combined, FormatCLF, "Combined Log Format", FormatByContent},
	} {
		r, err := Open(tc.name, nopCloser{strings.NewReader(tc.data)}, Options{})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		d := r.Format()
		if d.Format != tc.format || d.Layout != tc.layout || d.By != tc.by {
			t.Errorf("%s: read as %+v; want %v, %q, by %d", tc.name, d, tc.format, tc.layout, tc.by)
		}
		if _, err := r.Next(); err != nil {
			t.Errorf("%s: the first row: %v", tc.name, err)
		}
	}
	if d, _ := Sniff([]byte(combined)); d.String() != "Combined Log Format (told by its content)" {
		t.Errorf("String: %q", d.String())
	}
	// given: no sniffing, even against the content
	if r, err := Open("x", nopCloser{strings.NewReader(jsonl)}, Options{Format: FormatCLF}); err != nil || r.Format().By != FormatGiven || r.Format().Format != FormatCLF {
		t.Errorf("a given format: %v %+v", err, r.Format())
	}
	// neither name nor content: an UnknownFormatError naming the first line
	for _, data := range []string{"hello world\nsecond line\n", ""} {
		_, err := Open("mystery.bin", nopCloser{strings.NewReader(data)}, Options{})
		var unknown *UnknownFormatError
		if !errors.As(err, &unknown) || !strings.Contains(err.Error(), "cannot tell the format of mystery.bin") || data != "" && !strings.Contains(err.Error(), `"hello world"`) {
			t.Errorf("%q: %v", data, err)
		}
	}
}

func TestCivilDates(t *testing.T) {
	for _, d := range []time.Time{time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2000, 2, 29, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(1600, 3, 1, 0, 0, 0, 0, time.UTC)} {
		if got := daysFromCivil(int64(d.Year()), int64(d.Month()), int64(d.Day())); got*86400 != d.Unix() {
			t.Errorf("%v: %d days, want %d", d, got, d.Unix()/86400)
		}
	}
}

// generatedLog is a Combined Log of n-ish lines from tracegen.
func generatedLog(b testing.TB, seconds int) []byte {
	var buf bytes.Buffer
	_, err := tracegen.Write(&buf, tracegen.Spec{Start: time.Date(2026, 3, 1, 0, 0, 0, 0, time.FixedZone("", -7*3600)), Duration: time.Duration(seconds) * time.Second,
		Seed: 1, Users: 2000, UserPages: 0.05, Abusers: 3, AbuserRate: 20, Crawlers: 1, CrawlerRate: 5, Slowest: 3 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

func TestGeneratedLogReadsWhole(t *testing.T) {
	data := generatedLog(t, 120)
	lines := bytes.Count(data, []byte{'\n'})
	rows, st, err := readAll(t, "g.log", string(data), Options{Format: FormatCLF, ReorderWindow: 5 * time.Second})
	if err != nil || int64(lines) != st.Rows || len(rows) != lines || st.Unparsed != 0 {
		t.Fatalf("%v: %d of %d lines read, %d unparsed", err, st.Rows, lines, st.Unparsed)
	}
	// written out of order (by completion), read in order
	if _, _, err := readAll(t, "g.log", string(data), Options{Format: FormatCLF, ReorderWindow: time.Second}); err == nil {
		t.Error("a log up to 3 s out of order read within a 1 s window")
	}
}

// BenchmarkParseCombined reads a generated Combined Log (about 1 M lines in
// memory) through the whole reader — parse, intern, reorder window — and reports
// lines per second on one core, against the target of 1 M.
func BenchmarkParseCombined(b *testing.B) {
	data := generatedLog(b, 3000)
	lines := bytes.Count(data, []byte{'\n'})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		r, err := Open("g.log", nopCloser{bytes.NewReader(data)}, Options{Format: FormatCLF})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != lines {
			b.Fatalf("read %d of %d lines", n, lines)
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	// per second of the process's CPU time: one core's rate even on a busy machine
	b.ReportMetric(float64(lines)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "lines/cpu-s")
}

// cpuTime is the CPU time (user and system) the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// FuzzReaders: whatever the bytes, every format's reader hands out rows in time
// order or an error, and never panics.
func FuzzReaders(f *testing.F) {
	f.Add([]byte(combined))
	f.Add([]byte("time_ms,key,cost\n0.5,a,2\n0.2,b,1\n"))
	f.Add([]byte(`{"time":"2000-10-10T20:55:36Z","key":"a","cost":2}` + "\n" + `{"time":971211336.5,"key":3}`))
	f.Add([]byte("\xEF\xBB\xBF1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET /a\\\" b HTTP/1.1\" 200 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []Format{FormatAuto, FormatCLF, FormatJSONL, FormatCSV} {
			for _, spread := range []Spread{SpreadNone, SpreadUniform} {
				r, err := Open("f", nopCloser{bytes.NewReader(data)}, Options{Format: format, Spread: spread, ReorderWindow: time.Minute, MaxCost: 100})
				if err != nil {
					continue
				}
				last := time.Duration(-1 << 63)
				for n := 0; ; n++ {
					row, err := r.Next()
					if err != nil {
						break
					}
					if row.At < last {
						t.Fatalf("%v: row %d at %v after %v", format, n, row.At, last)
					}
					if row.Cost < 1 || row.Cost > 100 || row.Key == "" && r.Format().Format != FormatCSV {
						t.Fatalf("%v: row %+v", format, row)
					}
					last = row.At
				}
			}
		}
	})
}

func TestByteOrderMarkBeforeALogLine(t *testing.T) {
	rows, st, err := readAll(t, "a.log", "\xEF\xBB\xBF"+combined, Options{Format: FormatCLF})
	if err != nil || len(rows) != 3 || st.Unparsed != 0 {
		t.Errorf("%v, %d rows, %d unparsed", err, len(rows), st.Unparsed)
	}
}

// A time outside what ratelab can place — before 1970 or after 2262, where a
// time.Duration from the epoch would overflow — is an unreadable line, counted
// and shown, never wrapped around into a time that is not the line's.
func TestTimesOutsideTheRangeAreUnreadable(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		o          Options
		why        string
	}{
		{"far.log", `10.0.0.1 - - [10/Oct/2300:00:00:00 +0000] "GET / HTTP/1.1" 200 1
10.0.0.1 - - [10/Oct/2000:00:00:00 +0000] "GET / HTTP/1.1" 200 1
`, Options{Format: FormatCLF}, "time 2300-10-10T00:00:00Z is outside 1970-01-01 to 2262-04-11, the times ratelab can place"},
		{"old.log", `10.0.0.1 - - [10/Oct/1600:00:00:00 +0000] "GET / HTTP/1.1" 200 1
10.0.0.1 - - [10/Oct/2000:00:00:00 +0000] "GET / HTTP/1.1" 200 1
`, Options{Format: FormatCLF}, "time 1600-10-10T00:00:00Z is outside 1970-01-01 to 2262-04-11, the times ratelab can place"},
		{"far.jsonl", `{"time":"9999-01-01T00:00:00Z","key":"a"}
{"time":"2000-10-10T00:00:00Z","key":"a"}
`, Options{Format: FormatJSONL}, "time 9999-01-01T00:00:00Z is outside 1970-01-01 to 2262-04-11, the times ratelab can place"},
	} {
		rows, st, err := readAll(t, tc.name, tc.data, tc.o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(rows) != 1 || rows[0].At != 971136000*time.Second || st.Unparsed != 1 || len(st.Shown) != 1 || st.Shown[0].Line != 1 || st.Shown[0].Why != tc.why {
			t.Errorf("%s: rows %q, %d unparsed, shown %+v; want the 2000 row alone and line 1 shown: %q", tc.name, show(rows), st.Unparsed, st.Shown, tc.why)
		}
	}
}

// A line longer than MaxLineBytes (a file with no newline: /dev/zero) is an
// error naming its line, in every format, not read whole into memory.
func TestLineTooLong(t *testing.T) {
	long := strings.Repeat("a", MaxLineBytes+1) + "\n"
	for _, f := range []Format{FormatCLF, FormatJSONL, FormatCSV} {
		r, err := Open("long.log", io.NopCloser(strings.NewReader(long)), Options{Format: f, Key: "ip"})
		for err == nil {
			_, err = r.Next()
		}
		var tooLong *LineTooLongError
		if !errors.As(err, &tooLong) || tooLong.Line != 1 {
			t.Errorf("%v: reading a line of %d bytes ended with %v, want line 1 too long", f, MaxLineBytes+1, err)
		}
	}
}

// cost_field "none" reads no cost: every request costs 1, in CSV and JSON
// Lines, and a Common Log (whose requests cost 1 anyway) takes it.
func TestNoCost(t *testing.T) {
	for _, c := range []struct {
		name, data string
		format     Format
	}{
		{"a.csv", "time_ms,key,cost\n0,a,5\n10,b,7\n", FormatCSV},
		{"a.jsonl", "{\"time\": 0, \"key\": \"a\", \"cost\": 5}\n{\"time\": 0.01, \"key\": \"b\", \"cost\": 7}\n", FormatJSONL},
		{"a.log", "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 1\n", FormatCLF},
	} {
		r, err := Open(c.name, io.NopCloser(strings.NewReader(c.data)), Options{Format: c.format, CostField: NoCost})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		n := 0
		for {
			row, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if row.Cost != 1 {
				t.Errorf("%s: row %d costs %d with cost_field none, want 1", c.name, n, row.Cost)
			}
			n++
		}
		if n == 0 {
			t.Errorf("%s: no rows", c.name)
		}
	}
}

// A key of several values is one client only when every value is the same:
// ("x y", "z") and ("x", "y z") are two, in JSON Lines and in CSV, as are
// ("a\", " b") and ("a", "\ b"); a key of one value is the value as read.
func TestSeveralValuesMakeOneClientOnlyWhenEachIsTheSame(t *testing.T) {
	pairs := [][2]string{{"x y", "z"}, {"x", "y z"}, {`a\`, " b"}, {"a", `\ b`}, {"a b", ""}, {"a", " b"}}
	var jsonl, csv strings.Builder
	csv.WriteString("time_ms,a,b\n")
	for i, p := range pairs {
		fmt.Fprintf(&jsonl, `{"time": %d, "a": %q, "b": %q}`+"\n", 1_000_000_000_000+i, p[0], p[1]+".")
		fmt.Fprintf(&csv, "%d,%q,%q\n", i, p[0], p[1]+".")
	}
	for _, f := range []struct{ name, data string }{{"a.jsonl", jsonl.String()}, {"a.csv", csv.String()}} {
		rows, _, err := readAll(t, f.name, f.data, Options{Key: "a+b"})
		if err != nil || len(rows) != len(pairs) {
			t.Fatalf("%s: %d rows, %v", f.name, len(rows), err)
		}
		seen := map[string]int{}
		for i, r := range rows {
			if j, ok := seen[r.Key]; ok {
				t.Errorf("%s: %q and %q are one client, %q", f.name, pairs[i], pairs[j], r.Key)
			}
			seen[r.Key] = i
		}
		if rows[0].Key != `x\ y z.` {
			t.Errorf("%s: the first key is %q, want x\\ y z.", f.name, rows[0].Key)
		}
		one, _, err := readAll(t, f.name, f.data, Options{Key: "a"})
		if err != nil || one[0].Key != "x y" {
			t.Errorf("%s: a key of one value is %q (%v), want the value as read", f.name, one[0].Key, err)
		}
	}
}

// In a Common/Combined Log only user and agent may hold a space: a key with
// both escapes them ("bob smith" with "curl" and "bob" with "smith curl" are
// two clients); a key with one of them joins as read (ip+agent, agent+ip).
func TestALogKeyOfUserAndAgentIsOneToOne(t *testing.T) {
	log := `1.2.3.4 - bob smith [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.0" 200 5 "-" "curl"
1.2.3.4 - bob [10/Oct/2000:13:55:37 -0700] "GET /a HTTP/1.0" 200 5 "-" "smith curl"
`
	for key, want := range map[string][2]string{
		"user+agent":    {`bob\ smith curl`, `bob smith\ curl`},
		"agent+user":    {`curl bob\ smith`, `smith\ curl bob`},
		"ip+user+agent": {`1.2.3.4 bob\ smith curl`, `1.2.3.4 bob smith\ curl`},
		"ip+agent":      {"1.2.3.4 curl", "1.2.3.4 smith curl"},
		"agent+ip":      {"curl 1.2.3.4", "smith curl 1.2.3.4"},
		"user":          {"bob smith", "bob"},
	} {
		rows, _, err := readAll(t, "a.log", log, Options{Format: FormatCLF, Key: key})
		if err != nil || len(rows) != 2 {
			t.Fatalf("%s: %d rows, %v", key, len(rows), err)
		}
		if rows[0].Key != want[0] || rows[1].Key != want[1] {
			t.Errorf("%s: keys %q and %q, want %q and %q", key, rows[0].Key, rows[1].Key, want[0], want[1])
		}
	}
}
