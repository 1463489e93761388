// Package infer finds the limiter behind an API from the outside: from what a
// client sent and what came back (offline, a client's log), or by probing it
// (Probe, within a budget of requests and a rate cap).
//
// The model: an observation is a request's send time, how long its answer took
// and whether it was refused. A hypothesis is a family of limiter and its
// parameters; it is consistent when, replayed on the observed times, it refuses
// exactly the refused requests (and, for a queue, holds the allowed ones as long
// as they were held), with at most Tolerance mismatches (0 offline; a few when
// probing over a network, where a request near a boundary may be decided a
// little after it was sent).
//
// Each family has two parameters: a grid one (a rate for the buckets, a window
// for the windows), scanned on a geometric grid 0.5% apart, and a size (a
// bucket's capacity, a window's limit). For a grid value, the state before each
// request depends only on which requests were allowed — which is observed — so
// each request asks for a least size ("need"): a refusal says the size is below
// its need, an acceptance that it is at least its need, and the sizes consistent
// with every observation are found by one sort. The intervals reported are the
// hull of every consistent grid point: rate and burst from the family's own
// parameters (a window's rate is its limit over its length, its burst the limit).
package infer
