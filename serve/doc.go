// Package serve answers HTTP requests on the wall clock with a lane's limiter:
// each request is keyed as the lane's product keys it (the client's address, a
// header, the path), decided by the same limiters ratelab replays on the
// virtual clock, and answered as the product answers — 200 (or the upstream's
// response, as a reverse proxy), or the product's refusal with its status,
// body and rate-limit headers, or held for the delay the product holds it
// (nginx's burst without nodelay).
//
// The model: time is the wall clock read once per request, under the server's
// lock, as an offset from an origin (Origin: algorithms.HeaderOrigin, a UTC
// midnight, so every window of a second, minute, hour or day is aligned to the
// epoch as the products align theirs). Decisions are made one at a time, in the
// order their instants were read, so a served log replays exactly through fresh
// limiters (Replay): the same arrivals give the same decisions.
//
// Memory is bounded: each lane holds at most MaxKeys keys (a new key past it is
// answered 503, as nginx answers when its zone is full) and keys longer than
// MaxKeyBytes are refused with 400. A lane that needs room (a new key finds it
// full, or its count doubled) evicts its limiters' idle keys (those whose state
// is a new key's) and lets go of the keys no limit holds any more, so a
// long-running server holds the keys in use; a product that lets go of its
// keys only as new ones come (nginx's expiry) is offered a new key when full,
// and makes room or refuses it. Only limits kept per request key count keys.
package serve
