// Package sim is ratelab's engine: a discrete-event kernel on a virtual clock
// (engine.go, events.go) that replays a Config's traffic through every lane at
// once, each lane its own copy of the clients (client.go, traffic.go, retry.go),
// node clocks (clock.go) and backend (backend.go), with a decider between a
// request and the lane's limiters (decider.go, batch.go, split.go,
// composite.go) and a recorder watching what lands (record.go, metrics.go,
// peak.go, contract.go, fate.go, series.go, claims.go). A run streams its
// decisions as Rows and its ticks as Samples to whatever sinks its caller
// attaches (stream.go), in bounded memory.
//
// It computes; it does not format: the table, JSON, verdicts, claim wording and
// the CSVs are package present's, and where a lane's state lives (memory or
// Redis) is the caller's choice (session). Time is an argument everywhere: the
// same Config and seed give the same run, every time.
package sim
