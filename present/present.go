// Package present is how a run is shown: the lane comparison as a table (the
// columns the UI shares) and as JSON, each lane's verdict, a claim's mark and
// evidence, the request and series CSVs (their columns are a contract: new ones
// are only appended), the rate-limit headers a decision's response sends, and the
// notes on what a trace replayed. It reads what package sim computed — Config,
// Metrics, ClaimResult, Row, Sample — and computes nothing of its own; numbers,
// durations and sizes are rendered by package internal/format, which ratelab tune
// shares without depending on the engine.
//
// Output depends only on its inputs: the same run gives the same bytes.
package present
