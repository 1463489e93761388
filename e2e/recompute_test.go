package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"ratelab/present"
	"ratelab/scenarios"
	"ratelab/sim"
)

// notInCSV are the metrics the two CSVs cannot carry, and why (docs/csv-and-metrics.md
// lists the same, under "What the CSVs cannot recompute"). Every other metric of the JSON, and so every column of the table
// but "state", is recomputed from the CSVs by TestMetricsFromTheCSVs.
var notInCSV = map[string]string{
	"peak_state_bytes":         "the limiter's state (bytes held) is inside the limiter, not in any row",
	"peak_keys":                "the keys the limiter holds state for are inside the limiter",
	"store_calls":              "round trips to the store: a decision may take several (WATCH retries, shards, several limits) or share one (a batch)",
	"conflicts":                "a WATCH that kept losing is written as a refusal (allowed false, outcome denied or gave_up), like a limiter's",
	"backend_utilization":      "when each job started service (after waiting in the backend's queue) is not in the CSV",
	"false_denials":            "the shard that decided is not a column (a deployed lane's, against its ideal, is recomputed)",
	"sync_messages_per_second": "a deployment's messages between its instances are in no row",
	"store_calls_per_second":   "a deployment's calls to its store are in no row (a fresh read is, a sync is not)",
	"queue_timeouts":           "when the attempt was sent (its deadline's start) is not a column",
	"shard_imbalance":          "the shard that decided is not a column",
	"granted_units":            "a multi-limit lane's decision per limit is not a column",
	"wasted_units":             "a multi-limit lane's decision per limit is not a column",
	"starved":                  "whether a limit spent units on a refused attempt (several limits) is not a column",
	"verdict":                  "a sentence made from the metrics, not a measurement",
	"client_rejected":          "an attempt the client's adaptive throttle rejected was never sent: no row",
	"retries_withheld":         "a retry the client's budget or throttle withheld ends its request as gave_up, as one its retry policy gives up on",
}

// unsentFates are the metrics by identity that rows cannot recompute on a lane
// whose clients rejected attempts themselves (client_rejected) or held some
// past the run's end (neverAttempted): a request never attempted has no row to
// count it by.
var unsentFates = map[string]bool{"fairness": true}

// TestMetricsFromTheCSVs runs every shipped scenario with --csv, --series and
// --format json, recomputes each lane's metrics from the two CSVs alone (with
// the scenario's policies, for the limits), and wants every number of the JSON
// the CSVs can carry to be the same, exactly; a metric neither recomputed nor
// listed in notInCSV fails the test.
func TestMetricsFromTheCSVs(t *testing.T) {
	t.Parallel()
	c := catalogue(t)
	for _, col := range present.Columns {
		if why, ok := notInCSV[col.Metric]; ok {
			t.Logf("table column %q is not recomputed: %s", col.Title, why)
		}
	}
	for _, name := range c.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if testing.Short() && name == "tiers" {
				t.Skip("-short: tiers (10,000 keys) takes as long as the other scenarios together; the full run has it")
			}
			cfg, err := c.Compile(name, scenarios.Overrides{})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			rows, series := filepath.Join(dir, "rows.csv"), filepath.Join(dir, "series.csv")
			code, out, errOut := ratelab(t, "run", "--scenario", name, "--csv", rows, "--series", series, "--format", "json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var report struct{ Lanes []map[string]any }
			if err := json.Unmarshal([]byte(out), &report); err != nil {
				t.Fatal(err)
			}
			got, err := recompute(cfg, rows, series)
			if err != nil {
				t.Fatal(err)
			}
			if len(report.Lanes) != len(got) {
				t.Fatalf("the JSON has %d lanes, the CSVs %d", len(report.Lanes), len(got))
			}
			for i, lane := range report.Lanes {
				compareLane(t, lane, got[i])
			}
		})
	}
}

// fatesUnknown is the recomputed lane's count of rows decided by on_error (a
// store that failed: outcome store_error), whose fate the row does not carry:
// whether an allowed one was served, or a refused one retried or given up.
const fatesUnknown = "rows_of_store_errors"

// neverAttempted is the recomputed lane's count of requests offered with no
// first attempt in the rows: rejected by the client's adaptive throttle before
// it, or held by a client honouring the RateLimit field past the run's end.
const neverAttempted = "requests_never_attempted"

