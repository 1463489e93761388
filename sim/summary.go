package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"ratelab/algorithms"
)

// Column is one column of the lane comparison, shared by the printed table and the
// UI's: a title, the cell for a lane's metrics, what it means, and the metric it
// shows (its JSON name, as claims name it).
type Column struct {
	Title  string
	Cell   func(m Metrics) string
	Help   string
	Metric string
}

// Columns are the comparison's columns, in order.
var Columns = []Column{
	{"lane", func(m Metrics) string { return m.Lane }, "the limiter under test", "lane"},
	{"offered", func(m Metrics) string { return fmt.Sprint(m.Offered) }, "logical requests the clients generated", "offered"},
	{"attempts", func(m Metrics) string { return fmt.Sprint(m.Attempts) }, "decisions asked for, retries included", "attempts"},
	{"accepted", func(m Metrics) string { return fmt.Sprint(m.Accepted) }, "decisions that allowed", "accepted"},
	{"denied", func(m Metrics) string { return fmt.Sprint(m.Denied) }, "decisions that refused", "denied"},
	{"errors", func(m Metrics) string { return fmt.Sprint(m.Errors) }, "accepted requests the backend failed", "errors"},
	{"retry×", func(m Metrics) string { return fmt.Sprintf("%.2f", m.RetryAmplification) }, "attempts per offered request", "retry_amplification"},
	{"peak/limit", func(m Metrics) string { return limited(m, fmt.Sprintf("%.2f", m.PeakWindowRatio)) }, "most admitted for one key in any window of the period, over the limit (— for the no-limit lane and a lane of several limits)", "peak_window_ratio"},
	{"over-grant", func(m Metrics) string { return limited(m, fmt.Sprintf("%.1f%%", 100*m.OverGrant)) }, "admitted beyond what the algorithm promises, as a share of it: a bucket burst (or limit) + rate × T per key, a fixed window its allowance in each of its own windows", "over_grant"},
	{"p50", func(m Metrics) string { return FormatDuration(m.LatencyP50) }, "success latency, median", "latency_p50_ms"},
	{"p99", func(m Metrics) string { return FormatDuration(m.LatencyP99) }, "success latency, 99th percentile", "latency_p99_ms"},
	{"queue p99", func(m Metrics) string { return FormatDuration(m.QueueDelayP99) }, "delay in a leaky queue or reservation, 99th percentile", "queue_delay_p99_ms"},
	{"fairness", func(m Metrics) string { return fmt.Sprintf("%.3f", m.Fairness) }, "Jain's index over each client and key's success ratio", "fairness"},
	{"state", func(m Metrics) string { return FormatBytes(m.PeakStateBytes) }, "most limiter state held", "peak_state_bytes"},
}

// limited is cell, or a dash for the no-limit lane, which has nothing to hold,
// and a multi-limit lane, which has no one policy to hold.
func limited(m Metrics, cell string) string {
	if a, _ := algorithms.Lookup(m.Algorithm); a.Shape == algorithms.ShapeNone || m.severalLimits {
		return "—"
	}
	return cell
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
// lane, then the lesson and each of its claims with ✓ or ✗ on this run, and, with
// explain, what every column means. Output depends only on its inputs.
func WriteTable(w io.Writer, cfg *Config, ms []Metrics, claims []ClaimResult, explain bool) error {
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
	if cfg.Lesson != "" {
		fmt.Fprintf(w, "\n%s\n", cfg.Lesson)
	}
	if len(claims) > 0 {
		fmt.Fprintln(w)
		for _, c := range claims {
			fmt.Fprintf(w, "  %s [%s] %s\n", c.Mark(), c.ID, strings.TrimPrefix(c.Line(cfg), c.Mark()+" "))
		}
	}
	if explain {
		fmt.Fprintf(w, "\nWhat the columns mean:\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, c := range Columns {
			fmt.Fprintf(tw, "  %s\t%s\n", c.Title, c.Help)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
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
	Lesson     string       `json:"lesson,omitempty"`
	Claims     []ClaimJSON  `json:"claims,omitempty"`
	// Traces say what each trace client replayed and what it skipped.
	Traces []TraceReport `json:"traces,omitempty"`
}

// ClaimJSON is a claim and its result in Report.
type ClaimJSON struct {
	ID       string    `json:"id"`
	Says     string    `json:"says"`
	Holds    bool      `json:"holds"`
	Metric   string    `json:"metric"`
	Op       string    `json:"op"`
	Lanes    []string  `json:"lanes"`
	Got      []float64 `json:"got"`
	Want     []float64 `json:"want"`
	Adjusted bool      `json:"written_for_another_policy,omitempty"`
	// Undefined, only when a lane's value is a ratio over 0 (see ClaimResult).
	Undefined []bool `json:"undefined,omitempty"`
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

// WriteJSON prints the comparison as an indented Report, with the lesson and its
// claims judged on the run, and what each trace client replayed.
func WriteJSON(w io.Writer, cfg *Config, ms []Metrics, claims []ClaimResult) error {
	r := Report{Scenario: cfg.Name, Title: cfg.Title, Seed: cfg.Seed, DurationMS: millis(cfg.Duration), Policy: Describe(cfg), Lesson: cfg.Lesson, Traces: TraceReports(cfg)}
	for _, m := range ms {
		r.Lanes = append(r.Lanes, LaneReport{Metrics: m, Verdict: Verdict(cfg, m)})
	}
	for _, c := range claims {
		j := ClaimJSON{ID: c.ID, Says: c.Says, Holds: c.Holds, Metric: c.Metric, Op: c.Op, Got: c.Got, Want: c.Want, Adjusted: c.Adjusted}
		for _, l := range c.Lanes {
			j.Lanes = append(j.Lanes, cfg.Lanes[l].Name)
		}
		if slices.Contains(c.Undefined, true) {
			j.Undefined = c.Undefined
		}
		r.Claims = append(r.Claims, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
