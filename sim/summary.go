package sim

import (
	"encoding/json"
	"fmt"
	"io"
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

// FormatDuration renders d compactly for tables: 0, 850µs, 12.5ms, 1.250s.
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
}

// LaneReport is one lane's metrics in Report.
type LaneReport struct {
	Lane               string  `json:"lane"`
	Algorithm          string  `json:"algorithm"`
	Backend            string  `json:"backend"`
	Offered            int64   `json:"offered"`
	Attempts           int64   `json:"attempts"`
	Accepted           int64   `json:"accepted"`
	Denied             int64   `json:"denied"`
	Errors             int64   `json:"errors"`
	Wasted             int64   `json:"wasted"`
	Succeeded          int64   `json:"succeeded"`
	GaveUp             int64   `json:"gave_up"`
	Conflicts          int64   `json:"conflicts"`
	StoreErrors        int64   `json:"store_errors"`
	StoreCalls         int64   `json:"store_calls"`
	RetryAmplification float64 `json:"retry_amplification"`
	PeakWindowRatio    float64 `json:"peak_window_ratio"`
	PeakFirstMS        float64 `json:"peak_first_ms"`
	PeakLastMS         float64 `json:"peak_last_ms"`
	OverGrant          float64 `json:"over_grant"`
	AcceptedUnits      int64   `json:"accepted_units"`
	MaxUnits           float64 `json:"max_units"`
	LatencyP50MS       float64 `json:"latency_p50_ms"`
	LatencyP99MS       float64 `json:"latency_p99_ms"`
	QueueDelayP99MS    float64 `json:"queue_delay_p99_ms"`
	Fairness           float64 `json:"fairness"`
	BackendUtilization float64 `json:"backend_utilization"`
	PeakStateBytes     int64   `json:"peak_state_bytes"`
	PeakKeys           int     `json:"peak_keys"`
	Verdict            string  `json:"verdict"`
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// WriteJSON prints the comparison as an indented Report.
func WriteJSON(w io.Writer, cfg *Config, ms []Metrics) error {
	r := Report{Scenario: cfg.Name, Title: cfg.Title, Seed: cfg.Seed, DurationMS: millis(cfg.Duration), Policy: Describe(cfg)}
	for _, m := range ms {
		r.Lanes = append(r.Lanes, LaneReport{
			Lane: m.Lane, Algorithm: m.Algorithm, Backend: m.Backend,
			Offered: m.Offered, Attempts: m.Attempts, Accepted: m.Accepted, Denied: m.Denied, Errors: m.Errors, Wasted: m.Wasted,
			Succeeded: m.Succeeded, GaveUp: m.GaveUp, Conflicts: m.Conflicts, StoreErrors: m.StoreErrors, StoreCalls: m.StoreCalls,
			RetryAmplification: m.RetryAmplification, PeakWindowRatio: m.PeakWindowRatio,
			PeakFirstMS: millis(m.PeakFirst), PeakLastMS: millis(m.PeakLast),
			OverGrant: m.OverGrant, AcceptedUnits: m.AcceptedUnits, MaxUnits: m.MaxUnits,
			LatencyP50MS: millis(m.LatencyP50), LatencyP99MS: millis(m.LatencyP99), QueueDelayP99MS: millis(m.QueueDelayP99),
			Fairness: m.Fairness, BackendUtilization: m.BackendUtilization,
			PeakStateBytes: m.PeakStateBytes, PeakKeys: m.PeakKeys, Verdict: Verdict(cfg, m),
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