// byFate are the metrics of what became of each attempt: out of the rows' reach
// for the fates of rows decided by on_error, so bounded (counts) or left out
// (latency, fairness) on a lane with such rows.
var byFate = map[string]bool{"succeeded": true, "gave_up": true, "goodput": true, "latency_p50_ms": true, "latency_p99_ms": true, "fairness": true}

// compareLane wants every metric of the run's lane to equal the recomputed one,
// or to be listed as one the CSVs cannot carry; on a lane with rows decided by
// on_error, the metrics by fate are counted between the rows' and that many more.
func compareLane(t *testing.T, run map[string]any, csv map[string]any) {
	t.Helper()
	var names []string
	for k := range run {
		names = append(names, k)
	}
	slices.Sort(names)
	unknown, loose := csv[fatesUnknown].(int64)
	unsent, _ := run["client_rejected"].(float64)
	if n, ok := csv[neverAttempted].(int64); ok {
		unsent += float64(n)
	}
	for _, k := range names {
		want, ok := csv[k]
		if unsent > 0 && unsentFates[k] {
			continue
		}
		if n, isCount := want.(int64); loose && ok && byFate[k] {
			if got := run[k].(float64); isCount && (got < float64(n) || got > float64(n+unknown)) {
				t.Errorf("lane %v: %s is %v in the run; from the CSVs %d, and at most %d more of the rows decided by on_error", run["lane"], k, got, n, unknown)
			}
			continue
		}
		switch {
		case ok && !same(want, run[k]):
			t.Errorf("lane %v: %s is %v in the run, %v from the CSVs", run["lane"], k, run[k], want)
		case !ok && notInCSV[k] == "":
			t.Errorf("lane %v: %s is neither recomputed from the CSVs nor listed as out of their reach", run["lane"], k)
		}
	}
	for k := range csv {
		if _, ok := run[k]; !ok && k != fatesUnknown && k != neverAttempted {
			t.Errorf("recomputed %s, which the JSON does not have", k)
		}
	}
}

// same compares a recomputed value with the JSON's: numbers as float64 (what
// JSON decodes them to; every count here is exact in one), strings as strings.
func same(recomputed, fromJSON any) bool {
	switch v := recomputed.(type) {
	case *rulesFromCSV:
		return sameRules(v, fromJSON)
	case int64:
		return float64(v) == fromJSON
	case float64:
		return v == fromJSON
	}
	return fmt.Sprint(recomputed) == fmt.Sprint(fromJSON)
}

// The exclusions are metrics of the JSON, and docs/csv-and-metrics.md names each
// of them where it says what the CSVs cannot recompute.
func TestNotInCSVIsOnlyWhatTheJSONHas(t *testing.T) {
	b, err := json.Marshal(present.LaneReport{})
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	json.Unmarshal(b, &fields)
	mt := reflect.TypeFor[sim.Metrics]()
	for i := range mt.NumField() { // a deployed lane's figures, in its JSON only, and those left out when 0
		if f := mt.Field(i); f.Tag.Get("ratelab") == "deployment" || strings.HasSuffix(f.Tag.Get("json"), ",omitempty") {
			fields[strings.Split(f.Tag.Get("json"), ",")[0]] = 0
		}
	}
	for k := range notInCSV {
		if _, ok := fields[k]; !ok {
			t.Errorf("notInCSV lists %q, which is not a metric of the JSON", k)
		}
	}
	section := docSection(t, "docs/csv-and-metrics.md", "### What the CSVs cannot recompute")
	for k := range notInCSV {
		if k != "verdict" && !strings.Contains(section, "`"+k+"`") {
			t.Errorf("docs/csv-and-metrics.md's list of what the CSVs cannot recompute does not name %s", k)
		}
	}
}

// The CSV section of docs/csv-and-metrics.md names every column the writers add
// and every outcome, each in backticks.
func TestDocsDocumentEveryCSVColumn(t *testing.T) {
	section := docSection(t, "docs/csv-and-metrics.md", "## CSV")
	names := strings.Split(present.RequestColumns+","+present.SeriesColumns, ",")
	for o := sim.Outcome(0); o.String() != "unknown"; o++ {
		names = append(names, o.String())
	}
	for _, name := range names {
		if !strings.Contains(section, "`"+name+"`") {
			t.Errorf("the CSV section of docs/csv-and-metrics.md does not explain %s", name)
		}
	}
}
