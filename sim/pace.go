package sim

import (
	"time"

	"ratelab/algorithms"
)

// A client that honours the RateLimit field (Retry.HonourRateLimit), as
// draft-ietf-httpapi-ratelimit-headers lets a client do: every answer says
// r, what remains of the quota, and t, the seconds until it resets (rounded
// up, as the field writes them: algorithms.CeilSeconds); once an answer says r
// = 0, the client holds every attempt on that key, new or retried, until t
// seconds after it heard that answer, then sends what it held. The decision's
// Remaining (whole units, as r writes it) and ResetAfter are read as the
// draft's field carries them, from a lane whose family of headers tells both
// (Lane.paces, algorithms.HeaderFamily.Paces): a lane that sends none (no limit, a product
// that sends no rate-limit fields, Kong hiding them) or tells one only
// (Spring's, Traefik's) gives the client nothing to pace by.

// paceKey names a client's hold on one of its keys.
type paceKey struct{ client, key int32 }

// paceAnswer reads the RateLimit field of d, the answer to request r heard at
// heard: r = 0 holds the client's key until t seconds later.
func (l *Lane) paceAnswer(r *request, d algorithms.Decision, heard time.Duration) {
	if !l.paces || d.IsZero() || d.OnError || algorithms.RemainingOf(d) > 0 {
		return
	}
	until := later(heard, time.Duration(algorithms.CeilSeconds(d.ResetAfter))*time.Second)
	k := paceKey{r.client, r.key}
	if l.holds == nil {
		l.holds = map[paceKey]time.Duration{}
	}
	l.holds[k] = max(l.holds[k], until)
}

// holding says request r's client holds its key now, and until when.
func (l *Lane) holding(r *request) (time.Duration, bool) {
	until, ok := l.holds[paceKey{r.client, r.key}]
	return until, ok && until > l.now
}
