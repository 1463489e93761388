package audit

import (
	"strings"
	"testing"
)

// --fail-on's bounds: classes and kinds, a percent from 0 to under 100;
// anything else an error that says how to write one.
func TestParseChecks(t *testing.T) {
	kinds := []string{"crawler", "feed reader", "ordinary"}
	got, err := ParseChecks("ordinary>0.1%, feed-reader>5%,,all>0%", kinds)
	if err != nil || len(got) != 3 || got[0] != (Check{"ordinary", 0.001}) || got[1] != (Check{"feed reader", 0.05}) || got[2] != (Check{"all", 0}) {
		t.Fatalf("ParseChecks: %+v, %v", got, err)
	}
	if s := got[0].String(); s != "ordinary>0.1%" {
		t.Errorf("String: %q", s)
	}
	for _, bad := range []string{"", ",", "ordinary", "ordinary>", "ordinary>1", "ordinary>=1%", "ordinary<1%", "ordinary>NaN%", "ordinary>nan%", "ordinary>Inf%", "ordinary>-1%", "ordinary>100%", "robots>1%", ">1%"} {
		if _, err := ParseChecks(bad, kinds); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	_, err = ParseChecks("robots>1%", kinds)
	if err == nil || strings.Count(err.Error(), "ordinary") != 1 {
		t.Errorf("the classes and kinds named once each: %v", err)
	}
}

// A finding's text: a rule named by its file without folders, five lines of
// 80 columns at most, newlines and escapes never raw.
func TestWrapAndShortRule(t *testing.T) {
	if got := shortRule("/etc/nginx/nginx.conf:14 limit_req zone=login"); got != "nginx.conf:14 limit_req zone=login" {
		t.Errorf("shortRule: %q", got)
	}
	if got := shortRule("token-bucket"); got != "token-bucket" {
		t.Errorf("shortRule of a rule with no place: %q", got)
	}
	lines := wrap(strings.Repeat("word ", 200)+"\x1b[31m\nend", Width, "  ", 5)
	if len(lines) != 5 || !strings.HasSuffix(lines[4], "…") {
		t.Errorf("wrap: %d lines, the last %q", len(lines), lines[len(lines)-1])
	}
	for _, l := range lines {
		if len([]rune(l)) > Width || strings.ContainsAny(l, "\x1b\n") {
			t.Errorf("wrap: a line %q", l)
		}
	}
	if c := cut("a\nb\x1b[2Jc"); strings.ContainsAny(c, "\n\x1b") {
		t.Errorf("cut leaves a control character: %q", c)
	}
}
