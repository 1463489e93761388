package traces

import (
	"strings"
	"testing"
)

// rowsOf reads every row of text with o.
func rowsOf(t *testing.T, text string, o Options) ([]Row, Stats) {
	t.Helper()
	rows, st, err := readAll(t, "t", text, o)
	if err != nil {
		t.Fatal(err)
	}
	return rows, st
}

const combinedLines = `66.249.66.1 - - [10/Oct/2000:13:55:36 -0700] "GET /a/b.html?x=1 HTTP/1.1" 200 2326 "-" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
10.0.0.1 - - [10/Oct/2000:13:55:37 -0700] "GET /static/site.CSS HTTP/1.1" 304 0 "https://example.org/" "Mozilla/5.0 (X11; Linux x86_64) \"quoted\""
198.18.0.1 - - [10/Oct/2000:13:55:38 -0700] "POST /login HTTP/1.1" 401 12 "-" "-"
10.0.0.2 - - [10/Oct/2000:13:55:39 -0700] "GET /x HTTP/1.1" 200 5
`

func TestCombinedLogDetails(t *testing.T) {
	rows, st := rowsOf(t, combinedLines, Options{Format: FormatCLF, Details: true})
	want := []Detail{
		{Method: "GET", Path: "/a/b.html", Status: 200, Agent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"},
		{Method: "GET", Path: "/static/site.CSS", Status: 304, Agent: `Mozilla/5.0 (X11; Linux x86_64) \"quoted\"`},
		{Method: "POST", Path: "/login", Status: 401},
		{Method: "GET", Path: "/x", Status: 200}, // a Common Log line: no agent
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, w := range want {
		if rows[i].Detail != w {
			t.Errorf("row %d: %+v, want %+v", i, rows[i].Detail, w)
		}
	}
	if !st.ZoneKnown || st.Zone != -7*3600 {
		t.Errorf("zone %d (known %v), want -25200", st.Zone, st.ZoneKnown)
	}
	// without Details nothing but the key is read
	rows, _ = rowsOf(t, combinedLines, Options{Format: FormatCLF})
	if rows[0].Detail != (Detail{}) {
		t.Errorf("details read unasked: %+v", rows[0].Detail)
	}
}

func TestAgentKey(t *testing.T) {
	rows, _ := rowsOf(t, combinedLines, Options{Format: FormatCLF, Key: "ip+agent", Strict: false})
	if len(rows) != 2 || !strings.HasPrefix(rows[0].Key, "66.249.66.1 Mozilla/5.0 (compatible; Googlebot") || rows[1].Key != `10.0.0.1 Mozilla/5.0 (X11; Linux x86_64) \"quoted\"` {
		t.Fatalf("rows %+v: only the lines with a User-Agent have the key, keyed ip+agent", rows)
	}
}

func TestExclusions(t *testing.T) {
	es, err := ParseExclusions("assets, agent=*googlebot*")
	if err != nil {
		t.Fatal(err)
	}
	rows, st := rowsOf(t, combinedLines, Options{Format: FormatCLF, Exclude: es})
	if len(rows) != 2 || rows[0].Key != "198.18.0.1" || rows[1].Key != "10.0.0.2" || st.Excluded != 2 {
		t.Fatalf("rows %v, excluded %d: want the asset and the agent dropped (2), the rest kept", rows, st.Excluded)
	}
	es, _ = ParseExclusions("status=4??,method=post")
	rows, st = rowsOf(t, combinedLines, Options{Format: FormatCLF, Exclude: es})
	if len(rows) != 3 || st.Excluded != 1 {
		t.Fatalf("status/method exclusions: %d rows, %d excluded; want 3 and 1", len(rows), st.Excluded)
	}
	for _, bad := range []string{"path", "path=", "referer=x", "=x"} {
		if _, err := ParseExclusions(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestNamedFieldDetails(t *testing.T) {
	jsonl := `{"time":"2000-10-10T13:55:36Z","key":"a","method":"POST","url":"/login?next=/","status":401,"user_agent":"curl/8"}` + "\n"
	rows, _ := rowsOf(t, jsonl, Options{Format: FormatJSONL, Details: true})
	if d := rows[0].Detail; d != (Detail{Method: "POST", Path: "/login", Status: 401, Agent: "curl/8"}) {
		t.Errorf("JSON Lines detail %+v", d)
	}
	csvText := "time,key,path,status,agent\n2000-10-10T13:55:36Z,a,/x.js,200,Firefox\n"
	rows, _ = rowsOf(t, csvText, Options{Format: FormatCSV, Details: true})
	if d := rows[0].Detail; d != (Detail{Path: "/x.js", Status: 200, Agent: "Firefox"}) {
		t.Errorf("CSV detail %+v", d)
	}
}

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		p, s string
		fold bool
		want bool
	}{
		{"*.css", "/a/b.css", false, true},
		{"/static/*", "/static/a/b.js", false, true},
		{"/static/*", "/statics", false, false},
		{"*bot*", "Googlebot", true, true},
		{"*BOT*", "googlebot", false, false},
		{"a?c", "abc", false, true},
		{"a*b*c", "aXbYbZc", false, true},
		{"a*b*c", "aXbYbZ", false, false},
		{"", "", false, true},
		{"*", "", false, true},
		{strings.Repeat("*a", 30) + "b", strings.Repeat("a", 60), false, false}, // no blow-up
	} {
		if got := glob(c.p, c.s, c.fold); got != c.want {
			t.Errorf("glob(%q, %q) = %v, want %v", c.p, c.s, got, c.want)
		}
	}
	if !IsAsset("/a/B.PNG?v=3") || IsAsset("/a.html") {
		t.Error("IsAsset")
	}
}

func TestStatusOf(t *testing.T) {
	for v, want := range map[string]int{"404": 404, " 404.0": 404, "404.5": 0, "OK": 0, "-1": 0, "1000": 0, "": 0, "99": 0} {
		if got := statusOf(v); got != want {
			t.Errorf("statusOf(%q) = %d, want %d", v, got, want)
		}
	}
}

// A log every request of which is excluded says so, not that it is empty.
func TestEverythingExcluded(t *testing.T) {
	es, _ := ParseExclusions("path=*")
	_, _, err := readAll(t, "t", combinedLines, Options{Format: FormatCLF, Exclude: es})
	if err == nil || !strings.Contains(err.Error(), "every one of its 4 requests was left out by the exclusions") {
		t.Errorf("err = %v", err)
	}
}
