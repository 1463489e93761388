package tune

import (
	"strings"
	"testing"
	"time"
)

// A recommendation whose period (or a pair's longer one) is longer than the
// log is flagged, with how much more a real period holds; one within it is not.
func TestShortLogWarns(t *testing.T) {
	for _, c := range []struct {
		span   time.Duration
		limits Limits
		want   string // "" for no warning
	}{
		{90 * time.Second, Limits{Policy: Policy{Limit: 220, Period: time.Hour}}, "covers 1m30s, less than one period of 1h"},
		{90 * time.Second, Limits{Policy: Policy{Limit: 220, Period: time.Hour}}, "about 40× what this log holds"},
		{90 * time.Second, Limits{Policy: Policy{Limit: 5, Period: time.Second}, Long: Policy{Limit: 900, Period: time.Hour}}, "less than one period of 1h"},
		{0, Limits{Policy: Policy{Limit: 5, Period: time.Second}}, "more than this log holds"},
		{90 * time.Second, Limits{Policy: Policy{Limit: 20, Period: time.Minute}}, ""},
		{time.Hour, Limits{Policy: Policy{Limit: 220, Period: time.Hour}}, ""},
		// the period fits, the burst does not refill within the log: 270 at 3/min is 1h30m
		{30 * time.Minute, Limits{Policy: Policy{Algorithm: "token-bucket", Limit: 3, Period: time.Minute, Burst: 270}}, "its burst of 270 takes 1h30m to refill at 3/min, longer than the 30m log"},
		{30 * time.Minute, Limits{Policy: Policy{Algorithm: "token-bucket", Limit: 3, Period: time.Minute, Burst: 270}}, "--burst no more than 90"},
		{30 * time.Minute, Limits{Policy: Policy{Algorithm: "gcra", Limit: 3, Period: time.Minute, Burst: 90}}, ""},
		{30 * time.Minute, Limits{Policy: Policy{Algorithm: "fixed-window", Limit: 3, Period: time.Minute, Burst: 270}}, ""},
	} {
		r := &Report{Trace: &Trace{Span: c.span}, Results: []Result{{Limits: c.limits}}, Best: 0}
		got := r.ShortLog()
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("span %s, %v: ShortLog() = %q, want it to say %q", c.span, c.limits, got, c.want)
		}
	}
	if got := (&Report{Trace: &Trace{Span: time.Second}, Best: -1}).ShortLog(); got != "" {
		t.Errorf("no recommendation: ShortLog() = %q, want none", got)
	}
}
