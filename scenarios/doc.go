// Package scenarios reads scenario files and compiles a scenario into the
// engine's configuration (sim.Config).
//
// A scenario file is TOML: any number of [[scenario]] tables, each a lesson —
// its traffic (clients, a trace of a real log, requests sent by hand), the limit
// (a policy, tiers), the lanes that face it (algorithms, or a product's own
// configuration read by package products), nodes and their clocks, a backend,
// timed changes, the lesson's claims and questions. The schema is schema.go;
// docs/scenarios.md is the guide to every key, and scenarios.toml (the
// catalogue embedded in the binary) its worked examples.
//
// Reading is strict (decode.go): an unknown key, a value of the wrong type or a
// setting that cannot be run is an error naming the file, line and column and the
// fix (position.go keeps where each value was written). Parse compiles every
// scenario once, so a problem anywhere in a file is reported when it is read;
// Catalogue.Compile then builds one scenario's configuration with the command
// line's overrides (seed, lanes, Redis, strict).
//
// Compiling (compile.go, one step per part: clients.go, lanes.go,
// productlanes.go, changes.go, claims.go, questions.go, trace.go) checks what the
// engine needs — numbers it can compute with, load it can finish, names a
// terminal can show (text.go) — and records every file it reads (a trace, a
// product configuration and what that includes) in sim.Config.Files, which the
// commands keep their outputs off. Extract (extract.go) cuts scenarios out of a
// file's text as written, comments and all (ratelab scenarios --write), and
// session.go writes a session made in the UI as a scenario that replays it.
package scenarios
