package present

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"ratelab/internal/format"
	"ratelab/sim"
)

// Column is one column of the lane comparison, shared by the printed table and the
// UI's: a title, the cell for a lane's metrics, what it means, and the metric it
// shows (its JSON name, as claims name it).
type Column struct {
	Title  string
	Cell   func(m sim.Metrics) string
	Help   string
	Metric string
}

// Columns are the comparison's columns, in order.
var Columns = []Column{
	{"lane", func(m sim.Metrics) string { return m.Lane }, "the limiter under test", "lane"},
	{"offered", func(m sim.Metrics) string { return fmt.Sprint(m.Offered) }, "logical requests the clients generated", "offered"},
	{"attempts", func(m sim.Metrics) string { return fmt.Sprint(m.Attempts) }, "decisions asked for, retries included", "attempts"},
	{"accepted", func(m sim.Metrics) string { return fmt.Sprint(m.Accepted) }, "decisions that allowed", "accepted"},
	{"denied", func(m sim.Metrics) string { return fmt.Sprint(m.Denied) }, "decisions that refused", "denied"},
	{"errors", func(m sim.Metrics) string { return fmt.Sprint(m.Errors) }, "accepted requests the backend failed", "errors"},
	{"goodput", func(m sim.Metrics) string { return format.Percent(m.Goodput) }, "the share of offered requests served (with a backend, within the client's deadline); the rest were given up on or are still in flight", "goodput"},
	{"retry×", func(m sim.Metrics) string { return fmt.Sprintf("%.2f", m.RetryAmplification) }, "attempts per offered request", "retry_amplification"},
	{"peak/limit", func(m sim.Metrics) string { return limited(m, fmt.Sprintf("%.2f", m.PeakWindowRatio)) }, "most admitted for one key in any window of the period, over the limit (— for the no-limit lane and a lane of several limits)", "peak_window_ratio"},
	{"over-grant", func(m sim.Metrics) string { return limited(m, fmt.Sprintf("%.1f%%", 100*m.OverGrant)) }, "admitted beyond what the algorithm promises, as a share of it: a bucket burst (or limit) + rate × T in any span of a key's, a fixed window its allowance in each of its own windows", "over_grant"},
	{"p50", func(m sim.Metrics) string { return format.Duration(m.LatencyP50) }, "success latency, median", "latency_p50_ms"},
	{"p99", func(m sim.Metrics) string { return format.Duration(m.LatencyP99) }, "success latency, 99th percentile", "latency_p99_ms"},
	{"queue p99", func(m sim.Metrics) string { return format.Duration(m.QueueDelayP99) }, "delay in a leaky queue or reservation, 99th percentile", "queue_delay_p99_ms"},
	{"fairness", func(m sim.Metrics) string { return fmt.Sprintf("%.3f", m.Fairness) }, "Jain's index over each client and key's success ratio", "fairness"},
	{"state", func(m sim.Metrics) string { return format.Bytes(m.PeakStateBytes) }, "most limiter state held (a deployment's: every instance's and its store's together)", "peak_state_bytes"},
}

// limited is cell, or a dash for the no-limit lane, which has nothing to hold,
// and a multi-limit lane, which has no one policy to hold.
func limited(m sim.Metrics, cell string) string {
	if !m.HeldToOnePolicy() {
		return "—"
	}
	return cell
}

// Describe is the run's header line: policy, duration, seed.
func Describe(cfg *sim.Config) string {
	var tiers []string
	for _, t := range cfg.Tiers {
		tiers = append(tiers, fmt.Sprintf("%s: %s", t.Name, t.Policy))
	}
	return fmt.Sprintf("%s over %s, seed %d", strings.Join(tiers, "; "), cfg.Duration, cfg.Seed)
}

// WriteTable prints the comparison: the scenario, one row per lane, a verdict per
// lane, then the lesson and each of its claims with ✓ or ✗ on this run, each of
// its questions with the run's answer, and, with explain, what every column
// means. Output depends only on its inputs.
func WriteTable(w io.Writer, cfg *sim.Config, ms []sim.Metrics, claims []sim.ClaimResult, answers []sim.Answer, explain bool) error {
	fmt.Fprintf(w, "%s — %s\n%s\n\n", cfg.Name, cfg.Title, Describe(cfg))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	columns := ColumnsFor(cfg)
	var row []string
	for _, c := range columns {
		row = append(row, c.Title)
	}
	fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	for _, m := range ms {
		row = row[:0]
		for _, c := range columns {
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
			fmt.Fprintf(w, "  %s [%s] %s\n", Mark(c), c.ID, strings.TrimPrefix(ClaimLine(cfg, c), Mark(c)+" "))
		}
	}
	if len(answers) > 0 {
		fmt.Fprintln(w)
		for _, a := range answers {
			fmt.Fprintf(w, "  %s\n", AnswerLine(cfg, a))
		}
	}
	if explain {
		fmt.Fprintf(w, "\nWhat the columns mean:\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, c := range columns {
			fmt.Fprintf(tw, "  %s\t%s\n", c.Title, c.Help)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
