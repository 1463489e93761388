package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"ratelab/audit"
	"ratelab/internal/check"
	"ratelab/internal/tracegen"
)

// writeSiteLog writes a generated Combined Log of people who view pages
// that pull their assets at once (slides), two abusive clients and Googlebot.
func writeSiteLog(t *testing.T, dir string, d time.Duration) string {
	t.Helper()
	var buf bytes.Buffer
	spec := tracegen.Spec{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Duration: d, Seed: 9,
		Users: 150, Visits: 1, VisitPages: 6, PageGap: 20 * time.Second, PageAssets: [2]int{20, 40},
		Abusers: 2, AbuserRate: 20, Crawlers: 1, CrawlerRate: 0.2, CrawlerAgent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		Slowest: 2 * time.Second}
	check.Setup(t, func() error { _, err := tracegen.Write(&buf, spec); return err }())
	path := filepath.Join(dir, "site.log")
	check.Setup(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return path
}

// The audit finds what was planted in the configurations of three products:
// a stale rule that refuses ordinary clients, a rule that never decides
// (shadowed by another), the rule that holds the abusive clients; nginx's
// zone shared by two locations. Its text is findings first, in 24 lines of
// 80 columns; --fail-on makes it a check that exits 1.
func TestAuditFindsPlantedRules(t *testing.T) {
	t.Parallel()
	d := time.Hour
	if testing.Short() {
		d = 20 * time.Minute
	}
	log := writeSiteLog(t, t.TempDir(), d)
	for _, tc := range []struct {
		config                   string
		stale, shadowed, holding string
		shared                   string
	}{
		{"nginx.conf", "zone=emergency", "zone=perip_copy", "zone=perip", "zone perip is used by 2 contexts"},
		{"envoy.yaml", "emergency=on", "descriptor client_ip=", "descriptor remote_address=", ""},
		{"kong.yml", "second=4", "hour=2000", "day=2000", ""},
	} {
		config, _ := filepath.Abs(filepath.Join("testdata", "audit", tc.config))
		code, out, errOut := ratelab(t, "audit", "--trace", log, "--config", config, "--spread", "uniform", "--format", "json")
		if code != 0 {
			t.Fatalf("audit %s: exit %d: %s", tc.config, code, errOut)
		}
		var rep audit.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("audit %s --format json: %v", tc.config, err)
		}
		kinds := map[string][]string{}
		for _, f := range rep.Findings {
			kinds[f.Kind] = append(kinds[f.Kind], f.Rule+f.Says)
		}
		has := func(kind, what string) bool {
			for _, s := range kinds[kind] {
				if strings.Contains(s, what) && (kind != "holds" || !strings.Contains(s, tc.stale)) {
					return true
				}
			}
			return false
		}
		if !has("ordinary", tc.stale) || len(kinds["ordinary"]) != 1 {
			t.Errorf("%s: the stale rule %s is not the one finding on ordinary clients: %v", tc.config, tc.stale, kinds["ordinary"])
		}
		if !has("shadowed", tc.shadowed) || len(kinds["shadowed"]) != 1 {
			t.Errorf("%s: the shadowed rule %s is not the one shadowed: %v", tc.config, tc.shadowed, kinds["shadowed"])
		}
		if !has("holds", tc.holding) {
			t.Errorf("%s: the rule %s does not hold the abusive clients: %v", tc.config, tc.holding, kinds["holds"])
		}
		if tc.shared != "" && !has("shared", tc.shared) {
			t.Errorf("%s: no finding that %s: %v", tc.config, tc.shared, kinds["shared"])
		}
		// the rule that holds refuses the abusive clients, named first
		for _, l := range rep.Lanes {
			for _, r := range l.Rules {
				if strings.HasSuffix(r.Rule, tc.holding) && (len(r.Top) == 0 || !strings.HasPrefix(r.Top[0].Key, "203.0.113.")) {
					t.Errorf("%s: %s refuses most %+v, not an abusive client", tc.config, r.Rule, r.Top)
				}
			}
		}
		// the text: findings first, 24 lines of 80 columns
		code, text, _ := ratelab(t, "audit", "--trace", log, "--config", config, "--spread", "uniform")
		lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
		if code != 0 || len(lines) > audit.Lines || !strings.Contains(text, "findings:\n✗ ") {
			t.Errorf("%s: exit %d, %d lines:\n%s", tc.config, code, len(lines), text)
		}
		for _, l := range lines {
			if utf8.RuneCountInString(l) > audit.Width {
				t.Errorf("%s: a line of %d columns: %q", tc.config, utf8.RuneCountInString(l), l)
			}
		}
		// a CI check: the stale rule fails a bound of 0.1%, a bound it meets passes
		if code, _, errOut := ratelab(t, "audit", "--trace", log, "--config", config, "--spread", "uniform", "--fail-on", "ordinary>0.1%"); code != 1 || !strings.Contains(errOut, "--fail-on ordinary>0.1% failed") {
			t.Errorf("%s --fail-on ordinary>0.1%%: exit %d, %s", tc.config, code, errOut)
		}
		if code, out, errOut := ratelab(t, "audit", "--trace", log, "--config", config, "--spread", "uniform", "--fail-on", "ordinary>90%,crawler>99%"); code != 0 || !strings.Contains(out, "--fail-on ordinary>90% holds") {
			t.Errorf("%s --fail-on ordinary>90%%: exit %d, %s%s", tc.config, code, out, errOut)
		}
	}
}

// Bad input: a clear error naming the fix, exit 2.
func TestAuditBadInput(t *testing.T) {
	t.Parallel()
	log := writeSiteLog(t, t.TempDir(), time.Minute)
	config, _ := filepath.Abs(filepath.Join("testdata", "audit", "nginx.conf"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--trace", log}, "--config FILE is required"},
		{[]string{"--config", config}, "--trace FILE is required"},
		{[]string{"--trace", log, "--config", config, "--fail-on", "ordinary<1%"}, "write CLASS>PERCENT"},
		{[]string{"--trace", log, "--config", config, "--fail-on", "robots>1%"}, "the class is ordinary, heavy, abusive, all, or a kind"},
		{[]string{"--trace", log, "--config", config, "--format", "xml"}, "--format is text or json"},
		{[]string{"--trace", log, "--config", log}, "--config"},
	} {
		code, _, errOut := ratelab(t, append([]string{"audit"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("audit %v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
