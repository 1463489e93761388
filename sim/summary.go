package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"text/tabwriter"
	"time"

	"ratelab/algorithms"
)

// Column is one column of the lane comparison, shared by the printed table and the
// UI's: a title, the cell for a lane's metrics, and what it means.
type Column struct {
	Title string
	Cell  func(m Metrics) string
	Help  string
}

// Columns are the comparison's columns, in order.
var Columns = []Column{
	{"lane", func(m Metrics) string { return m.Lane }, "the limiter under test"},
	{"offered", func(m Metrics) string { return fmt.Sprint(m.Offered) }, "logical requests the clients generated"},
	{"attempts", func(m Metrics) string { return fmt.Sprint(m.Attempts) }, "decisions asked for, retries included"},
	{"accepted", func(m Metrics) string { return fmt.Sprint(m.Accepted) }, "decisions that allowed"},
	{"denied", func(m Metrics) string { return fmt.Sprint(m.Denied) }, "decisions that refused"},
	{"errors", func(m Metrics) string { return fmt.Sprint(m.Errors) }, "accepted requests the backend failed"},
	{"retry×", func(m Metrics) string { return fmt.Sprintf("%.2f", m.RetryAmplification) }, "attempts per offered request"},
	{"peak/limit", func(m Metrics) string { return fmt.Sprintf("%.2f", m.PeakWindowRatio) }, "most admitted for one key in any window of the period, over the limit"},
	{"over-grant", func(m Metrics) string { return fmt.Sprintf("%.1f%%", 100*m.OverGrant) }, "admitted beyond capacity + rate × T"},
	{"p50", func(m Metrics) string { return FormatDuration(m.LatencyP50) }, "success latency, median"},
	{"p99", func(m Metrics) string { return FormatDuration(m.LatencyP99) }, "success latency, 99th percentile"},
	{"queue p99", func(m Metrics) string { return FormatDuration(m.QueueDelayP99) }, "delay in a leaky queue or reservation, 99th percentile"},
	{"fairness", func(m Metrics) string { return fmt.Sprintf("%.3f", m.Fairness) }, "Jain's index over each client and key's success ratio"},
	{"state", func(m Metrics) string { return FormatBytes(m.PeakStateBytes) }, "most limiter state held"},
}

// FormatDuration renders d compactly for tables: 0, 850µs, 12.5ms, 1.250s,
// 26h0m5s.
func FormatDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d == algorithms.Forever:
		return "never"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d/time.Microsecond)
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	case d >= time.Hour:
		return d.Round(time.Second).String() // a long trace's times: 168h0m0s
	}
	return fmt.Sprintf("%.3fs", d.Seconds())
}

// FormatBytes renders n as B, KiB or MiB.
func FormatBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%dB", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1fKiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
}

// Describe is the run's header line: policy, duration, seed.
func Describe(cfg *Config) string {
	var tiers []string
	for _, t := range cfg.Tiers {
		tiers = append(tiers, fmt.Sprintf("%s: %s", t.Name, t.Policy))
	}
	return fmt.Sprintf("%s over %s, seed %d", strings.Join(tiers, "; "), cfg.Duration, cfg.Seed)
}

// WriteTable prints the comparison: the scenario, one row per lane, a verdict per
// lane. Output depends only on its inputs.
func WriteTable(w io.Writer, cfg *Config, ms []Metrics) error {
	fmt.Fprintf(w, "%s — %s\n%s\n\n", cfg.Name, cfg.Title, Describe(cfg))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	var row []string
	for _, c := range Columns {
		row = append(row, c.Title)
	}
	fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	for _, m := range ms {
		row = row[:0]
		for _, c := range Columns {
			row = append(row, c.Cell(m))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, m := range ms {
		fmt.Fprintf(w, "  %s\n", Verdict(cfg, m))
	}
	return nil
}

// Verdict is one line saying what a lane did, from its metrics, most telling
// fact first.
func Verdict(cfg *Config, m Metrics) string {
	limitOf := func() string {
		if len(cfg.Keys) > 1 {
			return fmt.Sprintf(" for key %s", m.PeakKey)
		}
		return ""
	}
	var facts []string
	switch {
	case m.PeakWindowRatio > 1.0001:
		facts = append(facts, fmt.Sprintf("let %.1f× the limit through within %s at %s%s", m.PeakWindowRatio, FormatDuration(m.PeakLast-m.PeakFirst), FormatDuration(m.PeakFirst), limitOf()))
	case m.Accepted > 0:
		facts = append(facts, fmt.Sprintf("held the limit (peak %.2f× of it)", m.PeakWindowRatio))
	default:
		facts = append(facts, "accepted nothing")
	}
	if m.OverGrant > 0.0005 {
		facts = append(facts, fmt.Sprintf("admitted %d units where capacity + rate × T allowed %.0f (+%.1f%%)", m.AcceptedUnits, m.MaxUnits, 100*m.OverGrant))
	}
	if m.StoreErrors > 0 {
		facts = append(facts, fmt.Sprintf("%d decisions made without Redis (on_error)", m.StoreErrors))
	}
	if m.Conflicts > 0 {
		facts = append(facts, fmt.Sprintf("%d decisions gave up after losing WATCH races", m.Conflicts))
	}
	if m.RetryAmplification >= 1.5 {
		facts = append(facts, fmt.Sprintf("retries made %.1f attempts per request", m.RetryAmplification))
	}
	if m.Errors > 0 {
		fact := fmt.Sprintf("the backend failed %d requests (%.0f%% busy", m.Errors, 100*m.BackendUtilization)
		if m.Wasted > 0 {
			fact += fmt.Sprintf(", %d served for clients that had left", m.Wasted)
		}
		facts = append(facts, fact+")")
	}
	if m.QueueDelayP99 > 0 {
		facts = append(facts, fmt.Sprintf("queued work up to %s (p99)", FormatDuration(m.QueueDelayP99)))
	}
	if m.GaveUp > 0 {
		facts = append(facts, fmt.Sprintf("%d of %d requests never succeeded", m.GaveUp, m.Offered))
	}
	return m.Lane + " " + strings.Join(facts, "; ")
}

// Report is the comparison as JSON, for scripts: durations in milliseconds, ratios
// as fractions.
type Report struct {
	Scenario   string       `json:"scenario"`
	Title      string       `json:"title"`
	Seed       uint64       `json:"seed"`
	DurationMS float64      `json:"duration_ms"`
	Policy     string       `json:"policy"`
	Lanes      []LaneReport `json:"lanes"`
	// Traces say what each trace client replayed and what it skipped.
	Traces []TraceReport `json:"traces,omitempty"`
}

// LaneReport is one lane's metrics in Report: every field of Metrics under its
// json tag, durations in milliseconds (their tags say _ms), then the verdict.
type LaneReport struct {
	Metrics
	Verdict string
}

// MarshalJSON writes the report's fields in Metrics' order, from Metrics' tags, so
// a metric added there is in the JSON without being copied here.
func (r LaneReport) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	v := reflect.ValueOf(r.Metrics)
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Tag.Get("json")
		if name == "" || name == "-" {
			continue
		}
		value := v.Field(i).Interface()
		if d, ok := value.(time.Duration); ok {
			value = millis(d)
		}
		if err := writeMember(&b, name, value); err != nil {
			return nil, err
		}
		b.WriteByte(',')
	}
	if err := writeMember(&b, "verdict", r.Verdict); err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeMember writes "name":value.
func writeMember(b *bytes.Buffer, name string, value any) error {
	k, _ := json.Marshal(name)
	v, err := json.Marshal(value)
	if err != nil {
		return err
	}
	b.Write(k)
	b.WriteByte(':')
	b.Write(v)
	return nil
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// WriteJSON prints the comparison as an indented Report.
func WriteJSON(w io.Writer, cfg *Config, ms []Metrics) error {
	r := Report{Scenario: cfg.Name, Title: cfg.Title, Seed: cfg.Seed, DurationMS: millis(cfg.Duration), Policy: Describe(cfg), Traces: TraceReports(cfg)}
	for _, m := range ms {
		r.Lanes = append(r.Lanes, LaneReport{Metrics: m, Verdict: Verdict(cfg, m)})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
